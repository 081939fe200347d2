/**
 * The checkpointer contract suite's shapes. A backend is conformant when every case passes against it. The suite is
 * framework-free (node:assert): register each case with any test runner, one store per case.
 */
import type { Checkpointer } from '../checkpointer.js';

/** One fresh, empty store for one case. */
export interface ContractStore {
  /** A checkpointer on the store, not yet set up (cases call `setup()` or rely on set-up-on-first-use). */
  readonly checkpointer: Checkpointer;
  /**
   * Another independent handle (its own connection or pool) on the same store, as a second process would have.
   * The case closes the handles it opens.
   */
  reopen(): Promise<Checkpointer>;
}

/** How the suite gets stores: `create` provisions a fresh empty one, `destroy` removes it (and closes its handle). */
export interface CheckpointerContractInitializer {
  /** Shown in case names, e.g. `sqlite`. */
  readonly name: string;
  create(): Promise<ContractStore>;
  destroy(store: ContractStore): Promise<void>;
}

/** One case of the contract. */
export interface ContractCase {
  /** The method or group it checks (`put`, `deletePendingInterruptAtomic`, ...). */
  readonly group: string;
  readonly name: string;
  /** Optional protocol the case needs; a backend without it is not checked by the case. */
  readonly requires?: 'replication' | 'quarantine' | 'recovery';
  run(store: ContractStore): Promise<void>;
}
