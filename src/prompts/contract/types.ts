/**
 * The prompt-store contract suite's shapes (issue 39). A PromptStore is conformant when every case passes against
 * it: the SQLite and Postgres stores run it unchanged. Framework-free (node:assert), one fresh store per case.
 */
import type { PromptStore } from '../store/types.js';

/** One fresh, empty store for one case. */
export interface PromptContractStore {
  /** The store under test (cases wrap it in a PromptRegistry where they check the registry's behaviour on it). */
  readonly store: PromptStore;
  /** Another independent handle (its own connection or pool) on the same store, as a second process would have. The case closes it. */
  reopen(): Promise<PromptStore>;
}

/** How the suite gets stores: `create` provisions a fresh empty one, `destroy` removes it (and closes its handle). */
export interface PromptContractInitializer {
  /** Shown in case names, e.g. `sqlite`. */
  readonly name: string;
  create(): Promise<PromptContractStore>;
  destroy(store: PromptContractStore): Promise<void>;
}

/** One case of the contract. */
export interface PromptContractCase {
  /** The method or group it checks (`addVersion`, `labels`, ...). */
  readonly group: string;
  readonly name: string;
  run(store: PromptContractStore): Promise<void>;
}
