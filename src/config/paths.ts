/**
 * Where agentkit keeps its files. Everything is resolved against an explicit environment and working directory so
 * the CLI, servers and tests can run side by side in one process.
 *
 * The store is named by one value (./store-value.ts): `AGENTKIT_LOCAL_DB` may be a file path or a `postgres://` URL.
 * A URL is never resolved as a path: what needs a file (`localDbPath`) refuses a URL store with one line.
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { isStoreUrl, parseStoreValue, redactStoreValue, type StoreRef } from './store-value.js';

/** The environment and working directory a path is resolved in (defaults: this process's). */
export interface Where {
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** Default store path, relative to the working directory. */
export const DEFAULT_LOCAL_DB = path.join('.agentkit', 'local.db');

/** The configured store value: `AGENTKIT_LOCAL_DB` (a path or a URL), else `./.agentkit/local.db`, unparsed. */
export function localStoreValue(where: Where = {}): string {
  const env = where.env ?? process.env;
  return env.AGENTKIT_LOCAL_DB?.trim() || DEFAULT_LOCAL_DB;
}

/**
 * The store (traces, checkpoints, idempotency, prompts): `AGENTKIT_LOCAL_DB` (a file path or a `postgres://` URL),
 * else `./.agentkit/local.db`. Throws ConfigError (or StoreSchemaNameError) for a value that names no store.
 */
export function localStore(where: Where = {}): StoreRef {
  return parseStoreValue(localStoreValue(where), where.cwd ?? process.cwd());
}

/**
 * The local store's file, for what only SQLite holds. Throws ConfigError, one line naming the store redacted, when
 * `AGENTKIT_LOCAL_DB` is a URL: a URL is never turned into a file path.
 */
export function localDbPath(where: Where = {}): string {
  const store = localStore(where);
  if (store.engine === 'sqlite') return store.path;
  throw new ConfigError(`this needs a SQLite store file, but AGENTKIT_LOCAL_DB names a Postgres store (${redactStoreValue(localStoreValue(where))})`);
}

/**
 * The checkpoint store: `AGENTKIT_LOCAL_DB` when set (preferred), else the legacy `AGENTKIT_CHECKPOINT_DB_PATH`,
 * else the default local store. Throws ConfigError when `AGENTKIT_LOCAL_DB` is a URL while the legacy variable names a
 * file: checkpoints and traces would be split between two stores.
 */
export function checkpointStore(where: Where = {}): StoreRef {
  const env = where.env ?? process.env;
  const cwd = where.cwd ?? process.cwd();
  const local = env.AGENTKIT_LOCAL_DB?.trim();
  const legacy = env.AGENTKIT_CHECKPOINT_DB_PATH?.trim();
  if (local && legacy && isStoreUrl(local) && !isStoreUrl(legacy)) {
    throw new ConfigError(
      `AGENTKIT_CHECKPOINT_DB_PATH names a file (${legacy}) while AGENTKIT_LOCAL_DB names a Postgres store (${redactStoreValue(local)}); unset AGENTKIT_CHECKPOINT_DB_PATH so checkpoints and traces stay in one store`,
    );
  }
  return parseStoreValue(local || legacy || DEFAULT_LOCAL_DB, cwd);
}

/** The checkpoint store's file (`checkpointStore`), for what only SQLite holds; ConfigError for a URL store. */
export function checkpointDbPath(where: Where = {}): string {
  const store = checkpointStore(where);
  if (store.engine === 'sqlite') return store.path;
  throw new ConfigError('this needs a SQLite store file, but the configured checkpoint store is a Postgres URL');
}

/**
 * The `.agentkit` directory for what stays on each host (regression tests, the UI auth file, knowledge bases): next to
 * the local store when it is a file, else `./.agentkit` under the working directory (a URL store has no folder).
 */
export function agentkitDir(where: Where = {}): string {
  const store = localStore(where);
  return store.engine === 'sqlite' ? path.dirname(store.path) : path.resolve(where.cwd ?? process.cwd(), '.agentkit');
}
