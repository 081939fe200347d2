/**
 * The Platform store contract's shapes (issue 42): a PlatformStore is conformant when every case passes against it;
 * the SQLite and Postgres stores run it unchanged. Framework-free (node:assert), one fresh store per case.
 */
import type { PlatformStore } from '../store-types.js';

/** One fresh, empty store for one case. */
export interface PlatformContractStore {
  readonly store: PlatformStore;
  /** Another independent handle on the same store (its own connection or pool), as another replica would have. The case closes it. */
  reopen(): Promise<PlatformStore>;
}

/** How the suite gets stores: `create` provisions a fresh empty one, `destroy` removes it (and closes its handle). */
export interface PlatformContractInitializer {
  readonly name: string;
  create(): Promise<PlatformContractStore>;
  destroy(store: PlatformContractStore): Promise<void>;
}

export interface PlatformContractCase {
  readonly group: string;
  readonly name: string;
  run(store: PlatformContractStore): Promise<void>;
}
