/**
 * Durability: pause and resume (`interrupt`, `Resume`, `InterruptSignal`), the Checkpointer port and its SQLite and
 * Postgres backends, the run-end helpers every resume and fork path goes through, and `idempotent`.
 */
export {
  AlreadyResumed,
  ChainCheckpointError,
  ChainResumeError,
  ExecutionBusy,
  IdempotencyError,
  InvalidSchemaNameError,
  LeaseLost,
  RunStopped,
} from './errors.js';
export { StopSignal } from './run-stop.js';
export {
  DECISION_STEP,
  DECISION_SURFACES,
  decisionInForce,
  decisionOf,
  decisionRow,
  describeDecision,
  isDecisionRow,
  type Claim,
  type DecidedBy,
  type DecisionOptions,
  type DecisionSurface,
  type RecordedDecision,
} from './decision.js';
export { DEFAULT_LEASE_MS, leaseTtlMs, newLeaseOwner, withExecutionLease } from './lease.js';
export { StorageUnavailableError } from '../store/storage-errors.js';
export { InterruptSignal, isInterruptSignal } from './interrupt-signal.js';
export { interrupt } from './interrupt.js';
export { toResume } from './resume.js';
export { idempotent, functionKey, type IdempotentOptions } from './idempotent.js';
export {
  DEFAULT_LIST_LIMIT,
  supportsQuarantine,
  quarantinedRows,
  supportsReplication,
  type Checkpointer,
  type CheckpointWrite,
  type Fence,
  type LeaseOptions,
  type LeaseRecord,
  type ListOptions,
  type PendingInterruptWrite,
  type QuarantiningCheckpointer,
  type QuarantinedRow,
  type ReplicatingCheckpointer,
  type UnsyncedCheckpoint,
} from './checkpointer.js';
export {
  supportsRecovery,
  type ActiveLease,
  type ExecutionRecord,
  type RecoveringCheckpointer,
  type RecoveryRecord,
} from './recovery-store.js';
export { runnerKey } from './runner-key.js';
export { SQLiteCheckpointer, type SQLiteCheckpointerOptions } from './sqlite-checkpointer.js';
export { PostgresCheckpointer, type PostgresCheckpointerOptions } from './postgres-checkpointer.js';
export { PG_LATEST_VERSION } from './postgres-migrations.js';
export { validateSchemaName } from './schema-name.js';
export {
  FORK_ORIGIN,
  RUN_END,
  RUN_START,
  describeError,
  isRunEnd,
  latestForkable,
  latestResumable,
  restoreIfMissing,
  runEndRow,
  setRestorer,
  type Restorer,
} from './run-end.js';
export { currentWriteStamp, onCheckpointWrite, stampOf, stampRows, type WriteStamp } from './write-hook.js';
export { isPlainObject, nonJsonReason, type JsonRecord, type JsonValue } from './json.js';
