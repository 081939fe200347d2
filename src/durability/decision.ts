/**
 * Claimed decisions. Claiming a pending interrupt writes, in the same transaction, a decision row: a copy of the
 * paused step's interrupted row (same node, path, state and saved arguments) with `step_type` `resume`, `status`
 * `completed`, `parent_checkpoint_id` the interrupted row, and `node_output` `{ resume, claimed_by, pending_created_at }`.
 * A resumer that dies right after its claim leaves that row; the next resume finds it here and applies the same
 * decision (never asking the human again, never reporting AlreadyResumed for a decision that never took effect).
 *
 * Every backend builds the row with `decisionRow` (or the same columns in SQL), so all of them store the same thing.
 */
import { timeOrderedId } from './time-ordered-id.js';
import { ValidationError } from '../errors.js';
import { utcNow } from '../store/time.js';
import type { Checkpoint, PendingInterrupt, Resume } from '../types.js';
import { isPlainObject, type JsonRecord } from './json.js';
import { toResume } from './resume.js';

/** `step_type` of a decision row. */
export const DECISION_STEP = 'resume';

/** What a claim records: the decision and who claimed it (the lease owner of the resuming process). */
export interface Claim {
  resume: Resume;
  claimedBy: string;
}

/** A decision read back from its row: the value to bind and the pending row as it was claimed. */
export interface RecordedDecision {
  value: Resume;
  claimed: PendingInterrupt;
  claimedBy: string;
  row: Checkpoint;
}

/** The claim, checked: a Resume value (unknown keys dropped) and a non-empty `claimedBy`. */
export function checkClaim(claim: Claim): Claim {
  if (!claim || typeof claim.claimedBy !== 'string' || claim.claimedBy === '') {
    throw new ValidationError('a claim needs claimedBy: a non-empty string naming the claimer', [
      { path: '/claimedBy', message: 'must be a non-empty string' },
    ]);
  }
  return { resume: toResume(claim.resume), claimedBy: claim.claimedBy };
}

/** The `node_output` of a decision row. */
export function decisionOutput(claim: Claim, pending: PendingInterrupt): JsonRecord {
  return { resume: { approved: claim.resume.approved, metadata: claim.resume.metadata }, claimed_by: claim.claimedBy, pending_created_at: pending.created_at };
}

/**
 * The decision row a claim of `pending` writes: a copy of `interrupted` (the execution's newest interrupted row at the
 * pending row's node and path; null when a backend found none, then the pending row's fields are used).
 */
export function decisionRow(pending: PendingInterrupt, interrupted: Checkpoint | null, claim: Claim): Checkpoint {
  return {
    checkpoint_id: timeOrderedId(),
    execution_id: pending.execution_id,
    chain_name: interrupted?.chain_name ?? pending.chain_name,
    node_id: pending.node_id,
    node_index: interrupted?.node_index ?? 0,
    status: 'completed',
    step_type: DECISION_STEP,
    run_status: null,
    parent_checkpoint_id: interrupted?.checkpoint_id ?? null,
    state_snapshot: interrupted?.state_snapshot ?? {},
    node_input: interrupted?.node_input ?? null,
    node_output: decisionOutput(claim, pending),
    iteration: interrupted?.iteration ?? 0,
    iteration_counters: interrupted?.iteration_counters ?? {},
    interrupt_reason: pending.reason,
    interrupt_context: pending.context,
    agent_path: pending.agent_path,
    created_at: utcNow(),
  };
}

/** True for a decision row. */
export function isDecisionRow(row: Pick<Checkpoint, 'step_type'> | null | undefined): boolean {
  return row?.step_type === DECISION_STEP;
}

/** The decision a decision row records, or null for any other row (or a row whose output is not a decision). */
export function decisionOf(row: Checkpoint | null | undefined): RecordedDecision | null {
  if (!row || !isDecisionRow(row) || !isPlainObject(row.node_output)) return null;
  const output = row.node_output;
  let value: Resume;
  try {
    value = toResume(output.resume);
  } catch {
    return null;
  }
  const claimed: PendingInterrupt = {
    execution_id: row.execution_id,
    chain_name: row.chain_name,
    node_id: row.node_id,
    reason: row.interrupt_reason ?? '',
    context: row.interrupt_context ?? {},
    agent_path: row.agent_path,
    created_at: typeof output.pending_created_at === 'string' ? output.pending_created_at : row.created_at,
  };
  return { value, claimed, claimedBy: typeof output.claimed_by === 'string' ? output.claimed_by : '', row };
}

/**
 * The decision in force for the step `row` records: walking down from `row` (in `newestFirst`, the execution's rows
 * newest first) through the rows of the same step (same `node_id` and `agent_path`: the decision row itself, then
 * the step's re-execution rows written after it), the first decision row found. Null when the step has none, i.e.
 * it is not the re-execution of a claimed pause.
 */
export function decisionInForce(newestFirst: readonly Checkpoint[], row: Checkpoint): RecordedDecision | null {
  let at = newestFirst.findIndex((r) => r.checkpoint_id === row.checkpoint_id);
  if (at < 0) return decisionOf(row);
  for (; at < newestFirst.length; at++) {
    const r = newestFirst[at]!;
    if (r.node_id !== row.node_id || r.agent_path !== row.agent_path) return null;
    if (isDecisionRow(r)) return decisionOf(r);
    if (r.status === 'interrupted') return null;
  }
  return null;
}
