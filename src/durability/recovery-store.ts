/**
 * The optional recovery protocol of a checkpointer (docs/adr/0050): which executions are active (a lease taken, no
 * terminal row or pause written since), a fleet-wide claim of an orphan that counts the attempt, parking, the record
 * of recoveries, and a listing of executions with where each stands. Both built-in backends implement it; a
 * checkpointer without it is never swept (its orphans are resumed by hand).
 */
import type { Checkpointer } from './checkpointer.js';
import type { JsonValue } from './json.js';

/** An active execution's lease as stored (indexed: only active leases are read). */
export interface ActiveLease {
  execution_id: string;
  owner: string;
  generation: number;
  /** ISO-8601 UTC; in the past when the holder stopped renewing or released it without ending the run. */
  expires_at: string;
  /** The runner definition that last took the lease (`runnerKey`), or null. */
  runner_key: string | null;
  /** Recoveries since the run last ended or paused. */
  recover_attempts: number;
}

/** One recovery action, as recorded. */
export interface RecoveryRecord {
  execution_id: string;
  /** The attempt number the claim counted (1 for the first recovery since the run last ended or paused). */
  attempt: number;
  /** `resumed` (continued here), `parked` (needs a person), `failed` (attempt cap reached). */
  outcome: 'resumed' | 'parked' | 'failed';
  /** The lease owner id of the recovering process: `<host>:<pid>:<instance id>:<uuid>`. */
  recovered_by: string;
  reason: string | null;
  /** ISO-8601 UTC. */
  at: string;
}

/** An execution as `listExecutions` reads it: its first and last rows, pause, and lease. */
export interface ExecutionRecord {
  execution_id: string;
  /** chain_name and agent_path of the first row (the runner that owns it). */
  chain_name: string;
  agent_path: string | null;
  last_node_id: string;
  last_status: string;
  last_step_type: string | null;
  last_run_status: string | null;
  /** The newest row's created_at. */
  updated_at: string;
  /** A pending interrupt exists. */
  paused: boolean;
  /** The lease, or null when the execution never had one (written before leases, or never run by a lease holder). */
  lease: {
    owner: string;
    expires_at: string;
    active: boolean;
    runner_key: string | null;
    recover_attempts: number;
    attention_reason: string | null;
  } | null;
}

export interface RecoveringCheckpointer extends Checkpointer {
  /** Active executions' leases, soonest expiry first, at most `limit` (one indexed read). */
  activeLeases(options: { limit: number }): Promise<ActiveLease[]>;
  /**
   * Claim an orphan for `owner` for `ttlMs`, fleet-wide and atomically: granted only while the lease is still active
   * at `generation` and either expired or held by `deadOwner` (a dead process of this host). The claim takes the lease
   * (next generation) and increments `recover_attempts` in the same statement. Returns the new generation and the
   * attempt number, or null when another process claimed it first or the run moved on.
   */
  claimOrphan(
    executionId: string,
    generation: number,
    owner: string,
    ttlMs: number,
    deadOwner: string | null,
  ): Promise<{ generation: number; attempt: number } | null>;
  /**
   * End the active stretch of an execution whose lease is still at `generation`: not active, lease released; with
   * `attention`, parked for a person with that reason (the attempt count stays), else the count is reset. False when
   * the lease moved on.
   */
  deactivate(executionId: string, generation: number, attention: string | null): Promise<boolean>;
  /** Append a recovery record (`at` is set by the store). */
  recordRecovery(record: Omit<RecoveryRecord, 'at'>): Promise<void>;
  /** Recovery records, newest first, at most `limit`; only `executionId`'s when given. */
  listRecoveries(options: { limit: number; executionId?: string }): Promise<RecoveryRecord[]>;
  /** Executions, most recently written first, at most `limit`. */
  listExecutions(options: { limit: number }): Promise<ExecutionRecord[]>;
  /**
   * Ids of ended executions (the latest row is the run's own `run_end` at the root path) whose last row was written
   * before `before` (ISO-8601 UTC), with no pending interrupt and no lease that is active or unexpired; at most
   * `limit`, oldest first. What `pruneEndedExecutions` deletes.
   */
  endedExecutions(options: { before: string; limit: number }): Promise<string[]>;
  /** Every idempotency record of an execution, by function key (what a store copy carries over). */
  idempotentEntries(executionId: string): Promise<IdempotentEntry[]>;
}

/** One cached side-effect result of an execution. */
export interface IdempotentEntry {
  function_key: string;
  result: JsonValue;
}

/** True when the checkpointer implements the recovery protocol. */
export function supportsRecovery(checkpointer: Checkpointer): checkpointer is RecoveringCheckpointer {
  const c = checkpointer as Partial<RecoveringCheckpointer>;
  return typeof c.activeLeases === 'function' && typeof c.claimOrphan === 'function' && typeof c.listExecutions === 'function';
}
