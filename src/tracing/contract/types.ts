/**
 * The trace-store contract suite's shapes (issue 38). A store engine is conformant when every case passes against it:
 * `TraceStore` answers the same on SQLite and Postgres. Framework-free (node:assert), one fresh store per case.
 */
import type { TraceStore } from '../trace-store.js';
import type { SpanRow } from '../span-record.js';

/** One fresh, empty store for one case. */
export interface TraceContractStore {
  /** The reader under test. */
  readonly traces: TraceStore;
  /** Write rows as the engine's span writer stores them (whole, durable when it resolves). */
  write(rows: readonly SpanRow[]): Promise<void>;
}

/** One case of the contract. */
export interface TraceContractCase {
  /** The method or group it checks (`listTraces`, `prune`, ...). */
  readonly group: string;
  readonly name: string;
  run(store: TraceContractStore): Promise<void>;
}
