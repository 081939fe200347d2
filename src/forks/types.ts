/**
 * UI replay forks as stored rows (issue 39): a fork is its source trace, the step it was made at, the modifications
 * applied to it and its latest rerun. Any UI process on the same store reads, changes, reruns and compares a fork made
 * by another; the rebuilt ForkedReplay itself is never stored (it is made again from the trace and the modifications).
 */
import type { components } from '../../generated/types/ui.js';

type Schemas = components['schemas'];

/** A fork's latest rerun: the spec's four result fields, the input it ran with, and its comparison. */
export interface StoredRerun {
  result: Schemas['ReplayResult'];
  input: string;
  comparison: Schemas['ComparisonResult'];
}

/** One stored fork. */
export interface StoredFork {
  fork_id: string;
  /** The trace the fork was made from. */
  trace_id: string;
  step: number;
  modifications: Schemas['ForkModifications'];
  /** null before the first rerun. */
  rerun: StoredRerun | null;
  /** UTC ISO-8601 with microseconds (store/time.ts), as every agentkit row. */
  created_at: string;
  updated_at: string;
}

/**
 * Where forks are kept: a local.db file or a Postgres store (`forkStoreOf`). Every method answers from the store
 * itself, so a change made through another handle (another process) is seen at the next call.
 */
export interface ForkStore {
  /** How messages name the store (a Postgres URL with its password redacted). */
  readonly label: string;
  /** Store a new fork (its id unique: a second create with the same id is refused). */
  create(fork: Pick<StoredFork, 'fork_id' | 'trace_id' | 'step' | 'modifications'>): Promise<StoredFork>;
  /** The fork, or null when the store holds none with that id. */
  get(forkId: string): Promise<StoredFork | null>;
  /** Replace the given fields (and `updated_at`); the fork as stored after, or null when there is none. */
  update(forkId: string, changes: { modifications?: StoredFork['modifications']; rerun?: StoredRerun | null }): Promise<StoredFork | null>;
  /** Every fork, oldest first (a store copy reads them). */
  all(): Promise<StoredFork[]>;
  /**
   * Add the given forks as they are (their times kept) where the store holds none with that id; an existing fork is
   * left as it is. Returns how many were added (a store copy, run again, adds 0).
   */
  importRows(forks: readonly StoredFork[]): Promise<number>;
  /** Give back connections (a Postgres store's pool hold). Idempotent. */
  close(): Promise<void>;
}
