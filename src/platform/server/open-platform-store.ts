/** The Platform store a store value names (issue 42): a SQLite file path, or a `postgres://...?schema=` URL. */
import { existsSync } from 'node:fs';
import { openLocalStore } from '../../store/open.js';
import { familyVersion } from '../../store/pg-family-schema.js';
import { asStorageError } from '../../store/storage-errors.js';
import { openStore, type Store } from '../../store/store-handle.js';
import { PostgresPlatformStore } from './pg-platform-store.js';
import { PG_PLATFORM_FAMILY } from './pg-schema.js';
import { SQLitePlatformStore } from './sqlite-platform-store.js';
import type { PlatformStore } from './store-types.js';

/** Open the Platform store `value` names (a path resolved against `cwd`). Throws ConfigError for a value naming no store. */
export function openPlatformStore(value: string, cwd: string = process.cwd()): PlatformStore {
  const store = openStore(value, { cwd });
  if (store.engine === 'sqlite') return new SQLitePlatformStore(store.path!);
  return new PostgresPlatformStore(store);
}

/**
 * Whether `store` holds the Platform's tables (`agentkit platform serve` ran on it), read without creating anything.
 * A SQLite path that is no database throws StoreOpenError; a Postgres store that cannot be reached rejects with
 * StorageUnavailableError.
 */
export async function holdsPlatform(store: Store): Promise<boolean> {
  if (store.engine === 'sqlite') {
    if (!existsSync(store.path!)) return false;
    // Opened as every store is read: a folder or a file that is not a database is a StoreOpenError naming the path.
    const db = openLocalStore(store.path!, { readonly: true });
    try {
      return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'platform_spans'").get() !== undefined;
    } finally {
      db.close();
    }
  }
  try {
    return (await familyVersion(store.pool(), store.schema!, PG_PLATFORM_FAMILY)) > 0;
  } catch (error) {
    throw asStorageError(error, `the Postgres store ${store.label}`);
  }
}
