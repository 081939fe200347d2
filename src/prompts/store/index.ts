/** The prompt table family's owner: one interface, a SQLite and a Postgres implementation, and how to pick one. */
import type { StoreRef } from '../../config/store-value.js';
import type { Store } from '../../store/store-handle.js';
import { PostgresPromptStore } from './pg-prompt-store.js';
import { SQLitePromptStore } from './sqlite-prompt-store.js';
import type { PromptStore } from './types.js';

export type { AddVersionInput, AddVersionResult, FragmentLookup, PromptStore, PromptSummary, VersionContent } from './types.js';
export { SQLitePromptStore } from './sqlite-prompt-store.js';
export { PostgresPromptStore, type PostgresPromptStoreOptions } from './pg-prompt-store.js';
export { migratePromptSchema, PG_PROMPT_LATEST_VERSION } from './pg-schema.js';

/**
 * The prompt store of a store: the SQLite file's tables, or the Postgres schema's. A `Store` handle stays its
 * owner's to close; a parsed value's handle is closed with the prompt store.
 */
export function promptStoreOf(store: Store | StoreRef): PromptStore {
  const ref = 'pool' in store ? store.ref : store;
  if (ref.engine === 'sqlite') return new SQLitePromptStore(ref.path);
  return new PostgresPromptStore(store);
}
