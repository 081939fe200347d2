/**
 * Swarm: agents that hand a conversation to one another. One agent is active at a time; it ends its turn by calling
 * `handoff_to_<peer>` (only peers its allowlist names) or by answering, which is the swarm's output. At most
 * `maxHandoffs` handoffs per execution (default 8: the 9th is refused with SwarmError).
 *
 * Durability: before each active agent runs, the swarm writes a `handoff:N` row (agent path `swarm:<name>`, step type
 * `handoff`) holding its whole state (./state.ts). Members run inside the swarm's execution scope, so their rows sit
 * under `swarm:<name>/agent:<member>[/tool:<t>]` in the same execution. A member that pauses pauses the swarm with the
 * member's `pending_interrupt`; `resume` finds the active member from the latest row's agent path, restores the swarm
 * state from the latest handoff row and resumes that member (a pause, or a crash inside it), or runs it again (a crash
 * before it wrote anything), then carries on with allowlists and the cap enforced.
 */
import { randomUUID } from 'node:crypto';
import type { Attributes, Span } from '@opentelemetry/api';
import { describedAs } from '../agent/description.js';
import { NotImplementedError } from '../errors.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import { AlreadyResumed, ChainCheckpointError, ChainResumeError } from '../durability/errors.js';
import { isPlainObject } from '../durability/json.js';
import { toResume } from '../durability/resume.js';
import {
  decisionInForce,
  decisionMeta,
  decisionOf,
  isDecisionRow,
  refuseOtherDecision,
  type DecisionMeta,
  type DecisionOptions,
} from '../durability/decision.js';
import { leaseOwnerOf, noteRunTrace, stopAtBoundary, throwIfLeaseLost } from '../durability/fenced.js';
import { newLeaseOwner, withExecutionLease } from '../durability/lease.js';
import { runnerKey } from '../durability/runner-key.js';
import { isRunEnd, restoreIfMissing, runEndRow } from '../durability/run-end.js';
import { warnTerminalRowLost } from '../durability/terminal-row-warning.js';
import { bindResumeValue, currentScope, runInScope } from '../scope/scope.js';
import type { AgentResult, Checkpoint, PendingInterrupt, Resume } from '../types.js';
import { isMemberAgent, type MemberAgent } from '../multi/member.js';
import { rowsDownTo, underPath } from '../multi/rows.js';
import { placeCoordinator, refuseUsedExecutionId } from '../multi/placement.js';
import { inRootSpan, pickTrace, type TraceOptions } from '../multi/span.js';
import { jsonAttribute } from '../tracing/json-attribute.js';
import { SwarmError } from './errors.js';
import { HandoffBox, handoffInput, handoffToolName, handoffTools } from './handoff.js';
import { initialState, stateFromRow, type SwarmState } from './state.js';

export interface SwarmOptions extends TraceOptions {
  name: string;
  /** What the swarm does, in a sentence, for people and clients choosing it (the tool description of `mcp serve`). */
  description?: string;
  /** The members; names must be unique. */
  agents: readonly MemberAgent[];
  /** The member that receives the input. */
  entrypoint: string;
  /** Who may hand off to whom (`{ researcher: ['analyst'] }`); a member not listed hands off to no one. Default: everyone to everyone. */
  handoffs?: Readonly<Record<string, readonly string[]>>;
  /** Handoffs allowed per execution (default 8); the next one fails the run with SwarmError. */
  maxHandoffs?: number;
  /** Where rows go. Without one (and outside a durable scope) the swarm cannot pause or resume. */
  checkpointer?: Checkpointer | null;
}

export interface SwarmRunOptions extends TraceOptions {
  /** Passed to every member's run (tools, guardrails and prompts receive it). */
  context?: unknown;
  /** Default: the enclosing scope's, else a new uuid. */
  executionId?: string;
  signal?: AbortSignal;
}

/** `approver`, `reason` and `surface` say who decides a pause (recorded with the claim; docs/durability.md). */
export interface SwarmResumeOptions extends TraceOptions, DecisionOptions {
  /** The decision for a paused member (`{ approved, metadata }`). Required when the swarm is paused. */
  resumeValue?: { approved: boolean; metadata?: Record<string, unknown> } | Resume | null;
  /** The decision used when the swarm turns out to be paused and no `resumeValue` is given; ignored otherwise. */
  defaultResumeValue?: { approved: boolean; metadata?: Record<string, unknown> } | Resume | null;
  context?: unknown;
  signal?: AbortSignal;
}

/** How the first member of a run or resume starts: a fresh run, or that member's own resume. */
type FirstStep = (member: MemberAgent, memberPath: string, box: HandoffBox) => Promise<AgentResult>;

/** A resume, planned: where it continues and how the active member starts. */
interface Plan {
  executionId: string;
  checkpointer: Checkpointer;
  basePath: string;
  state: SwarmState;
  first: FirstStep;
}

interface Execution {
  executionId: string;
  checkpointer: Checkpointer | null;
  /** `swarm:<name>`, under the enclosing scope's path when nested. */
  basePath: string;
  context: unknown;
  signal: AbortSignal | undefined;
  traceId: string | null;
  started: number;
}

export const DEFAULT_MAX_HANDOFFS = 8;

export class Swarm {
  readonly kind = 'swarm' as const;
  readonly name: string;
  /** What the swarm does (SwarmOptions.description); empty when not given. */
  readonly description: string;
  readonly agents: ReadonlyMap<string, MemberAgent>;
  readonly entrypoint: string;
  readonly maxHandoffs: number;
  readonly checkpointer: Checkpointer | null;
  private readonly allowed: ReadonlyMap<string, readonly string[]>;
  private readonly traceOptions: TraceOptions;

  /** Throws SwarmError naming the problem: duplicate names, an unknown entrypoint or handoff name, a bad cap. */
  constructor(options: SwarmOptions) {
    const name = options?.name;
    if (typeof name !== 'string' || name.trim() === '' || name.includes('/')) {
      throw new SwarmError(`a Swarm needs a non-empty name without '/', not ${JSON.stringify(name)}`);
    }
    this.name = name;
    this.description = describedAs(options.description, `swarm '${name}'`);
    if (!Array.isArray(options.agents) || options.agents.length === 0) throw new SwarmError(`swarm '${name}' needs at least one agent`);
    const agents = new Map<string, MemberAgent>();
    for (const [i, agent] of options.agents.entries()) {
      if (!isMemberAgent(agent)) throw new SwarmError(`swarm '${name}': agents[${i}] is not an Agent (it needs name, tools, run, resume and clone)`);
      if (agents.has(agent.name)) throw new SwarmError(`swarm '${name}': two agents are named '${agent.name}'`);
      agents.set(agent.name, agent);
    }
    this.agents = agents;
    const names = [...agents.keys()];
    if (!agents.has(options.entrypoint)) {
      throw new SwarmError(`swarm '${name}': entrypoint ${JSON.stringify(options.entrypoint)} is not one of its agents (${names.join(', ')})`);
    }
    this.entrypoint = options.entrypoint;
    const max = options.maxHandoffs ?? DEFAULT_MAX_HANDOFFS;
    if (!Number.isInteger(max) || max < 0) throw new SwarmError(`swarm '${name}': maxHandoffs must be an integer >= 0, not ${String(max)}`);
    this.maxHandoffs = max;
    this.allowed = allowlists(name, names, options.handoffs);
    for (const [source, peers] of this.allowed) {
      const own = new Set(agents.get(source)!.tools.map((t) => t.name));
      for (const peer of peers) {
        const tool = handoffToolName(peer);
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool)) {
          throw new SwarmError(`swarm '${name}': agent name '${peer}' cannot form the tool name '${tool}' (1-64 letters, digits, '_' or '-')`);
        }
        if (own.has(tool)) throw new SwarmError(`swarm '${name}': agent '${source}' already has a tool named '${tool}', which the swarm adds for handoffs`);
      }
    }
    this.checkpointer = options.checkpointer ?? null;
    this.traceOptions = { trace: options.trace, traceDb: options.traceDb };
  }

  /** The peers `agent` may hand off to. */
  handoffsOf(agent: string): readonly string[] {
    return this.allowed.get(agent) ?? [];
  }

  /**
   * Run from the entrypoint. Resolves `completed` (the answering member's output, every member's tool calls, the
   * tokens of all) or `paused` (a member paused: its `pending_interrupt`). Rejects with SwarmError when the cap or an
   * allowlist is broken, or with a member's error; a failed terminal row is written first when durable.
   */
  async run(input: string, options: SwarmRunOptions = {}): Promise<AgentResult> {
    if (typeof input !== 'string') throw new SwarmError(`swarm '${this.name}': input must be a string`);
    const scope = currentScope();
    const executionId = options.executionId ?? scope?.executionId ?? randomUUID();
    const { joined, basePath } = placeCoordinator(scope, executionId, `swarm:${this.name}`);
    // Joined, the rows go where the hosting runner writes them (its lease's fenced checkpointer, docs/adr/0015).
    const checkpointer = (joined ? scope?.checkpointer : null) ?? this.checkpointer ?? scope?.checkpointer ?? null;
    if (joined && scope?.resumeValue && checkpointer) {
      // A hosting runner (a Chain node) re-runs this swarm to resume its pause, with the value and the claimed row
      // in scope: continue the paused member instead of starting over.
      const plan = await this.plan(checkpointer, executionId, basePath, { value: scope.resumeValue, claimed: scope.resumedInterrupt }, options, true);
      if (plan) return this.continue(plan, options, 'swarm.resumed_execution_id');
    }
    if (!joined && options.executionId !== undefined && checkpointer) await refuseUsedExecutionId(checkpointer, executionId);
    const state = initialState(this.entrypoint, input);
    const attributes = this.attributes(executionId);
    attributes['swarm.input'] = input;
    const start = (writer: Checkpointer | null) =>
      inRootSpan(`swarm.${this.name}`, attributes, { ...this.traceOptions, ...pickTrace(options) }, (span, traceId) =>
        this.loop(
          { executionId, checkpointer: writer, basePath, context: options.context, signal: options.signal, traceId, started: performance.now() },
          state,
          null,
          (result) => recordEnd(span, result, state),
        ),
      );
    if (joined || !checkpointer) return start(checkpointer);
    // Its own execution: the run holds the lease, taken with its first row.
    return withExecutionLease(checkpointer, executionId, `Swarm '${this.name}'`, start, 'first-write', basePath, runnerKey(this));
  }

  /**
   * Continue a paused or crashed execution. The active member is the one the latest row's agent path names (else the
   * latest handoff row's `active_agent`); the swarm state comes from the latest `handoff:N` row. With `resumeValue`
   * the member's pause is claimed and its tool re-invoked with the value (a lost race: AlreadyResumed); after a crash
   * inside the member, the member resumes from its own last checkpoint; after a crash before it wrote any, it runs
   * again. Then the swarm carries on. Errors: AlreadyResumed (finished swarm, or pause already claimed),
   * ChainCheckpointError (no handoff rows, unknown member), ChainResumeError (paused, no resumeValue).
   */
  async resume(executionId: string, options: SwarmResumeOptions = {}): Promise<AgentResult> {
    const scope = currentScope();
    const { joined, basePath } = placeCoordinator(scope, executionId, `swarm:${this.name}`);
    const checkpointer = (joined ? scope?.checkpointer : null) ?? this.checkpointer ?? scope?.checkpointer ?? null;
    if (!checkpointer) {
      throw new ChainCheckpointError(`swarm '${this.name}' has no checkpointer, so there is nothing to resume; construct it with { checkpointer }`);
    }
    await restoreIfMissing(checkpointer, executionId);
    const value = options.resumeValue == null ? null : toResume(options.resumeValue);
    const fallback = options.defaultResumeValue == null ? null : toResume(options.defaultResumeValue);
    const decision = decisionMeta(options);
    const resume = async (fenced: Checkpointer | null) => {
      const plan = await this.plan(fenced ?? checkpointer, executionId, basePath, value ? { value, claimed: null } : null, options, false, {
        fallback,
        claimedBy: leaseOwnerOf(fenced),
        decision,
      });
      return this.continue(plan!, options, 'swarm.resumed_execution_id');
    };
    // Top level, the resume holds the execution's lease; joined to a hosting runner's execution, it runs under that one's.
    return joined ? resume(null) : withExecutionLease(checkpointer, executionId, `Swarm '${this.name}'`, resume, 'now', basePath, runnerKey(this));
  }

  /**
   * Where a resume continues: the boundary's state and how the active member starts. `resume` is the value (and, when
   * a hosting runner already claimed the pause, the claimed row). With `onlyIfPaused`, returns null unless the swarm
   * is paused (a hosting runner's re-run that is not this swarm's resume).
   */
  private async plan(
    checkpointer: Checkpointer,
    executionId: string,
    basePath: string,
    resume: { value: Resume; claimed: PendingInterrupt | null } | null,
    options: { context?: unknown; signal?: AbortSignal },
    onlyIfPaused: boolean,
    claim: { fallback: Resume | null; claimedBy: string | null; decision?: DecisionMeta } = { fallback: null, claimedBy: null },
  ): Promise<Plan | null> {
    // One snapshot of the rows from the newest down to the latest boundary: a concurrent resumer moving the run on
    // cannot make the latest row and the boundary disagree.
    const rows = await rowsDownTo(checkpointer, executionId, (row) => row.agent_path === basePath && row.step_type === 'handoff');
    const latest = rows[0];
    const decided =
      latest !== undefined &&
      underPath(latest.agent_path, basePath) &&
      (isDecisionRow(latest) || (latest.step_type === 'tool_call' && decisionInForce(rows, latest) !== null));
    if (onlyIfPaused && !decided && !(latest?.status === 'interrupted' && underPath(latest.agent_path, basePath))) return null;
    if (!latest) throw new ChainCheckpointError(`No checkpoint found for execution '${executionId}'`);
    const own = rows.find((row) => row.agent_path === basePath);
    if (own && isRunEnd(own) && own.run_status !== 'failed') {
      throw new AlreadyResumed(
        `Swarm '${this.name}' execution '${executionId}' already finished (${own.run_status ?? 'completed'}); there is nothing to resume`,
      );
    }
    const boundary = rows.find((row) => row.agent_path === basePath && row.step_type === 'handoff');
    if (!boundary) throw new ChainCheckpointError(`execution '${executionId}' has no handoff checkpoints of swarm '${this.name}'`);
    const state = stateFromRow(boundary);
    const active = this.activeMember(latest, basePath, state, executionId);
    const memberPath = `${basePath}/agent:${active}`;
    // A claimed decision whose tool never returned (its resumer died): the member resumes and applies it itself.
    const recorded = decided && underPath(latest.agent_path, memberPath);
    if (recorded)
      refuseOtherDecision(
        `Swarm '${this.name}'`,
        executionId,
        decisionOf(latest) ?? decisionInForce(rows, latest),
        resume?.claimed ? null : (resume?.value ?? null),
      );
    const paused = !recorded && latest.status === 'interrupted' && underPath(latest.agent_path, memberPath);
    const value = recorded ? null : (resume?.value ?? (paused ? claim.fallback : null));
    if (paused && !value) {
      throw new ChainResumeError(
        `Swarm execution '${executionId}' is paused at '${latest.node_id}' in agent '${active}' (${latest.interrupt_reason ?? 'interrupt'}); pass resumeValue ({ approved, metadata }) to resume it`,
      );
    }
    if (value && !paused) {
      throw new AlreadyResumed(
        `Swarm execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first, or the run is not paused (a crashed or failed run resumes without a resumeValue)`,
      );
    }
    // Claimed here, before any member runs, so of concurrent resumers exactly one goes on; the member's resume takes
    // the claimed row and the value from the scope instead of claiming again.
    let claimed: PendingInterrupt | null = resume?.claimed ?? null;
    if (value && !claimed) {
      claimed =
        (
          await checkpointer.claimPendingInterrupt(executionId, {
            resume: value,
            claimedBy: claim.claimedBy ?? newLeaseOwner(),
            ...(claim.decision ? { decision: claim.decision } : {}),
          })
        )?.pending ?? null;
      if (!claimed) throw new AlreadyResumed(`Swarm execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first`);
    }
    // Rows of the active member written after the boundary: it crashed (or paused) part-way and resumes from them.
    const memberStarted = underPath(latest.agent_path, memberPath) && !isRunEnd(latest);
    const resumeOptions = { context: options.context, signal: options.signal };
    const handoff = memberStarted && !value ? this.savedHandoff(rows, memberPath, active) : null;
    const first: FirstStep = value
      ? (member, prefix) => bindResumeValue(value, claimed, () => member.resume(executionId, { ...resumeOptions, agentPathPrefix: prefix }))
      : handoff
        ? async (_member, _prefix, box) => handoff(box, executionId)
        : memberStarted
          ? (member, prefix) => member.resume(executionId, { ...resumeOptions, agentPathPrefix: prefix })
          : (member) => member.run(state.current_input, resumeOptions);
    return { executionId, checkpointer, basePath, state, first };
  }

  /** Run a planned resume inside its own `swarm.<name>` root span. */
  private continue(plan: Plan, options: SwarmRunOptions & SwarmResumeOptions, marker: string): Promise<AgentResult> {
    const attributes = this.attributes(plan.executionId);
    attributes[marker] = plan.executionId;
    return inRootSpan(`swarm.${this.name}`, attributes, { ...this.traceOptions, ...pickTrace(options) }, (span, traceId) =>
      this.loop(
        {
          executionId: plan.executionId,
          checkpointer: plan.checkpointer,
          basePath: plan.basePath,
          context: options.context,
          signal: options.signal,
          traceId,
          started: performance.now(),
        },
        plan.state,
        plan.first,
        (result) => recordEnd(span, result, plan.state),
      ),
    );
  }

  /** Swarms cannot be forked: refused with NotImplementedError. */
  async fork(executionId: string, _options: unknown = {}): Promise<never> {
    throw new NotImplementedError(
      `swarm '${this.name}' cannot be forked (execution '${executionId}'): forking is available for Agents and Chains; fork the member agent's run, or run the swarm again with the changed input`,
    );
  }

  /**
   * Run members until one answers or one pauses. `first`, when given, starts the member of `state` (a resume): no
   * boundary row is written for it, since the one it continues from exists.
   */
  private async loop(ex: Execution, state: SwarmState, first: FirstStep | null, onEnd: (result: AgentResult) => void): Promise<AgentResult> {
    let next = first;
    noteRunTrace(ex.checkpointer, ex.traceId);
    try {
      for (;;) {
        ex.signal?.throwIfAborted();
        // A run whose lease was lost (another process took the execution over) runs no further member.
        throwIfLeaseLost(ex.checkpointer);
        const box = new HandoffBox();
        const member = this.member(state.active_agent, box);
        const memberPath = `${ex.basePath}/agent:${state.active_agent}`;
        if (!next) {
          await this.writeBoundary(ex, state);
          // The handoff's checkpoint is a step boundary: a run whose process shuts down stops here (docs/adr/0051).
          stopAtBoundary(ex.checkpointer);
        }
        const start = next ?? ((m: MemberAgent) => m.run(state.current_input, { context: ex.context, signal: ex.signal }));
        next = null;
        const result = await runInScope({ executionId: ex.executionId, checkpointer: ex.checkpointer, runnerName: this.name, agentPath: ex.basePath }, () =>
          start(member, memberPath, box),
        );
        state.accumulated_tool_calls.push(...result.tool_calls);
        state.total_tokens += result.tokens_used;
        if (result.status === 'paused') {
          const paused = this.result(ex, state, 'paused', '', result.pending_interrupt);
          onEnd(paused);
          return paused;
        }
        const request = box.request;
        if (!request) {
          await ex.checkpointer?.put(
            runEndRow({
              executionId: ex.executionId,
              chainName: this.name,
              status: 'completed',
              state: { ...state },
              nodeIndex: state.iteration + 1,
              iteration: state.iteration,
              agentPath: ex.basePath,
            }),
          );
          const done = this.result(ex, state, 'completed', result.output, null);
          onEnd(done);
          return done;
        }
        if (!this.handoffsOf(request.source).includes(request.target)) {
          throw new SwarmError(
            `swarm '${this.name}': agent '${request.source}' may not hand off to '${request.target}' (allowed: ${this.handoffsOf(request.source).join(', ') || 'none'})`,
          );
        }
        if (state.handoff_count + 1 > this.maxHandoffs) {
          throw new SwarmError(
            `swarm '${this.name}' refused handoff ${state.handoff_count + 1} (from '${request.source}' to '${request.target}'): maxHandoffs is ${this.maxHandoffs}`,
          );
        }
        state.handoff_count += 1;
        state.shared_context = { ...state.shared_context, ...request.context };
        state.current_input = handoffInput(request, state.original_input, state.shared_context);
        state.active_agent = request.target;
        state.path.push(request.target);
        state.last_reason = request.reason;
        state.iteration += 1;
      }
    } catch (error) {
      await this.writeFailed(ex, state, error);
      throw error;
    }
  }

  /** The member `name` for one run: a clone with its handoff tools (writing into `box`) and label `agent:<name>`. */
  private member(name: string, box: HandoffBox): MemberAgent {
    const agent = this.agents.get(name);
    if (!agent) throw new SwarmError(`swarm '${this.name}' has no agent named '${name}'`);
    return agent.clone({ tools: [...agent.tools, ...handoffTools(name, this.handoffsOf(name), box)], agentPathLabel: `agent:${name}` });
  }

  private async writeBoundary(ex: Execution, state: SwarmState): Promise<void> {
    await ex.checkpointer?.put({
      execution_id: ex.executionId,
      chain_name: this.name,
      node_id: `handoff:${state.iteration}`,
      node_index: state.iteration,
      status: 'completed',
      step_type: 'handoff',
      state_snapshot: { ...state },
      node_input: state.current_input,
      iteration: state.iteration,
      agent_path: ex.basePath,
    });
  }

  private async writeFailed(ex: Execution, state: SwarmState, error: unknown): Promise<void> {
    if (!ex.checkpointer) return;
    try {
      await ex.checkpointer.put(
        runEndRow({
          executionId: ex.executionId,
          chainName: this.name,
          status: 'failed',
          state: { ...state },
          nodeIndex: state.iteration + 1,
          iteration: state.iteration,
          agentPath: ex.basePath,
          error,
        }),
      );
    } catch (storeError) {
      warnTerminalRowLost(ex.executionId, storeError, 'swarm ');
    }
  }

  /**
   * When the process died in (or right after) a handoff tool, before the next boundary was written, the latest row is
   * that tool's checkpoint and holds the handoff's arguments: the handoff is completed from it instead of resuming the
   * member, whose loop would otherwise go on to ask its model again after the re-invoked handoff.
   */
  private savedHandoff(rows: readonly Checkpoint[], memberPath: string, active: string): ((box: HandoffBox, executionId: string) => AgentResult) | null {
    const latest = rows[0]!;
    const turn = /^turn:(\d+)\/tool:handoff_to_/.exec(latest.node_id)?.[1];
    if (turn === undefined || latest.step_type !== 'tool_call') return null;
    // The first handoff of that turn decides (a later one in the same turn was refused), as on the first run.
    const first = rows
      .filter((row) => underPath(row.agent_path, memberPath) && row.step_type === 'tool_call' && row.node_id.startsWith(`turn:${turn}/tool:handoff_to_`))
      .at(-1)!;
    const match = /^turn:(\d+)\/tool:handoff_to_(.+)$/.exec(first.node_id)!;
    if (!this.handoffsOf(active).includes(match[2]!)) return null;
    const args = isPlainObject(first.node_input) ? first.node_input : {};
    const reason = typeof args.reason === 'string' ? args.reason : '';
    const context = isPlainObject(args.context) ? args.context : {};
    const target = match[2]!;
    const callId = typeof first.state_snapshot.tool_call_id === 'string' ? first.state_snapshot.tool_call_id : '';
    return (box, executionId) => {
      box.request = { source: active, target, reason, context };
      return {
        output: `Handed off to ${target}.`,
        trace_id: null,
        execution_id: executionId,
        status: 'completed',
        pending_interrupt: null,
        tokens_used: 0,
        latency_ms: 0,
        tool_calls: [
          { iteration: Number(match[1]), tool_name: handoffToolName(target), arguments: args, tool_call_id: callId, output: `Handed off to ${target}.` },
        ],
      };
    };
  }

  /** The active member named by the latest row's agent path (else by the boundary's state), checked against the swarm. */
  private activeMember(latest: Checkpoint, basePath: string, state: SwarmState, executionId: string): string {
    const prefix = `${basePath}/agent:`;
    const fromPath = latest.agent_path?.startsWith(prefix) ? latest.agent_path.slice(prefix.length).split('/')[0]! : null;
    const active = fromPath ?? state.active_agent;
    if (!this.agents.has(active)) {
      throw new ChainCheckpointError(
        `execution '${executionId}' was last in agent '${active}', which swarm '${this.name}' does not have (agents: ${[...this.agents.keys()].join(', ')})`,
      );
    }
    if (active !== state.active_agent) {
      throw new ChainCheckpointError(
        `execution '${executionId}': the latest row is in agent '${active}' but the latest handoff boundary made '${state.active_agent}' active; the rows are not a run of swarm '${this.name}'`,
      );
    }
    return active;
  }

  private result(ex: Execution, state: SwarmState, status: 'completed' | 'paused', output: string, pending: AgentResult['pending_interrupt']): AgentResult {
    return {
      output,
      trace_id: ex.traceId,
      execution_id: ex.executionId,
      status,
      pending_interrupt: pending,
      tokens_used: state.total_tokens,
      latency_ms: performance.now() - ex.started,
      tool_calls: state.accumulated_tool_calls,
    };
  }

  private attributes(executionId: string): Attributes {
    return {
      'swarm.name': this.name,
      'swarm.entrypoint': this.entrypoint,
      'swarm.agent_count': this.agents.size,
      'swarm.execution_id': executionId,
      'agentkit.runner.type': 'swarm',
    };
  }
}

function recordEnd(span: Span, result: AgentResult, state: SwarmState): void {
  if (!span.isRecording()) return;
  span.setAttributes({ 'swarm.status': result.status, 'swarm.handoff_count': state.handoff_count, 'swarm.path': jsonAttribute(state.path) });
  if (result.status === 'completed') span.setAttribute('swarm.output', result.output);
}

/** Allowlists by member: every other member when `handoffs` is undefined; checked names otherwise. */
function allowlists(swarm: string, names: readonly string[], handoffs: SwarmOptions['handoffs']): Map<string, readonly string[]> {
  const known = new Set(names);
  const result = new Map<string, readonly string[]>();
  if (handoffs === undefined) {
    for (const name of names)
      result.set(
        name,
        names.filter((n) => n !== name),
      );
    return result;
  }
  if (handoffs === null || typeof handoffs !== 'object') throw new SwarmError(`swarm '${swarm}': handoffs must be an object of agent name -> peer names`);
  for (const name of names) result.set(name, []);
  for (const [source, targets] of Object.entries(handoffs)) {
    if (!known.has(source)) throw new SwarmError(`swarm '${swarm}': handoffs names '${source}', which is not one of its agents (${names.join(', ')})`);
    if (!Array.isArray(targets)) throw new SwarmError(`swarm '${swarm}': handoffs['${source}'] must be a list of agent names`);
    const peers: string[] = [];
    for (const target of targets) {
      if (!known.has(target))
        throw new SwarmError(`swarm '${swarm}': agent '${source}' hands off to '${String(target)}', which is not one of its agents (${names.join(', ')})`);
      if (target === source) throw new SwarmError(`swarm '${swarm}': agent '${source}' cannot hand off to itself`);
      if (!peers.includes(target)) peers.push(target);
    }
    result.set(source, peers);
  }
  return result;
}
