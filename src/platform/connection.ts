/**
 * The Platform connection: explicit only. Code calls `connect()` (with a key, or with none to use the saved
 * credentials: environment first, then the credentials file); nothing connects by itself, and the CLI never
 * connects the scripts it runs. `resolveConnection()` is what everything that talks to the Platform asks: the job's
 * connection inside `jobScope` (fields it leaves out inherit the global one), else the global one, else null.
 */
import { registerSecret } from '../config/secrets.js';
import { ConfigError } from '../errors.js';
import { PlatformClient } from './client.js';
import { loadCredentials, normalizeTarget, DEFAULT_TARGET } from './credentials.js';
import { type Connection, setGlobalConnection } from './current-connection.js';
import { PlatformError } from './errors.js';
import { installEvalExport } from './eval-outbox.js';
import { flushLeftovers, installReplication } from './replication.js';
import { installClaimArbiter } from './claim-arbiter.js';
import { installRestore } from './restore.js';

export { clientFor, type Connection, disconnect, exportEvalsEnabled, isConnected, resolveConnection } from './current-connection.js';

export interface ConnectOptions {
  /** The API key; default: AGENTKIT_API_KEY, else the credentials file. */
  apiKey?: string;
  /** Platform URL; default: AGENTKIT_TARGET, else the file's, else DEFAULT_TARGET. */
  target?: string;
  project?: string | null;
  /** false disables eval export for this process (as AGENTKIT_EXPORT_EVALS=0 does). */
  exportEvals?: boolean;
  /** Check the key against the Platform first (default true). */
  verify?: boolean;
  /** Options for the verifying client (timeouts, fetch). */
  client?: Partial<ConstructorParameters<typeof PlatformClient>[0]>;
}

/** What `connect()` learned. `verified` is false when the Platform could not be reached (the outboxes buffer). */
export interface ConnectResult {
  target: string;
  project: string | null;
  verified: boolean;
  domain_id: string | null;
  project_id: string | null;
  scopes: string[];
}

/**
 * Connect this process to the Platform. A refused key (401/403) throws and leaves the process unconnected; an
 * unreachable Platform connects anyway (replication and export buffer until it answers) with `verified: false`.
 */
export async function connect(options: ConnectOptions = {}): Promise<ConnectResult> {
  const saved = options.apiKey ? null : loadCredentials();
  const apiKey = options.apiKey?.trim() || saved?.apiKey;
  if (!apiKey) throw new ConfigError('connect() needs an API key: pass { apiKey }, set AGENTKIT_API_KEY, or run `agentkit connect`');
  registerSecret(apiKey);
  const target = normalizeTarget(options.target ?? saved?.target ?? process.env.AGENTKIT_TARGET ?? DEFAULT_TARGET);
  const project = options.project !== undefined ? options.project : (saved?.project ?? (process.env.AGENTKIT_PROJECT || null));
  const connection: Connection = { apiKey, target, project, ...(options.exportEvals !== undefined ? { exportEvals: options.exportEvals } : {}) };
  let result: ConnectResult = { target, project, verified: false, domain_id: null, project_id: null, scopes: [] };
  if (options.verify !== false) {
    try {
      const check = await new PlatformClient({ ...options.client, apiKey, target }).authCheck();
      result = { ...result, verified: true, domain_id: check.domain_id, project_id: check.project_id, scopes: check.scopes };
    } catch (error) {
      if (!(error instanceof PlatformError) || error.httpStatus !== null) throw error;
    }
  }
  setGlobalConnection(connection);
  installReplication();
  installClaimArbiter();
  installRestore();
  installEvalExport();
  // Rows a previous process wrote and never sent go out now, on the drain thread, not at the next write.
  flushLeftovers(connection);
  return result;
}
