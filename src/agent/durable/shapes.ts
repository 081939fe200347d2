/**
 * Finding where an agent execution continues and in which of the three shapes (spec: "Agent resume shapes"):
 *
 *   1. interrupted: the latest agent row is an interrupted tool row: claim the pending row, re-invoke the tool with
 *      the Resume value in scope;
 *   2. tool boundary: the latest is a completed `turn:N/tool:<name>` row (the process died in the tool): re-invoke the
 *      tool with its saved arguments, no model call for turn N;
 *   3. turn boundary: the latest is `turn:N` (the process died in the model call): re-issue turn N.
 *
 * A fork origin with no step after it continues like a turn boundary (or, for a fork with a new input, runs that
 * input). Without a prefix the execution's latest row decides, terminal rows handled by `latestResumable` (a completed
 * run raises AlreadyResumed; a failed one steps back to its last real checkpoint). With a prefix only agent rows whose
 * path is the prefix or below it count (the Python SDK's `_scoped_latest`): a Supervisor resuming one worker.
 */
import type { Checkpointer } from '../../durability/checkpointer.js';
import { ChainCheckpointError } from '../../durability/errors.js';
import { decisionInForce, isDecisionRow, type RecordedDecision } from '../../durability/decision.js';
import { isRunEnd, latestResumable } from '../../durability/run-end.js';
import type { Checkpoint } from '../../types.js';
import { agentStepOf, withinPath, type AgentStep } from './rows.js';

export type ResumeShape =
  | { kind: 'interrupted'; row: Checkpoint; turn: number; toolName: string }
  /** `decision`: the claimed decision in force for this tool (its pause was claimed, the tool never returned). */
  | { kind: 'tool'; row: Checkpoint; turn: number; toolName: string; decision: RecordedDecision | null }
  | { kind: 'turn'; row: Checkpoint; turn: number }
  | { kind: 'fork_origin'; row: Checkpoint };

/**
 * The shape a resume of `executionId` takes. Throws ChainCheckpointError when there is no agent row to continue
 * from, AlreadyResumed when the run already completed (unscoped only).
 */
export async function detectShape(
  checkpointer: Checkpointer,
  executionId: string,
  options: { agentPathPrefix?: string | null; runner: string },
): Promise<ResumeShape> {
  const prefix = options.agentPathPrefix ?? null;
  let row: Checkpoint | null;
  let paused: boolean;
  if (prefix === null) {
    const latest = await checkpointer.getLast(executionId);
    if (!latest) throw new ChainCheckpointError(`No checkpoint found for execution '${executionId}'`);
    const base = await latestResumable(checkpointer, executionId, { latest, runner: 'Agent execution' });
    if (!base)
      throw new ChainCheckpointError(
        `${options.runner} execution '${executionId}' failed before its first checkpoint; there is no step to resume from (run it again)`,
      );
    row = base;
    // An interrupted row under a failed terminal row was already claimed (the resumed tool then failed the run):
    // it continues as a tool-boundary crash, re-invoking the tool, which may pause again.
    paused = base.status === 'interrupted' && !isRunEnd(latest);
  } else {
    row = await scopedLatest(checkpointer, executionId, prefix);
    if (!row) throw new ChainCheckpointError(`No checkpoint found for execution '${executionId}' under agent path '${prefix}'`);
    paused = row.status === 'interrupted';
  }
  const step = agentStepOf(row);
  if (!step) {
    throw new ChainCheckpointError(
      `${options.runner} cannot resume execution '${executionId}' from checkpoint '${row.checkpoint_id}': node '${row.node_id}' written by '${row.chain_name}' is not an agent step (turn:N or turn:N/tool:<name>); resume it through the runner that wrote it`,
    );
  }
  if (step.kind === 'tool' && !paused) {
    return { kind: 'tool', row, turn: step.turn, toolName: step.toolName, decision: decisionInForce(await stepRows(checkpointer, executionId, row), row) };
  }
  return shapeOf(row, step, paused);
}

function shapeOf(row: Checkpoint, step: AgentStep, paused: boolean): ResumeShape {
  if (step.kind === 'tool')
    return paused
      ? { kind: 'interrupted', row, turn: step.turn, toolName: step.toolName }
      : { kind: 'tool', row, turn: step.turn, toolName: step.toolName, decision: null };
  if (step.kind === 'turn') return { kind: 'turn', row, turn: step.turn };
  return { kind: 'fork_origin', row };
}

/**
 * The execution's rows newest first, from `row` down (at least 32 rows below it when there are that many): enough to
 * walk the rows of `row`'s step back to the decision that started its re-execution.
 */
async function stepRows(checkpointer: Checkpointer, executionId: string, row: Checkpoint): Promise<Checkpoint[]> {
  if (isDecisionRow(row)) return [row];
  for (let limit = 64; ; limit *= 8) {
    const rows = await checkpointer.list(executionId, { limit, newestFirst: true });
    const at = rows.findIndex((r) => r.checkpoint_id === row.checkpoint_id);
    if (at >= 0 && (rows.length < limit || rows.length - at > 32)) return rows.slice(at);
    if (rows.length < limit) return [];
  }
}

/** The newest agent step row whose path is `prefix` or below it (terminal rows and other runners' rows skipped). */
export async function scopedLatest(checkpointer: Checkpointer, executionId: string, prefix: string): Promise<Checkpoint | null> {
  for (let limit = 64; ; limit *= 8) {
    const rows = await checkpointer.list(executionId, { limit, newestFirst: true });
    const found = rows.find((r) => withinPath(r.agent_path, prefix) && agentStepOf(r) !== null);
    if (found) return found;
    if (rows.length < limit) return null;
  }
}
