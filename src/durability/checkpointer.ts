/**
 * The Checkpointer: the one storage port of durability. Executors (Chain, Agent, Swarm, Supervisor) and the resume,
 * fork, CLI and UI paths reach storage only through it; only constructors name a backend. Every backend passes the
 * same contract suite (`checkpointerContract` in `agentkit/testing`), which is what "conformant" means here.
 *
 * Rows are the generated `Checkpoint` and `PendingInterrupt` shapes (spec names, letter for letter). Timestamps are
 * ISO-8601 UTC strings with microseconds. JSON columns hold JSON: a backend stores and returns them as JSON values.
 */
import type { Checkpoint, CheckpointStatus, PendingInterrupt, RunStatus, StepType } from '../types.js';
import type { Claim } from './decision.js';
import type { IdempotencyKeyWrite } from './idempotency-keys.js';
import type { JsonRecord, JsonValue } from './json.js';

/**
 * A checkpoint row to write. `execution_id`, `chain_name` and `node_id` are required; every other field has a
 * default: a fresh `checkpoint_id` (UUID), `created_at` now, `status` `completed`, `step_type` null, `node_index` 0,
 * `state_snapshot` `{}`, counters `{}`, the rest null.
 */
export interface CheckpointWrite {
  execution_id: string;
  chain_name: string;
  node_id: string;
  checkpoint_id?: string;
  node_index?: number;
  status?: CheckpointStatus;
  step_type?: StepType | null;
  run_status?: RunStatus | null;
  parent_checkpoint_id?: string | null;
  state_snapshot?: JsonRecord;
  node_input?: unknown;
  node_output?: unknown;
  iteration?: number;
  iteration_counters?: Record<string, number>;
  interrupt_reason?: string | null;
  interrupt_context?: JsonRecord | null;
  agent_path?: string | null;
  created_at?: string;
  /** The trace of the run that writes the row (see Checkpoint); a run's fenced writer sets it on its first row. */
  trace_id?: string | null;
}

/**
 * The pending-interrupt row written with an interrupted checkpoint. `reason` and `context` are required; the rest
 * default to the checkpoint's (`execution_id`, `chain_name`, `node_id`, `agent_path`, `created_at`).
 */
export interface PendingInterruptWrite {
  reason: string;
  context: JsonRecord;
  chain_name?: string;
  node_id?: string;
  agent_path?: string | null;
  created_at?: string;
}

/**
 * A writer's lease on an execution (docs/adr/0015): the owner and the generation its acquisition got. A write given a
 * fence is made only while the execution's lease row still names that owner and generation, atomically with the
 * check; otherwise nothing is written and the write rejects with LeaseLost. Expiry does not matter: a holder whose
 * lease expired but that nobody took over may still write.
 */
export interface Fence {
  owner: string;
  generation: number;
  /**
   * The run's last write (its terminal row, its pause): the lease is released with it, so the next run of the
   * execution finds it free without waiting for a release of its own (Postgres: in the write's statement; SQLite:
   * right after it commits). Honoured by `put`, `putWrites` and `recordInterrupt`.
   */
  release?: boolean;
}

/** How `acquireLease` takes a lease. */
export interface LeaseOptions {
  /** A new run's first row, written in the same transaction, fenced by the grant: both or neither. */
  first?: CheckpointWrite;
  /**
   * Take the lease even when unexpired if this owner holds it (one known to be dead: a process of this host that no
   * longer exists, ./fenced.ts); the generation goes up as for any takeover.
   */
  takeOverFrom?: string;
  /**
   * The runner definition taking the lease (`runnerKey` in ./runner-key.ts: kind, name and a fingerprint), recorded
   * on the lease so that a recovery sweep only continues executions of runners it serves (docs/adr/0050). Omitted:
   * the key recorded before stays.
   */
  runner?: string;
  /**
   * With `first`: a served request's Idempotency-Key, recorded in the same transaction (docs/adr/0052). When an
   * unexpired record of the same caller and key exists, nothing is written and the call rejects with
   * IdempotencyKeyTaken; an expired one is replaced. Honoured by stores implementing IdempotencyKeyStore.
   */
  idempotencyKey?: IdempotencyKeyWrite;
}

/** An execution's lease as stored. */
export interface LeaseRecord {
  owner: string;
  generation: number;
  /** When it expires (ISO-8601 UTC); in the past once released or expired. */
  expires_at: string;
}

export interface ListOptions {
  /** At most this many rows (default 100). */
  limit?: number;
  /** Newest first instead of oldest first (default false: chronological). */
  newestFirst?: boolean;
}

/**
 * Storage for checkpoints, pending interrupts and idempotency records. Every method is async, may be called before
 * `setup()` (it sets up on first use), and is safe to call concurrently from one process and from many processes
 * sharing the store.
 */
export interface Checkpointer {
  /**
   * Create or migrate the storage this checkpointer needs. Idempotent: a second call, or a call racing another
   * process's, changes nothing. Refuses (StoreVersionError) a store written by a newer agentkit.
   */
  setup(): Promise<void>;

  /**
   * Persist one row and return it as stored (defaults filled in). Rejects a duplicate `checkpoint_id`. With `fence`,
   * only while the row's execution's lease is still the fence's (else LeaseLost, nothing written).
   */
  put(checkpoint: CheckpointWrite, fence?: Fence): Promise<Checkpoint>;

  /**
   * Persist several rows atomically, in the given order (each `created_at` after the previous): all of them or none.
   * Executors use it to write a run's last step and its terminal row together. An empty list writes nothing.
   */
  putWrites(checkpoints: readonly CheckpointWrite[], fence?: Fence): Promise<Checkpoint[]>;

  /** The most recently written row of an execution (latest `created_at`, then write order), or null when none. */
  getLast(executionId: string): Promise<Checkpoint | null>;

  /** The row with this `checkpoint_id`, or null. */
  getById(checkpointId: string): Promise<Checkpoint | null>;

  /** Rows of an execution in write order (oldest first unless `newestFirst`), at most `limit` (default 100). */
  list(executionId: string, options?: ListOptions): Promise<Checkpoint[]>;

  /** Pending interrupts of every execution, newest first, at most `limit` (default 100). */
  listPendingInterrupts(options?: { limit?: number }): Promise<PendingInterrupt[]>;

  /**
   * Persist a pause: the interrupted checkpoint and its pending-interrupt row in one transaction (both or neither).
   * An execution has at most one pending row: a new pause replaces an older unclaimed one.
   */
  recordInterrupt(checkpoint: CheckpointWrite, pending: PendingInterruptWrite, fence?: Fence): Promise<{ checkpoint: Checkpoint; pending: PendingInterrupt }>;

  /**
   * Claim the execution's pending interrupt: delete it and return it. Of N concurrent callers on one execution id,
   * in one process or many sharing the store, exactly one gets the row; the others get null.
   */
  deletePendingInterruptAtomic(executionId: string): Promise<PendingInterrupt | null>;

  /**
   * Claim the execution's pending interrupt and record the decision, in one transaction: delete the pending row and,
   * only when this caller got it, write the decision row (`decisionRow` in ./decision.ts: a copy of the execution's
   * newest interrupted row at the pending row's node and agent path, `step_type` `resume`, `status` `completed`,
   * `node_output` `{ resume, claimed_by, pending_created_at }`). Of N concurrent callers exactly one gets
   * `{ pending, checkpoint }`, the others null; a crash after the commit leaves the decision for the next resume.
   * With `fence`, LeaseLost (nothing claimed) when the execution's lease is no longer the fence's.
   */
  claimPendingInterrupt(executionId: string, claim: Claim, fence?: Fence): Promise<{ pending: PendingInterrupt; checkpoint: Checkpoint } | null>;

  /**
   * Take the execution's lease for `owner` for `ttlMs` milliseconds, atomically: granted when no lease exists, when
   * `owner` already holds it (then extended, same generation), or when the holder's lease has expired or was released
   * (taken over: the generation goes up by one). Returns the granted generation (1 for a new lease), or null when
   * another owner holds an unexpired lease. Of N concurrent callers with different owners exactly one is granted.
   * With `options.first`, that row (a new run's first row) is written in the same transaction, fenced by the grant:
   * both or neither. With `options.takeOverFrom`, a lease that owner holds is taken over even when unexpired.
   */
  acquireLease(executionId: string, owner: string, ttlMs: number, options?: LeaseOptions): Promise<number | null>;

  /** The execution's lease row (current or not), or null when it never had one. */
  leaseOf(executionId: string): Promise<LeaseRecord | null>;

  /** Extend `owner`'s lease to `ttlMs` from now; false when `owner` no longer holds it (it expired and was taken). */
  renewLease(executionId: string, owner: string, ttlMs: number): Promise<boolean>;

  /**
   * Release `owner`'s lease: it expires now, so anyone may take it over (nothing happens when another owner holds it
   * now). The lease row and its generation stay, so a later acquisition gets a higher generation.
   */
  releaseLease(executionId: string, owner: string): Promise<void>;

  /** Delete every checkpoint, pending interrupt, idempotency record and lease of an execution; returns rows removed. */
  deleteExecution(executionId: string): Promise<number>;

  /** The JSON value stored for `(executionId, functionKey)`, `undefined` when there is none (a stored null is null). */
  getIdempotent(executionId: string, functionKey: string): Promise<JsonValue | undefined>;

  /** Store (or replace) the JSON value for `(executionId, functionKey)`; with `fence`, as `put`. */
  putIdempotent(executionId: string, functionKey: string, value: JsonValue, fence?: Fence): Promise<void>;

  /**
   * Delete completed and failed checkpoints and idempotency records created before the cutoff (`olderThan`: an age
   * in milliseconds, or an absolute Date). Never deletes an interrupted checkpoint or a pending row, and nothing of
   * an execution that has a pending interrupt (its history and cached side effects are needed by the resume).
   * Returns the number of rows deleted.
   */
  prune(olderThan: number | Date): Promise<number>;

  /** Release connections. The checkpointer is unusable afterwards. Idempotent. */
  close(): Promise<void>;
}

/** A row as the replication protocol hands it out: the checkpoint plus its store's write sequence. */
export interface UnsyncedCheckpoint {
  checkpoint: Checkpoint;
  /** Monotonic write order within the store (the Platform orders ingested rows by it). */
  sequence: number;
  project_id: string;
}

/**
 * Optional replication protocol (connected mode pushes checkpoints to the Platform): rows not yet acknowledged,
 * oldest first, and a way to acknowledge them. A row leaves the unsynced set when marked synced or quarantined.
 */
export interface ReplicatingCheckpointer extends Checkpointer {
  /** Up to `limit` unsynced, unquarantined rows, oldest first; only rows of `projectId` when given. */
  fetchUnsynced(limit: number, projectId?: string): Promise<UnsyncedCheckpoint[]>;
  /** Mark rows as acknowledged; unknown ids are ignored. Returns how many rows changed. */
  markSynced(checkpointIds: readonly string[]): Promise<number>;
  /**
   * Where another connection can reach the same rows (the replication drain reads and marks them from its own thread
   * through its own connection); null when no other connection can (an in-memory store).
   */
  replicaSource?(): ReplicaSource | null;
}

/** How to open a second connection on a checkpointer's store (a file path, or a Postgres URL and schema). */
export type ReplicaSource = { driver: 'sqlite'; path: string } | { driver: 'postgres'; url: string; schema: string };

/**
 * Optional quarantine protocol: rows the Platform rejected on payload grounds are taken out of the resend set (the
 * same flag as markSynced) and the reason is recorded. Without it a rejected row stays buffered and the drain stops.
 */
export interface QuarantiningCheckpointer extends Checkpointer {
  /** Quarantine each row named in `reasons` (checkpoint id -> reason). Returns how many rows changed. */
  markQuarantined(reasons: Readonly<Record<string, string>>): Promise<number>;
  /**
   * Quarantined rows, oldest first: of `executionId` when given, at most `limit` (default 100). A refused offline
   * decision (docs/adr/0054) is one: `inspect`, `list-pending` and the UI show it as a conflict.
   */
  listQuarantined?(options?: { executionId?: string; limit?: number }): Promise<QuarantinedRow[]>;
}

/** A row the Platform refused, with its reason. */
export interface QuarantinedRow {
  checkpoint_id: string;
  execution_id: string;
  node_id: string;
  step_type: string | null;
  created_at: string;
  reason: string;
}

/** The quarantined rows of `checkpointer` (none when it cannot say). */
export async function quarantinedRows(checkpointer: Checkpointer, options: { executionId?: string; limit?: number } = {}): Promise<QuarantinedRow[]> {
  const c = checkpointer as Partial<QuarantiningCheckpointer>;
  return typeof c.listQuarantined === 'function' ? c.listQuarantined(options) : [];
}

/** How a drain marks the rows of a claimed batch (`ClaimingCheckpointer`): in the claim's transaction. */
export interface OutboxMarks {
  markSynced(checkpointIds: readonly string[]): Promise<number>;
  markQuarantined(reasons: Readonly<Record<string, string>>): Promise<number>;
}

/**
 * Optional claiming protocol for stores several processes drain at once (Postgres, docs/adr/0054): a batch is
 * locked for one drain while it is sent and marked, so each row is sent once.
 */
export interface ClaimingCheckpointer extends ReplicatingCheckpointer {
  /** Up to `limit` unsynced rows claimed for `send`, marked through `marks` in the same transaction. */
  withClaimedBatch<R>(limit: number, send: (rows: UnsyncedCheckpoint[], marks: OutboxMarks) => Promise<R>): Promise<R>;
}

/** True when the checkpointer claims drain batches (`ClaimingCheckpointer`). */
export function supportsClaiming(checkpointer: Checkpointer): checkpointer is ClaimingCheckpointer {
  return supportsReplication(checkpointer) && typeof (checkpointer as Partial<ClaimingCheckpointer>).withClaimedBatch === 'function';
}

/**
 * Optional push protocol (`agentkit platform push`, docs/adr/0054): rows written while not connected (local-only)
 * are sent only on request. Local-only rows are stored synced, so the outbox never holds them.
 */
export interface PushingCheckpointer extends Checkpointer {
  /**
   * Up to `limit` local-only, unquarantined rows of `projectId` ('' for the default project), oldest first, written
   * at or after `since` (ISO time) when given, after the write sequence `afterSequence` when given.
   */
  fetchLocalOnly(limit: number, projectId: string, options?: { since?: string | null; afterSequence?: number }): Promise<UnsyncedCheckpoint[]>;
  /** Mark rows the Platform accepted as sent, and quarantine those it `rejected` (id -> reason). Returns rows changed. */
  markPushed(checkpointIds: readonly string[], rejected?: Readonly<Record<string, string>>): Promise<number>;
}

/** True when the checkpointer implements the push protocol. */
export function supportsPush(checkpointer: Checkpointer): checkpointer is PushingCheckpointer {
  const c = checkpointer as Partial<PushingCheckpointer>;
  return typeof c.fetchLocalOnly === 'function' && typeof c.markPushed === 'function';
}

/** True when the checkpointer implements the replication protocol. */
export function supportsReplication(checkpointer: Checkpointer): checkpointer is ReplicatingCheckpointer {
  const c = checkpointer as Partial<ReplicatingCheckpointer>;
  return typeof c.fetchUnsynced === 'function' && typeof c.markSynced === 'function';
}

/** True when the checkpointer implements the quarantine protocol. */
export function supportsQuarantine(checkpointer: Checkpointer): checkpointer is QuarantiningCheckpointer {
  return typeof (checkpointer as Partial<QuarantiningCheckpointer>).markQuarantined === 'function';
}

/** Default `limit` of `list` and `listPendingInterrupts`. */
export const DEFAULT_LIST_LIMIT = 100;
