/**
 * Persisting a pause. An executor that catches InterruptSignal from a step calls `recordInterrupt` inside the step's
 * scope: the interrupted checkpoint (`step_type` `hitl_pause`, `status` `interrupted`, reason and context) and the
 * pending row are written in one transaction, and the summary for the result's `pending_interrupt` comes back.
 */
import type { InterruptSignal } from '../durability/interrupt-signal.js';
import { ChainCheckpointError } from '../durability/errors.js';
import type { JsonRecord } from '../durability/json.js';
import type { PendingInterrupt, PendingInterruptSummary } from '../types.js';
import { currentScope } from './scope.js';

/** The step that paused, as the executor knows it. */
export interface InterruptedStep {
  /** `<node id>` for a chain node, `turn:N/tool:<name>` for an agent tool. */
  nodeId: string;
  nodeIndex?: number;
  /** The state to restore on resume (for a chain: the state the node started from, since it re-runs). */
  stateSnapshot: JsonRecord;
  nodeInput?: unknown;
  iteration?: number;
  iterationCounters?: Record<string, number>;
  /** The path written on both rows; default the scope's `agentPath`. */
  agentPath?: string | null;
}

/**
 * Persist the pause raised by `signal` for the current scope's execution and return the `pending_interrupt` summary.
 * Throws ChainCheckpointError when called outside a scope or in one without a checkpointer: a pause that cannot be
 * persisted could never be resumed, so it must not be reported as `paused`.
 */
export async function recordInterrupt(signal: InterruptSignal, step: InterruptedStep): Promise<PendingInterruptSummary> {
  const scope = currentScope();
  if (!scope) throw new ChainCheckpointError(`interrupt('${signal.reason}') was raised outside an execution scope; run it inside a Chain or Agent`);
  if (!scope.checkpointer) {
    throw new ChainCheckpointError(
      `'${scope.runnerName}' called interrupt('${signal.reason}') at '${step.nodeId}' but has no checkpointer, so the pause could not be persisted; give it a checkpointer (SQLiteCheckpointer or PostgresCheckpointer)`,
    );
  }
  const agentPath = step.agentPath === undefined ? scope.agentPath : step.agentPath;
  const { pending } = await scope.checkpointer.recordInterrupt(
    {
      execution_id: scope.executionId,
      chain_name: scope.runnerName,
      node_id: step.nodeId,
      node_index: step.nodeIndex ?? 0,
      status: 'interrupted',
      step_type: 'hitl_pause',
      state_snapshot: step.stateSnapshot,
      node_input: step.nodeInput ?? null,
      iteration: step.iteration ?? 0,
      iteration_counters: step.iterationCounters ?? {},
      interrupt_reason: signal.reason,
      interrupt_context: signal.context,
      agent_path: agentPath,
    },
    { reason: signal.reason, context: signal.context },
  );
  return pendingSummary(pending);
}

/** The `pending_interrupt` of a result: the pending row without its bookkeeping fields. */
export function pendingSummary(pending: PendingInterrupt): PendingInterruptSummary {
  return { reason: pending.reason, context: pending.context, node_id: pending.node_id, agent_path: pending.agent_path };
}
