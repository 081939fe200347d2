/**
 * Copying one checkpointer's executions into another through the Checkpointer interface (no SQL here): each
 * execution's rows in write order, with their ids, timestamps, states and decision rows; its pending interrupt, written
 * with its interrupted row in one transaction (`recordInterrupt`), so a paused execution is resumable in the target;
 * its idempotency records, so a side effect that ran before the pause never runs again after the move.
 *
 * Idempotent: rows the target already holds (same checkpoint id) are skipped, so a copy run again, or resumed after a
 * stop, adds only what is missing. Copied rows are marked synced in the target: a move of history is not new work for
 * the Platform outbox, and nothing leaves the machine that the user did not ask to send.
 */
import type { Checkpointer, CheckpointWrite } from '../durability/checkpointer.js';
import { supportsReplication } from '../durability/checkpointer.js';
import type { RecoveringCheckpointer } from '../durability/recovery-store.js';
import type { Checkpoint } from '../types.js';

export interface CheckpointCopyResult {
  /** Executions read from the source. */
  executions: number;
  /** Checkpoint rows the target did not hold yet. */
  checkpoints: number;
  /** Pending interrupts written (paused executions). */
  pending: number;
  /** Idempotency records written. */
  idempotency: number;
}

/** Rows read per execution at most: an execution rarely has more; a larger one is refused rather than cut. */
const MAX_ROWS = 1_000_000;

/** Copy every execution of `from` into `to`; see the module comment. */
export async function copyCheckpoints(
  from: RecoveringCheckpointer,
  to: Checkpointer & Pick<RecoveringCheckpointer, 'idempotentEntries'>,
  options: { onProgress?: (executions: number) => void } = {},
): Promise<CheckpointCopyResult> {
  const result: CheckpointCopyResult = { executions: 0, checkpoints: 0, pending: 0, idempotency: 0 };
  const executions = await from.listExecutions({ limit: Number.MAX_SAFE_INTEGER });
  const pendingById = new Map((await from.listPendingInterrupts({ limit: Number.MAX_SAFE_INTEGER })).map((p) => [p.execution_id, p]));
  // Oldest first, so a copy stopped halfway has moved whole early executions.
  for (const execution of executions.reverse()) {
    const id = execution.execution_id;
    const rows = await from.list(id, { limit: MAX_ROWS });
    const held = new Set((await to.list(id, { limit: MAX_ROWS })).map((row) => row.checkpoint_id));
    const missing = rows.filter((row) => !held.has(row.checkpoint_id));
    const last = rows.at(-1);
    const pending = pendingById.get(id);
    const pausedLast = last !== undefined && pending !== undefined && last.status === 'interrupted' && !held.has(last.checkpoint_id);
    const plain = (pausedLast ? missing.slice(0, -1) : missing).map(toWrite);
    if (plain.length > 0) await to.putWrites(plain);
    if (pausedLast && pending) {
      await to.recordInterrupt(toWrite(last), {
        reason: pending.reason,
        context: pending.context,
        chain_name: pending.chain_name,
        node_id: pending.node_id,
        agent_path: pending.agent_path ?? null,
        created_at: pending.created_at,
      });
      result.pending++;
    }
    const copied = missing.map((row) => row.checkpoint_id);
    if (copied.length > 0 && supportsReplication(to)) await to.markSynced(copied);
    for (const entry of await from.idempotentEntries(id)) {
      if ((await to.getIdempotent(id, entry.function_key)) !== undefined) continue;
      await to.putIdempotent(id, entry.function_key, entry.result);
      result.idempotency++;
    }
    result.checkpoints += missing.length;
    result.executions++;
    options.onProgress?.(result.executions);
  }
  return result;
}

/** The write that stores `row` again as it is (same id, time, state and fields). */
function toWrite(row: Checkpoint): CheckpointWrite {
  return {
    execution_id: row.execution_id,
    chain_name: row.chain_name,
    node_id: row.node_id,
    checkpoint_id: row.checkpoint_id,
    node_index: row.node_index,
    status: row.status,
    step_type: row.step_type ?? null,
    run_status: row.run_status ?? null,
    parent_checkpoint_id: row.parent_checkpoint_id ?? null,
    state_snapshot: row.state_snapshot,
    node_input: row.node_input,
    node_output: row.node_output,
    iteration: row.iteration,
    iteration_counters: row.iteration_counters,
    interrupt_reason: row.interrupt_reason ?? null,
    interrupt_context: row.interrupt_context ?? null,
    agent_path: row.agent_path ?? null,
    created_at: row.created_at,
    trace_id: row.trace_id ?? null,
  };
}
