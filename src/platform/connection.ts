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
import { PlatformError } from './errors.js';
import { currentJob } from './job-context.js';
import { flushLeftovers, installReplication } from './replication.js';
import { installRestore } from './restore.js';

/** An active connection. */
export interface Connection {
  apiKey: string;
  target: string;
  /** The project rows and runs are sent to; null means the key's default project. */
  project: string | null;
  /** The `exportEvals` option of `connect()`; undefined defers to AGENTKIT_EXPORT_EVALS (on unless `0`/`false`). */
  exportEvals?: boolean;
}

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

let globalConnection: Connection | null = null;

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
  globalConnection = connection;
  installReplication();
  installRestore();
  // Rows a previous process wrote and never sent go out now, on the drain thread, not at the next write.
  flushLeftovers(connection);
  return result;
}

/** Forget the process's connection (the credentials file is untouched: `agentkit disconnect` removes it). */
export function disconnect(): void {
  globalConnection = null;
}

/** The connection in effect here: the job's (inheriting missing fields from the global one), else the global one. */
export function resolveConnection(): Connection | null {
  const job = currentJob();
  if (!job || (job.apiKey === undefined && job.target === undefined && job.project === undefined)) return globalConnection;
  const apiKey = job.apiKey ?? globalConnection?.apiKey;
  if (!apiKey) return null;
  return {
    apiKey,
    target: job.target ?? globalConnection?.target ?? DEFAULT_TARGET,
    project: job.project ?? globalConnection?.project ?? null,
    ...(globalConnection?.exportEvals !== undefined ? { exportEvals: globalConnection.exportEvals } : {}),
  };
}

/** True when the process (or the enclosing job) is connected. */
export function isConnected(): boolean {
  return resolveConnection() !== null;
}

/** Is eval export on for `connection`: its `exportEvals`, else AGENTKIT_EXPORT_EVALS (`0`/`false` turn it off). */
export function exportEvalsEnabled(connection: Connection | null, env: Record<string, string | undefined> = process.env): boolean {
  if (!connection) return false;
  if (connection.exportEvals !== undefined) return connection.exportEvals;
  const value = env.AGENTKIT_EXPORT_EVALS?.trim().toLowerCase();
  return value !== '0' && value !== 'false';
}

const clients = new Map<string, PlatformClient>();

/** A client for `connection`, shared per key and target. */
export function clientFor(connection: Connection, options: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {}): PlatformClient {
  if (Object.keys(options).length > 0) return new PlatformClient({ ...options, apiKey: connection.apiKey, target: connection.target });
  const id = `${connection.target}\u0000${connection.apiKey}`;
  let client = clients.get(id);
  if (!client) {
    client = new PlatformClient({ apiKey: connection.apiKey, target: connection.target });
    if (clients.size > 256) clients.clear();
    clients.set(id, client);
  }
  return client;
}
