/**
 * The connection in effect: the process-global one that `connect()` sets (./connection.ts), or the enclosing job's
 * (`jobScope`). Below `connect()` and the outboxes, so replication, restore and the eval outbox read the connection
 * without importing `connect()`, which installs them.
 */
import { exportEnabledByEnv } from '../eval/export-hook.js';
import { DEFAULT_TARGET } from './credentials.js';
import { PlatformClient } from './client.js';
import { currentJob } from './job-context.js';

/** An active connection. */
export interface Connection {
  apiKey: string;
  target: string;
  /** The project rows and runs are sent to; null means the key's default project. */
  project: string | null;
  /** The `exportEvals` option of `connect()`; undefined defers to AGENTKIT_EXPORT_EVALS (on unless `0`/`false`). */
  exportEvals?: boolean;
}

let globalConnection: Connection | null = null;

/** Make `connection` the process's connection (`connect()` does, after checking the key). */
export function setGlobalConnection(connection: Connection): void {
  globalConnection = connection;
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
  return exportEnabledByEnv(env);
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
