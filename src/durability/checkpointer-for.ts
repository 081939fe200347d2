/**
 * The checkpointer of a store named by one value (issue 38): a SQLiteCheckpointer on a file, a PostgresCheckpointer
 * on a `postgres://...?schema=` URL. Only this and the two constructors name a backend.
 */
import type { Where } from '../config/paths.js';
import { checkpointStore } from '../config/paths.js';
import { openStore, Store } from '../store/store-handle.js';
import type { Checkpointer } from './checkpointer.js';
import { PostgresCheckpointer, type PostgresCheckpointerOptions } from './postgres-checkpointer.js';
import { SQLiteCheckpointer } from './sqlite-checkpointer.js';

/**
 * A checkpointer on `store` (an opened store, or a value: a file path or a `postgres://` URL); with none, the
 * configured checkpoint store (`AGENTKIT_LOCAL_DB`, else the legacy `AGENTKIT_CHECKPOINT_DB_PATH`, else
 * `./.agentkit/local.db`; the legacy variable naming a file while the store is a URL is a ConfigError). A Postgres
 * checkpointer shares the process's one pool for the store. The caller closes it.
 */
export function checkpointerFor(store?: Store | string, options: Where & Pick<PostgresCheckpointerOptions, 'minPoolSize' | 'maxPoolSize'> = {}): Checkpointer {
  const opened = store instanceof Store ? store : openStore(store ?? checkpointStore(options), options);
  if (opened.ref.engine === 'sqlite') return new SQLiteCheckpointer(opened.ref.path);
  return new PostgresCheckpointer(opened, { minPoolSize: options.minPoolSize, maxPoolSize: options.maxPoolSize });
}
