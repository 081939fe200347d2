/**
 * `agent.resume(executionId, options)`: detect the shape (./shapes.ts), claim the pending row for a pause, and build
 * the Plan the Agent executes. Also the resume a Chain (or any runner) triggers by re-running a hosting step with a
 * Resume value bound in its scope (`planScopeResume`).
 */
import { decisionMeta, decisionOf, refuseOtherDecision, type DecisionOptions, type RecordedDecision } from '../../durability/decision.js';
import { AlreadyResumed, ChainCheckpointError, ChainResumeError } from '../../durability/errors.js';
import type { JsonRecord } from '../../durability/json.js';
import { toResume } from '../../durability/resume.js';
import type { Checkpointer } from '../../durability/checkpointer.js';
import { leaseOwnerOf } from '../../durability/fenced.js';
import { newLeaseOwner } from '../../durability/lease.js';
import { restoreIfMissing } from '../../durability/run-end.js';
import { currentScope } from '../../scope/scope.js';
import type { PendingInterrupt, Resume } from '../../types.js';
import { balanceToolMessages } from './balance.js';
import { firstUserInput, placeRun, type DurableAgent, type Plan, type Placement } from './plan.js';
import { loopState, savedMessages, savedToolCall } from './restore.js';
import { detectShape, scopedLatest, type ResumeShape } from './shapes.js';
import { withinPath } from './rows.js';

/** `approver`, `reason` and `surface` say who decides a pause (recorded with the claim; docs/durability.md). */
export interface AgentResumeOptions extends DecisionOptions {
  /** The decision for a paused run (`{ approved, metadata }`; unknown keys dropped). Default: the one bound in the enclosing scope, if any. */
  resumeValue?: { approved: boolean; metadata?: JsonRecord } | Resume | null;
  /** Passed to tools, guardrails and the prompt function; not persisted. */
  context?: unknown;
  /** The decision used when the run turns out to be paused and no `resumeValue` is given; ignored otherwise (the CLI's approval by default). */
  defaultResumeValue?: { approved: boolean; metadata?: JsonRecord } | Resume | null;
  /** Only rows whose `agent_path` is this or below it count (a Supervisor resuming one worker). */
  agentPathPrefix?: string | null;
  signal?: AbortSignal;
}

/**
 * The plan of `agent.resume(executionId, options)`; claims the pending row of a paused run and records the decision
 * (`claimed_by`: the lease owner of the resume), or takes up the decision a dead resumer recorded. `leased`: the
 * fenced checkpointer of the resume's lease (top level); null when joined to an enclosing runner's execution.
 */
export async function planResume(agent: DurableAgent, executionId: string, options: AgentResumeOptions, leased: Checkpointer | null = null): Promise<Plan> {
  if (typeof executionId !== 'string' || executionId === '') throw new ChainCheckpointError('resume() needs the execution id of the run to resume');
  const placement = placeRun(agent, executionId);
  // A top-level resume runs holding the lease: its writes go through the lease's fenced checkpointer.
  if (leased) placement.checkpointer = leased;
  const claimedBy = leaseOwnerOf(leased);
  const checkpointer = placement.checkpointer;
  if (!checkpointer) {
    throw new ChainCheckpointError(
      `agent '${agent.name}' has no checkpointer, so there is nothing to resume; construct it with { checkpointer } (or run it inside a durable runner)`,
    );
  }
  await restoreIfMissing(checkpointer, executionId);
  const explicit = options.resumeValue == null ? null : toResume(options.resumeValue);
  const decision = decisionMeta(options);
  const scope = currentScope();
  const bound = explicit === null && !placement.owner && scope?.resumeValue ? { value: scope.resumeValue, claimed: scope.resumedInterrupt } : null;
  // Joined to an enclosing execution, the agent's own rows are the ones under its path.
  const agentPathPrefix = options.agentPathPrefix ?? (placement.owner ? null : placement.agentPath);
  const shape = await detectShape(checkpointer, executionId, { agentPathPrefix, runner: `Agent '${agent.name}'` });
  const recorded = shape.kind === 'tool' ? shape.decision : null;
  refuseOtherDecision(`Agent '${agent.name}'`, executionId, recorded, explicit);
  if (shape.kind !== 'interrupted' && explicit && !recorded) {
    // Another resumer may have claimed the pause and moved the run on: a value is only ever for a pause.
    throw new AlreadyResumed(
      `Agent execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first, or the run is not paused (a crashed or failed run resumes without a resumeValue)`,
    );
  }
  // A claimed decision whose tool never returned (its resumer died) applies, whatever value this call brings.
  let resume: { value: Resume; claimed: PendingInterrupt | null; decision: RecordedDecision | null } | null = recorded
    ? { value: recorded.value, claimed: bound?.claimed ?? recorded.claimed, decision: recorded }
    : null;
  let claimedHere = false;
  if (shape.kind === 'interrupted') {
    const fallback = options.defaultResumeValue == null ? null : toResume(options.defaultResumeValue);
    const value = explicit ?? bound?.value ?? fallback;
    if (!value) {
      throw new ChainResumeError(
        `Agent execution '${executionId}' is paused at '${shape.row.node_id}' (${shape.row.interrupt_reason ?? 'interrupt'}); pass resumeValue ({ approved, metadata }) to resume it`,
      );
    }
    claimedHere = !bound?.claimed;
    const claim = bound?.claimed
      ? null
      : await checkpointer.claimPendingInterrupt(executionId, { resume: value, claimedBy: claimedBy ?? newLeaseOwner(), decision });
    const claimed = bound?.claimed ?? claim?.pending;
    if (!claimed) {
      throw new AlreadyResumed(`Agent execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first`);
    }
    resume = { value, claimed, decision: decisionOf(claim?.checkpoint) };
  }
  const agentPath = agentPathOf(shape, placement);
  // Resuming a nested agent's rows from outside its runner: the owner of the execution writes its terminal row.
  const owner = placement.owner && agentPath === agent.agentPathLabel;
  return planFromShape(agent, { ...placement, agentPath, owner }, shape, resume, recorded !== null || claimedHere);
}

/**
 * When `agent.run()` is called inside a scope with a Resume value bound (a Chain re-running the node that hosts this
 * agent after its pause), the run is that pause's resume: the plan that re-invokes the suspended tool, or null when
 * the bound value is not for this agent (then the run starts fresh).
 */
export async function planScopeResume(agent: DurableAgent, executionId: string | undefined): Promise<Plan | null> {
  const scope = currentScope();
  if (!scope?.resumeValue) return null;
  const placement = placeRun(agent, executionId);
  if (placement.owner || !placement.checkpointer) return null;
  const claimed = scope.resumedInterrupt;
  if (claimed && !withinPath(claimed.agent_path, placement.agentPath)) return null;
  const row = await scopedLatest(placement.checkpointer, placement.executionId, placement.agentPath);
  if (!row || (row.status !== 'interrupted' && row.step_type !== 'resume' && row.step_type !== 'tool_call')) return null;
  const shape = await detectShape(placement.checkpointer, placement.executionId, { agentPathPrefix: placement.agentPath, runner: `Agent '${agent.name}'` });
  if (shape.kind === 'tool' && shape.decision) {
    // This agent's pause was claimed (the decision recorded) and its tool never returned: re-invoke it with the decision.
    return planFromShape(agent, placement, shape, { value: shape.decision.value, claimed: claimed ?? shape.decision.claimed, decision: shape.decision }, true);
  }
  if (shape.kind !== 'interrupted') return null;
  let pending = claimed;
  const claimedHere = !pending;
  let decision: RecordedDecision | null = null;
  if (!pending) {
    const claim = await placement.checkpointer.claimPendingInterrupt(placement.executionId, { resume: scope.resumeValue, claimedBy: newLeaseOwner() });
    pending = claim?.pending ?? null;
    decision = decisionOf(claim?.checkpoint);
    if (!pending) throw new AlreadyResumed(`Agent execution '${placement.executionId}' has no pending interrupt to claim: another resumer claimed it first`);
  }
  return planFromShape(agent, placement, shape, { value: scope.resumeValue, claimed: pending, decision }, claimedHere);
}

/** The Plan for a detected shape (the pause, if any, already claimed). */
export function planFromShape(
  agent: DurableAgent,
  placement: Placement,
  shape: ResumeShape,
  resume: { value: Resume; claimed: PendingInterrupt | null; decision?: RecordedDecision | null } | null,
  checkpointed = false,
): Plan {
  const row = shape.row;
  if (shape.kind === 'fork_origin' && !Array.isArray(row.state_snapshot.messages)) {
    // A fork with a new input that crashed before its first turn: run that input.
    const input = row.state_snapshot.input;
    if (typeof input !== 'string') throw new ChainCheckpointError(`fork origin '${row.checkpoint_id}' holds neither messages nor an input to run`);
    return { placement, start: { kind: 'input', input, history: [] } };
  }
  const messages = savedMessages(row);
  const input = firstUserInput(messages);
  if (shape.kind === 'turn' || shape.kind === 'fork_origin') {
    const turn = shape.kind === 'turn' ? shape.turn : Number(row.state_snapshot.turn ?? 0);
    return { placement, start: { kind: 'state', input, state: loopState(balanceToolMessages(messages), turn, true) } };
  }
  if (!agent.hasTool(shape.toolName)) {
    throw new ChainCheckpointError(
      `execution '${row.execution_id}' stopped in tool '${shape.toolName}' (checkpoint '${row.checkpoint_id}'), which agent '${agent.name}' does not have; resume it with the agent that ran it`,
    );
  }
  const call = savedToolCall(row, messages, shape.toolName);
  return { placement, start: { kind: 'tool', input, state: loopState(messages, shape.turn, true), call, resume, checkpointed } };
}

/** The agent's own path as the resumed row recorded it (a tool row's path ends in `/tool:<name>`). */
function agentPathOf(shape: ResumeShape, placement: Placement): string {
  const path = shape.row.agent_path;
  if (!path) return placement.agentPath;
  if (shape.kind === 'tool' || shape.kind === 'interrupted') {
    const suffix = `/tool:${shape.toolName}`;
    return path.endsWith(suffix) ? path.slice(0, -suffix.length) : placement.agentPath;
  }
  return path;
}
