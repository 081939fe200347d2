/** The Platform store a store value names (issue 42): a SQLite file path, or a `postgres://...?schema=` URL. */
import { openStore } from '../../store/store-handle.js';
import { PostgresPlatformStore } from './pg-platform-store.js';
import { SQLitePlatformStore } from './sqlite-platform-store.js';
import type { PlatformStore } from './store-types.js';

/** Open the Platform store `value` names (a path resolved against `cwd`). Throws ConfigError for a value naming no store. */
export function openPlatformStore(value: string, cwd: string = process.cwd()): PlatformStore {
  const store = openStore(value, { cwd });
  if (store.engine === 'sqlite') return new SQLitePlatformStore(store.path!);
  return new PostgresPlatformStore(store);
}
