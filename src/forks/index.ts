/** UI replay forks on the store (issue 39): one owner of the `ui_forks` family, SQLite and Postgres behind one interface. */
import { openStore, type Store } from '../store/store-handle.js';
import { PgForkStore } from './pg-fork-store.js';
import { SqliteForkStore } from './sqlite-fork-store.js';
import type { ForkStore } from './types.js';

export { forkStoreContract, runForkContractCase, type ForkContractCase, type ForkContractInitializer, type ForkContractStore } from './contract.js';
export type { ForkStore, StoredFork, StoredRerun } from './types.js';

/** The fork store of `store` (an opened store or a value: a file path or a `postgres://...?schema=` URL). */
export function forkStoreOf(store: Store | string): ForkStore {
  const opened = typeof store === 'string' ? openStore(store, { min: 0, max: 2 }) : store;
  return opened.engine === 'sqlite' ? new SqliteForkStore(opened.path!) : new PgForkStore(opened);
}
