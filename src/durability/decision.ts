/**
 * Claimed decisions. Claiming a pending interrupt writes, in the same transaction, a decision row: a copy of the
 * paused step's interrupted row (same node, path, state and saved arguments) with `step_type` `resume`, `status`
 * `completed`, `parent_checkpoint_id` the interrupted row, and `node_output` the decision record:
 * `{ resume, claimed_by, decided_by: { principal, surface }, decided_at, reason, pending_created_at }` (who decided,
 * through which surface, when and why, beside the Resume value and the lease owner that claimed it).
 * A resumer that dies right after its claim leaves that row; the next resume finds it here and applies the same
 * decision (never asking the human again, never reporting AlreadyResumed for a decision that never took effect). A
 * later resume that brings a different value is refused (`refuseOtherDecision`): one pause has one decision.
 *
 * Every backend builds the row with `decisionRow` (or the same columns in SQL), so all of them store the same thing.
 */
import { hostname, userInfo } from 'node:os';
import { timeOrderedId } from './time-ordered-id.js';
import { ValidationError } from '../errors.js';
import { AlreadyResumed } from './errors.js';
import { utcNow } from '../store/time.js';
import type { Checkpoint, PendingInterrupt, Resume } from '../types.js';
import { isPlainObject, type JsonRecord } from './json.js';
import { toResume } from './resume.js';

/** `step_type` of a decision row. */
export const DECISION_STEP = 'resume';

/** The surface a decision was made through. */
export const DECISION_SURFACES = ['sdk', 'cli', 'ui', 'http', 'platform'] as const;
export type DecisionSurface = (typeof DECISION_SURFACES)[number];

/** Who decided a pause: a principal the surface knows (a UI user, the CLI's `--approver` or OS user, ...) and the surface. */
export interface DecidedBy {
  principal: string;
  surface: DecisionSurface;
}

/**
 * The options every `resume()` takes to say who decides: `approver` (default: the OS user running the process),
 * `reason` (free text, optional) and `surface` (default `sdk`; the CLI, the UI and the Platform pass their own).
 * `offlineDecision` (connected mode, docs/adr/0054): when the Platform that arbitrates a replicated execution cannot be
 * reached, decide on this host alone; the decision is recorded as offline and, should the Platform hold another one
 * for the pause, it is refused there and quarantined here. While the Platform answers it changes nothing.
 */
export interface DecisionOptions {
  approver?: string;
  reason?: string | null;
  surface?: DecisionSurface;
  offlineDecision?: boolean;
}

/** Who decided and why, as a claim records it. */
export interface DecisionMeta {
  decidedBy: DecidedBy;
  reason: string | null;
  /** The caller allows a decision without the Platform when it cannot be reached (`offlineDecision`). */
  offlineAllowed?: boolean;
  /** Set by the claim arbiter when the override was used: the host that decided without the Platform. */
  offlineHost?: string;
}

/** What a claim records: the decision, who claimed it (the lease owner of the resuming process), who decided and why. */
export interface Claim {
  resume: Resume;
  claimedBy: string;
  /** Default: the OS user through the SDK, no reason. */
  decision?: DecisionMeta;
}

/** A decision read back from its row: the value to bind, the pending row as it was claimed, and its record. */
export interface RecordedDecision {
  value: Resume;
  claimed: PendingInterrupt;
  claimedBy: string;
  /** Null for a decision recorded before decisions said who made them. */
  decidedBy: DecidedBy | null;
  decidedAt: string;
  reason: string | null;
  /** The host that decided without the Platform (`offlineDecision`), else null. */
  offlineHost: string | null;
  row: Checkpoint;
}

/** The OS user running this process (the default principal), or `unknown` where the platform cannot say. */
let processUser: string | undefined;
function osUser(): string {
  // Read once: a process keeps its user, and the look-up is a system call (a password-database read) per claim.
  if (processUser === undefined) {
    try {
      processUser = userInfo().username || 'unknown';
    } catch {
      processUser = 'unknown';
    }
  }
  return processUser;
}

/** Longest principal and reason recorded. */
const MAX_PRINCIPAL = 200;
const MAX_REASON = 2000;

/** The decision metadata of resume options, checked (ValidationError naming the option). */
export function decisionMeta(options: DecisionOptions = {}): DecisionMeta {
  const { approver, reason, surface = 'sdk', offlineDecision = false } = options;
  if (approver !== undefined && (typeof approver !== 'string' || approver.trim() === '' || approver.length > MAX_PRINCIPAL)) {
    throw new ValidationError(`approver must be a non-empty name of at most ${MAX_PRINCIPAL} characters`, [{ path: '/approver', message: 'invalid' }]);
  }
  if (reason != null && (typeof reason !== 'string' || reason.length > MAX_REASON)) {
    throw new ValidationError(`reason must be text of at most ${MAX_REASON} characters`, [{ path: '/reason', message: 'invalid' }]);
  }
  if (!(DECISION_SURFACES as readonly string[]).includes(surface)) {
    throw new ValidationError(`surface must be one of ${DECISION_SURFACES.join(', ')}, not ${JSON.stringify(surface)}`, [
      { path: '/surface', message: 'invalid' },
    ]);
  }
  return { decidedBy: { principal: approver?.trim() ?? osUser(), surface }, reason: reason ?? null, ...(offlineDecision ? { offlineAllowed: true } : {}) };
}

/** The claim as decided on this host without the Platform (the arbiter's override): the record names this host. */
export function offlineClaim(claim: Claim): Claim {
  const decision = claim.decision ?? decisionMeta();
  return { ...claim, decision: { ...decision, offlineHost: hostname() } };
}

/** The claim, checked: a Resume value (unknown keys dropped), a non-empty `claimedBy`, the decision metadata. */
export function checkClaim(claim: Claim): Required<Claim> {
  if (!claim || typeof claim.claimedBy !== 'string' || claim.claimedBy === '') {
    throw new ValidationError('a claim needs claimedBy: a non-empty string naming the claimer', [
      { path: '/claimedBy', message: 'must be a non-empty string' },
    ]);
  }
  return { resume: toResume(claim.resume), claimedBy: claim.claimedBy, decision: claim.decision ?? decisionMeta() };
}

/** The decision record a claim writes, less `pending_created_at` (which comes from the claimed row). */
export function decisionRecord(claim: Required<Claim>): JsonRecord {
  return {
    resume: { approved: claim.resume.approved, metadata: claim.resume.metadata },
    claimed_by: claim.claimedBy,
    decided_by: { principal: claim.decision.decidedBy.principal, surface: claim.decision.decidedBy.surface },
    decided_at: utcNow(),
    reason: claim.decision.reason,
    ...(claim.decision.offlineHost ? { offline_decision: { host: claim.decision.offlineHost } } : {}),
  };
}

/** The `node_output` of a decision row. */
export function decisionOutput(claim: Required<Claim>, pending: PendingInterrupt): JsonRecord {
  return { ...decisionRecord(claim), pending_created_at: pending.created_at };
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
    node_output: decisionOutput(checkClaim(claim), pending),
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
  const by = isPlainObject(output.decided_by) ? output.decided_by : null;
  const decidedBy =
    by && typeof by.principal === 'string' && (DECISION_SURFACES as readonly unknown[]).includes(by.surface)
      ? { principal: by.principal, surface: by.surface as DecisionSurface }
      : null;
  return {
    value,
    claimed,
    claimedBy: typeof output.claimed_by === 'string' ? output.claimed_by : '',
    decidedBy,
    decidedAt: typeof output.decided_at === 'string' ? output.decided_at : row.created_at,
    reason: typeof output.reason === 'string' ? output.reason : null,
    offlineHost: isPlainObject(output.offline_decision) && typeof output.offline_decision.host === 'string' ? output.offline_decision.host : null,
    row,
  };
}

/** `approved by alice (cli) at 2026-11-28T10:00:00.000000Z, reason "over budget"`: a recorded decision in words. */
export function describeDecision(decision: RecordedDecision): string {
  const verdict = decision.value.approved ? 'approved' : 'declined';
  const who = decision.decidedBy ? ` by ${decision.decidedBy.principal} (${decision.decidedBy.surface})` : '';
  const why = decision.reason ? `, reason ${JSON.stringify(decision.reason)}` : '';
  const offline = decision.offlineHost ? ` (offline, on ${decision.offlineHost}, without the Platform)` : '';
  return `${verdict}${who} at ${decision.decidedAt}${why}${offline}`;
}

/** True when two Resume values are the same decision (approval and metadata, key order aside). */
export function sameResume(a: Resume, b: Resume): boolean {
  return a.approved === b.approved && canonical(a.metadata) === canonical(b.metadata);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * One pause has one decision: when `recorded` is in force and the caller brings a different value, AlreadyResumed
 * naming the recorded decision and who made it. The same value, or none, lets the run continue with the recorded one.
 */
export function refuseOtherDecision(runner: string, executionId: string, recorded: RecordedDecision | null, explicit: Resume | null): void {
  if (!recorded || !explicit || sameResume(recorded.value, explicit)) return;
  throw new AlreadyResumed(
    `${runner} execution '${executionId}' already has a decision: ${describeDecision(recorded)}; a different resumeValue is refused (resume without a value, or with the same one, to continue with it)`,
  );
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
