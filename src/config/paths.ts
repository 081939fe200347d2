/**
 * Where agentkit keeps its files. Everything is resolved against an explicit environment and working directory so
 * the CLI, servers and tests can run side by side in one process.
 */
import path from 'node:path';

/** The environment and working directory a path is resolved in (defaults: this process's). */
export interface Where {
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** Default store path, relative to the working directory. */
export const DEFAULT_LOCAL_DB = path.join('.agentkit', 'local.db');

/** The local store (traces, checkpoints, idempotency, prompts): `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`. */
export function localDbPath(where: Where = {}): string {
  const env = where.env ?? process.env;
  const cwd = where.cwd ?? process.cwd();
  return path.resolve(cwd, env.AGENTKIT_LOCAL_DB || DEFAULT_LOCAL_DB);
}

/**
 * The checkpoint store: `AGENTKIT_LOCAL_DB` when set (preferred), else the legacy `AGENTKIT_CHECKPOINT_DB_PATH`,
 * else the default local store.
 */
export function checkpointDbPath(where: Where = {}): string {
  const env = where.env ?? process.env;
  const cwd = where.cwd ?? process.cwd();
  if (env.AGENTKIT_LOCAL_DB) return path.resolve(cwd, env.AGENTKIT_LOCAL_DB);
  if (env.AGENTKIT_CHECKPOINT_DB_PATH) return path.resolve(cwd, env.AGENTKIT_CHECKPOINT_DB_PATH);
  return path.resolve(cwd, DEFAULT_LOCAL_DB);
}

/** The `.agentkit` directory next to the local store (regression tests, auth file, knowledge bases). */
export function agentkitDir(where: Where = {}): string {
  return path.dirname(localDbPath(where));
}
