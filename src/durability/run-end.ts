/**
 * Run-end helpers, used by every resume and fork path (Chain today; Agent, Swarm, Supervisor and the UI later), so
 * they all agree on what a finished run is and where a failed or forked run continues from.
 *
 * A run that finishes writes a terminal row (`node_id` and `step_type` `run_end`, `run_status` `completed` or
 * `failed`); a paused run writes none. Rows from before local schema v20 have a null `step_type` and are never a
 * terminal row: they read as resumable.
 */
import type { Checkpoint, RunStatus } from '../types.js';
import type { Checkpointer, CheckpointWrite } from './checkpointer.js';
import { AlreadyResumed, ChainCheckpointError } from './errors.js';
import { storeOf } from './fenced.js';
import type { JsonRecord } from './json.js';

/** `node_id` and `step_type` of a terminal row. */
export const RUN_END = 'run_end';
/** `node_id` of the first row of a forked branch. */
export const FORK_ORIGIN = '__fork_origin__';
/** `node_id` of a run's start row (`step_type` `run_start`), written before its first node, turn or member. */
export const RUN_START = '__run_start__';

/** True for a terminal row; a null `step_type` (pre-v20 row) reads as not an ending. */
export function isRunEnd(checkpoint: Checkpoint | null | undefined): boolean {
  return checkpoint?.step_type === 'run_end';
}

/**
 * The checkpoint a resume continues from: the latest row when it is not a terminal row; for a failed run, the last
 * real checkpoint before the failed marker(s) (null when the run failed before writing any). Raises AlreadyResumed
 * for a run whose latest row is a `completed` terminal row. Returns null when the execution has no rows.
 * `latest` skips the read when the caller already has the latest row; `runner` names the kind in messages.
 */
export async function latestResumable(
  checkpointer: Checkpointer,
  executionId: string,
  options: { latest?: Checkpoint | null; runner?: string } = {},
): Promise<Checkpoint | null> {
  const latest = options.latest === undefined ? await checkpointer.getLast(executionId) : options.latest;
  if (!latest) return null;
  if (!isRunEnd(latest)) return latest;
  if (latest.run_status !== 'failed') {
    throw new AlreadyResumed(
      `${options.runner ?? 'Execution'} '${executionId}' already finished (${latest.run_status ?? 'completed'}); there is nothing to resume. Use fork() to run it again from one of its checkpoints.`,
    );
  }
  return lastRealCheckpoint(checkpointer, executionId);
}

/**
 * The checkpoint a fork branches from: the one named by `checkpointId`, else the last executed step (terminal rows
 * skipped). Never raises AlreadyResumed. Returns null when the execution has no such row, or nothing but terminal
 * rows. Raises ChainCheckpointError when `checkpointId` names a terminal row or a row of another execution.
 */
export async function latestForkable(
  checkpointer: Checkpointer,
  executionId: string,
  options: { checkpointId?: string | null } = {},
): Promise<Checkpoint | null> {
  if (options.checkpointId == null) return lastRealCheckpoint(checkpointer, executionId);
  const found = await checkpointer.getById(options.checkpointId);
  if (!found) return null;
  if (found.execution_id !== executionId) {
    throw new ChainCheckpointError(`checkpoint '${options.checkpointId}' belongs to execution '${found.execution_id}', not '${executionId}'`);
  }
  if (isRunEnd(found)) {
    throw new ChainCheckpointError(
      `checkpoint '${options.checkpointId}' is the terminal row of execution '${executionId}', which records how the run ended, not a step to branch from; fork from a step checkpoint, or omit checkpointId to fork from the last executed step`,
    );
  }
  return found;
}

/**
 * The traces of an execution, oldest first: the trace id each run, resume or fork stamped on the first row it wrote
 * under its trace (docs/adr/0015). `rows` in write order.
 */
export function executionTraceIds(rows: readonly Pick<Checkpoint, 'trace_id'>[]): string[] {
  const ids: string[] = [];
  for (const row of rows) if (row.trace_id && !ids.includes(row.trace_id)) ids.push(row.trace_id);
  return ids;
}

/** Fetches an execution from a remote copy; installed by connected mode (src/platform), absent otherwise. */
export type Restorer = (checkpointer: Checkpointer, executionId: string) => Promise<Checkpoint | null>;

let restorer: Restorer | null = null;

/** Install (or, with null, remove) the restorer `restoreIfMissing` delegates to. Connected mode installs one. */
export function setRestorer(next: Restorer | null): void {
  restorer = next;
}

/**
 * Restore an execution from the Platform when connected and the local store has no record of it. Called at the top
 * of every resume and fork path. Returns the restored latest checkpoint, or null when nothing was restored (not
 * connected, restore disabled, the store already knows the execution, or the Platform holds none of it).
 */
export async function restoreIfMissing(checkpointer: Checkpointer, executionId: string): Promise<Checkpoint | null> {
  // Restored rows are the store's, not a run's: written past a run's fenced view.
  return restorer ? restorer(storeOf(checkpointer), executionId) : null;
}

/** The terminal row of a run. `state` is the run's last state; a failed run records its error as `node_output`. */
export function runEndRow(options: {
  executionId: string;
  chainName: string;
  status: RunStatus;
  state: JsonRecord;
  nodeIndex: number;
  iteration?: number;
  agentPath?: string | null;
  error?: unknown;
}): CheckpointWrite {
  return {
    execution_id: options.executionId,
    chain_name: options.chainName,
    node_id: RUN_END,
    node_index: options.nodeIndex,
    status: options.status,
    step_type: 'run_end',
    run_status: options.status,
    state_snapshot: options.state,
    iteration: options.iteration ?? 0,
    node_output: options.error === undefined ? null : { error: describeError(options.error) },
    agent_path: options.agentPath ?? null,
  };
}

/** `<Name>: <message>` for an Error, else its string form. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The newest row that is not a terminal row. Reads newest-first in growing pages, because a run resumed and failed
 * again and again stacks up terminal rows above its last real checkpoint.
 */
async function lastRealCheckpoint(checkpointer: Checkpointer, executionId: string): Promise<Checkpoint | null> {
  for (let limit = 16; ; limit *= 16) {
    const rows = await checkpointer.list(executionId, { limit, newestFirst: true });
    const real = rows.find((row) => !isRunEnd(row));
    if (real) return real;
    if (rows.length < limit) return null;
  }
}
