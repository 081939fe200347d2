/**
 * The trace-store contract suite (issue 38): every case `TraceStore` passes on each engine, run unchanged on a fresh
 * SQLite file and a fresh Postgres schema by conformance/scenarios/traces-store-contract.test.ts. Writing goes through
 * each engine's own span writer (`traceContractStore`); reading through `TraceStore` only.
 */
import { readCases } from './read.js';
import type { TraceContractCase } from './types.js';
import { writeDeleteCases } from './write-delete.js';

export type { TraceContractCase, TraceContractStore } from './types.js';
export { traceContractStore } from './stores.js';

/** Every case, grouped by method. */
export const traceStoreContract: readonly TraceContractCase[] = [...readCases, ...writeDeleteCases];
