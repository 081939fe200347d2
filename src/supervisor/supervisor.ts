/**
 * Supervisor: a model that leads workers. Its own agent (labelled `supervisor:<name>`) has one
 * `delegate_to_<role>(task)` tool per worker (./delegate.ts); workers are clones labelled `worker:<role>`, so every
 * row of a run sits in one execution: the supervisor's turns at `supervisor:<name>`, its delegate calls at
 * `supervisor:<name>/tool:delegate_to_<role>`, each worker's steps at `supervisor:<name>/worker:<role>[/tool:<t>]`.
 *
 * A worker that pauses pauses the supervisor with the worker's `pending_interrupt`. `resume` recovers the original
 * input from the supervisor's earliest checkpoint, claims the pause (if any), and runs the supervisor again: its model
 * calls are re-issued, finished delegations return their recorded answers, and the worker that stopped part-way is
 * resumed (with the Resume value when it paused) instead of starting over.
 */
import { randomUUID } from 'node:crypto';
import type { Attributes, Span } from '@opentelemetry/api';
import { describedAs } from '../agent/description.js';
import { Agent } from '../agent/agent.js';
import type { AgentConfigOptions } from '../agent/config.js';
import { ConfigError, NotImplementedError } from '../errors.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import { AlreadyResumed, ChainCheckpointError, ChainResumeError, ExecutionBusy } from '../durability/errors.js';
import { toResume } from '../durability/resume.js';
import { decisionMeta, decisionOf, isDecisionRow, refuseOtherDecision, type DecisionOptions } from '../durability/decision.js';
import { leaseOwnerOf, noteRunTrace } from '../durability/fenced.js';
import { newLeaseOwner, withExecutionLease } from '../durability/lease.js';
import { runnerKey } from '../durability/runner-key.js';
import { isRunEnd, restoreIfMissing, runEndRow } from '../durability/run-end.js';
import { warnTerminalRowLost } from '../durability/terminal-row-warning.js';
import type { ChatModel } from '../llm/types.js';
import { currentScope, runInScope } from '../scope/scope.js';
import type { AgentResult, PendingInterrupt, Resume } from '../types.js';
import { isMemberAgent, type MemberAgent } from '../multi/member.js';
import { newestRow, oldestRow, underPath } from '../multi/rows.js';
import { placeCoordinator, refuseUsedExecutionId } from '../multi/placement.js';
import { inRootSpan, pickTrace, type TraceOptions } from '../multi/span.js';
import { delegateToolName, delegateTools, type DelegationRun, type WorkerSpec } from './delegate.js';
import { DelegationAborted, WorkerPaused } from './signals.js';

/** A worker: an agent, the role it is delegated to by, and what it is good for (the supervisor's model reads it). */
export interface Worker {
  agent: MemberAgent;
  role: string;
  description: string;
}

export interface SupervisorOptions extends TraceOptions {
  name: string;
  /** What the supervisor does, in a sentence, for people and clients choosing it (the tool description of `mcp serve`). */
  description?: string;
  /** The supervisor's model. */
  llm: ChatModel;
  workers: readonly Worker[];
  /** Instructions for the supervisor; the list of workers is appended. */
  systemPrompt?: string;
  /** Delegation rounds (default 3): the supervisor's agent gets `2 * maxDelegationRounds` model turns. */
  maxDelegationRounds?: number;
  /** Sampling settings of the supervisor's model calls (`maxIterations` comes from `maxDelegationRounds`). */
  config?: Omit<AgentConfigOptions, 'maxIterations'>;
  /** Where rows go. Without one (and outside a durable scope) the supervisor cannot pause or resume. */
  checkpointer?: Checkpointer | null;
}

export interface SupervisorRunOptions extends TraceOptions {
  context?: unknown;
  /** Default: the enclosing scope's, else a new uuid. */
  executionId?: string;
  signal?: AbortSignal;
}

/** `approver`, `reason` and `surface` say who decides a pause (recorded with the claim; docs/durability.md). */
export interface SupervisorResumeOptions extends TraceOptions, DecisionOptions {
  /** The decision for a paused worker (`{ approved, metadata }`). Required when the supervisor is paused. */
  resumeValue?: { approved: boolean; metadata?: Record<string, unknown> } | Resume | null;
  /** The decision used when the supervisor turns out to be paused and no `resumeValue` is given; ignored otherwise. */
  defaultResumeValue?: { approved: boolean; metadata?: Record<string, unknown> } | Resume | null;
  context?: unknown;
  signal?: AbortSignal;
}

export const DEFAULT_MAX_DELEGATION_ROUNDS = 3;

const ROLE = /^[A-Za-z0-9_-]{1,52}$/;

export class Supervisor {
  readonly kind = 'supervisor' as const;
  readonly name: string;
  /** What the supervisor does (SupervisorOptions.description); empty when not given. */
  readonly description: string;
  readonly llm: ChatModel;
  readonly workers: readonly WorkerSpec[];
  readonly systemPrompt: string;
  readonly maxDelegationRounds: number;
  readonly checkpointer: Checkpointer | null;
  private readonly config: Omit<AgentConfigOptions, 'maxIterations'>;
  private readonly traceOptions: TraceOptions;

  /** Throws ConfigError naming the problem: no workers, a duplicate or unusable role, a bad round count. */
  constructor(options: SupervisorOptions) {
    const name = options?.name;
    if (typeof name !== 'string' || name.trim() === '' || name.includes('/')) {
      throw new ConfigError(`a Supervisor needs a non-empty name without '/', not ${JSON.stringify(name)}`);
    }
    this.name = name;
    this.description = describedAs(options.description, `supervisor '${name}'`);
    if (!options.llm || typeof options.llm.complete !== 'function') throw new ConfigError(`supervisor '${name}': llm must be a chat model`);
    this.llm = options.llm;
    if (!Array.isArray(options.workers) || options.workers.length === 0) throw new ConfigError(`supervisor '${name}' needs at least one worker`);
    const roles = new Set<string>();
    this.workers = options.workers.map((worker, i) => {
      if (!worker || !isMemberAgent(worker.agent)) throw new ConfigError(`supervisor '${name}': workers[${i}].agent is not an Agent`);
      if (typeof worker.role !== 'string' || !ROLE.test(worker.role)) {
        throw new ConfigError(
          `supervisor '${name}': worker role ${JSON.stringify(worker.role)} cannot form the tool name '${delegateToolName(String(worker.role))}' (1-52 letters, digits, '_' or '-')`,
        );
      }
      if (roles.has(worker.role)) throw new ConfigError(`supervisor '${name}': two workers have the role '${worker.role}'`);
      roles.add(worker.role);
      if (typeof worker.description !== 'string' || worker.description.trim() === '') {
        throw new ConfigError(`supervisor '${name}': worker '${worker.role}' needs a description (the supervisor's model chooses workers by it)`);
      }
      return { role: worker.role, description: worker.description, agent: worker.agent.clone({ agentPathLabel: `worker:${worker.role}` }) };
    });
    const rounds = options.maxDelegationRounds ?? DEFAULT_MAX_DELEGATION_ROUNDS;
    if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50)
      throw new ConfigError(`supervisor '${name}': maxDelegationRounds must be an integer from 1 to 50, not ${String(rounds)}`);
    this.maxDelegationRounds = rounds;
    this.systemPrompt =
      options.systemPrompt ??
      `You are '${name}', a supervisor. Break the request into tasks, delegate each to the right worker, then answer with the combined result.`;
    this.config = { ...(options.config ?? {}) };
    this.checkpointer = options.checkpointer ?? null;
    this.traceOptions = { trace: options.trace, traceDb: options.traceDb };
    // Fail now, not at the first run, on settings the supervisor's agent would refuse.
    this.agent(this.delegation('', null, '', undefined, undefined));
  }

  /**
   * Run the supervisor on `input`. Resolves `completed` (its answer; the delegate calls in `tool_calls`) or `paused`
   * (a worker paused: its `pending_interrupt`). Rejects with the supervisor model's or a durability error after
   * writing a failed terminal row when durable.
   */
  async run(input: string, options: SupervisorRunOptions = {}): Promise<AgentResult> {
    if (typeof input !== 'string') throw new ConfigError(`supervisor '${this.name}': input must be a string`);
    const scope = currentScope();
    const executionId = options.executionId ?? scope?.executionId ?? randomUUID();
    const { joined, basePath } = placeCoordinator(scope, executionId, `supervisor:${this.name}`);
    // Joined, the rows go where the hosting runner writes them (its lease's fenced checkpointer, docs/adr/0015).
    const checkpointer = (joined ? scope?.checkpointer : null) ?? this.checkpointer ?? scope?.checkpointer ?? null;
    const attributes = this.attributes(executionId);
    attributes['supervisor.input'] = input;
    const run = this.delegation(executionId, checkpointer, basePath, options.context, options.signal);
    if (joined && scope?.resumeValue && checkpointer) {
      // A hosting runner (a Chain node) re-runs this supervisor to resume a worker's pause, the value and the claimed
      // row in scope: the paused worker resumes with them.
      const latest = await checkpointer.getLast(executionId);
      if (latest?.status === 'interrupted' && latest.agent_path?.startsWith(`${basePath}/worker:`)) {
        const claimed =
          scope.resumedInterrupt ?? (await checkpointer.claimPendingInterrupt(executionId, { resume: scope.resumeValue, claimedBy: newLeaseOwner() }))?.pending;
        if (!claimed) throw new AlreadyResumed(`Supervisor execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first`);
        run.resume = { value: scope.resumeValue, claimed };
        attributes['supervisor.resumed_execution_id'] = executionId;
      }
    } else if (!joined && options.executionId !== undefined && checkpointer) {
      await refuseUsedExecutionId(checkpointer, executionId);
    }
    const start = () =>
      inRootSpan(`supervisor.${this.name}`, attributes, { ...this.traceOptions, ...pickTrace(options) }, (span, traceId) =>
        this.execute(run, input, traceId, span),
      );
    if (joined || !checkpointer) return start();
    // Its own execution: the run holds the lease, taken with its first row.
    return withExecutionLease(
      checkpointer,
      executionId,
      `Supervisor '${this.name}'`,
      (fenced) => {
        run.checkpointer = fenced;
        return start();
      },
      'first-write',
      basePath,
      runnerKey(this),
    );
  }

  /**
   * Continue a paused or crashed execution: the original input comes from the supervisor's earliest checkpoint; a
   * pause is claimed first (AlreadyResumed when another resumer got it; ChainResumeError when no `resumeValue` is
   * given); then the supervisor runs again with its model calls re-issued, finished workers answering from their
   * records and the stopped worker resumed. A finished supervisor raises AlreadyResumed; no checkpoint of this
   * supervisor, ChainCheckpointError.
   */
  async resume(executionId: string, options: SupervisorResumeOptions = {}): Promise<AgentResult> {
    const scope = currentScope();
    const { joined, basePath } = placeCoordinator(scope, executionId, `supervisor:${this.name}`);
    const checkpointer = (joined ? scope?.checkpointer : null) ?? this.checkpointer ?? scope?.checkpointer ?? null;
    if (!checkpointer) {
      throw new ChainCheckpointError(`supervisor '${this.name}' has no checkpointer, so there is nothing to resume; construct it with { checkpointer }`);
    }
    await restoreIfMissing(checkpointer, executionId);
    const resume = (fenced: Checkpointer | null) => this.resumeHolding(fenced ?? checkpointer, executionId, basePath, options, leaseOwnerOf(fenced));
    // Top level, the resume holds the execution's lease; joined to a hosting runner's execution, it runs under that one's.
    return joined ? resume(null) : withExecutionLease(checkpointer, executionId, `Supervisor '${this.name}'`, resume, 'now', basePath, runnerKey(this));
  }

  private async resumeHolding(
    checkpointer: Checkpointer,
    executionId: string,
    basePath: string,
    options: SupervisorResumeOptions,
    owner: string | null,
  ): Promise<AgentResult> {
    const latest = await checkpointer.getLast(executionId);
    if (!latest) throw new ChainCheckpointError(`No checkpoint found for execution '${executionId}'`);
    const end = await newestRow(checkpointer, executionId, (row) => row.agent_path === basePath && isRunEnd(row));
    if (end && end.run_status !== 'failed') {
      throw new AlreadyResumed(
        `Supervisor '${this.name}' execution '${executionId}' already finished (${end.run_status ?? 'completed'}); there is nothing to resume`,
      );
    }
    const first = await oldestRow(checkpointer, executionId, (row) => row.agent_path === basePath && Array.isArray(row.state_snapshot.messages));
    const input = first ? firstUserText(first.state_snapshot.messages as unknown[]) : null;
    if (input === null) throw new ChainCheckpointError(`execution '${executionId}' has no checkpoint of supervisor '${this.name}' holding its input`);
    // A claimed decision whose worker tool never returned (its resumer died): the worker resumes and applies it itself.
    // The supervisor's own agent writes rows again after a claim (its model calls are re-issued), so the decision is
    // found as the newest pause-or-decision row under the supervisor: a decision there was never followed by a pause.
    const lastDecisionPoint = await newestRow(
      checkpointer,
      executionId,
      (row) => underPath(row.agent_path, basePath) && (row.status === 'interrupted' || isDecisionRow(row)),
    );
    const recorded = isDecisionRow(lastDecisionPoint) && !(end && end.created_at > lastDecisionPoint!.created_at);
    const explicit = options.resumeValue == null ? null : toResume(options.resumeValue);
    const decision = decisionMeta(options);
    if (recorded) refuseOtherDecision(`Supervisor '${this.name}'`, executionId, decisionOf(lastDecisionPoint), explicit);
    const paused = !recorded && latest.status === 'interrupted' && underPath(latest.agent_path, basePath);
    const value = explicit ?? (paused && options.defaultResumeValue != null ? toResume(options.defaultResumeValue) : null);
    if (paused && !value) {
      throw new ChainResumeError(
        `Supervisor execution '${executionId}' is paused at '${latest.node_id}' (${latest.agent_path}, ${latest.interrupt_reason ?? 'interrupt'}); pass resumeValue ({ approved, metadata }) to resume it`,
      );
    }
    let claimed: PendingInterrupt | null = null;
    if (value && !recorded) {
      claimed = paused
        ? ((await checkpointer.claimPendingInterrupt(executionId, { resume: value, claimedBy: owner ?? newLeaseOwner(), decision }))?.pending ?? null)
        : null;
      if (!claimed) {
        throw new AlreadyResumed(
          `Supervisor execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first, or the run is not paused (a crashed or failed run resumes without a resumeValue)`,
        );
      }
    }
    const run = this.delegation(executionId, checkpointer, basePath, options.context, options.signal);
    run.resume = value && claimed ? { value, claimed } : null;
    const attributes = this.attributes(executionId);
    attributes['supervisor.resumed_execution_id'] = executionId;
    return inRootSpan(`supervisor.${this.name}`, attributes, { ...this.traceOptions, ...pickTrace(options) }, (span, traceId) =>
      this.execute(run, input, traceId, span),
    );
  }

  /** Supervisors cannot be forked: refused with NotImplementedError. */
  async fork(executionId: string, _options: unknown = {}): Promise<never> {
    throw new NotImplementedError(
      `supervisor '${this.name}' cannot be forked (execution '${executionId}'): forking is available for Agents and Chains; fork a worker's or the supervisor agent's run, or run the supervisor again with the changed input`,
    );
  }

  /**
   * Run the supervisor's agent on `input` in `run`'s execution and write the terminal row (none on a pause). When a
   * resumed run's model never delegates to the paused worker again, the claimed pause is simply spent.
   */
  private async execute(run: DelegationRun, input: string, traceId: string | null, span: Span): Promise<AgentResult> {
    const started = performance.now();
    noteRunTrace(run.checkpointer, traceId);
    const agent = this.agent(run);
    const frame = { executionId: run.executionId, checkpointer: run.checkpointer, runnerName: this.name, agentPath: parentPath(run.basePath) };
    try {
      const result = await runInScope(frame, () => agent.run(input, { context: run.context, signal: run.signal }));
      await run.checkpointer?.put(
        runEndRow({
          executionId: run.executionId,
          chainName: this.name,
          status: 'completed',
          state: { input, output: result.output },
          nodeIndex: 0,
          agentPath: run.basePath,
        }),
      );
      if (span.isRecording()) span.setAttributes({ 'supervisor.status': 'completed', 'supervisor.output': result.output });
      return { ...result, trace_id: traceId, tokens_used: result.tokens_used + run.workerTokens, latency_ms: performance.now() - started };
    } catch (error) {
      if (error instanceof WorkerPaused) {
        if (span.isRecording()) span.setAttributes({ 'supervisor.status': 'paused', 'supervisor.paused_worker': error.role });
        return {
          output: '',
          trace_id: traceId,
          execution_id: run.executionId,
          status: 'paused',
          pending_interrupt: error.result.pending_interrupt,
          tokens_used: run.workerTokens,
          latency_ms: performance.now() - started,
          tool_calls: error.result.tool_calls,
        };
      }
      const failure = error instanceof DelegationAborted ? (error.cause as Error) : error;
      if (run.checkpointer) {
        try {
          await run.checkpointer.put(
            runEndRow({
              executionId: run.executionId,
              chainName: this.name,
              status: 'failed',
              state: { input },
              nodeIndex: 0,
              agentPath: run.basePath,
              error: failure,
            }),
          );
        } catch (storeError) {
          // A run that lost (or never got) its lease says so once, by its own error; it writes nothing more.
          if (storeError instanceof ExecutionBusy) throw failure;
          warnTerminalRowLost(run.executionId, storeError, 'supervisor ');
        }
      }
      throw failure;
    }
  }

  /** The supervisor's own agent for one run: label `supervisor:<name>`, a delegate tool per worker bound to `run`. */
  private agent(run: DelegationRun): Agent {
    const roster = this.workers.map((w) => `- ${delegateToolName(w.role)}: ${w.description}`).join('\n');
    return new Agent({
      name: this.name,
      systemPrompt: `${this.systemPrompt}\n\nWorkers (call a tool to delegate a task):\n${roster}`,
      llm: this.llm,
      tools: delegateTools(this.name, this.workers, run),
      config: { ...this.config, maxIterations: 2 * this.maxDelegationRounds },
      agentPathLabel: `supervisor:${this.name}`,
      trace: this.traceOptions.trace,
      traceDb: this.traceOptions.traceDb,
    });
  }

  private delegation(
    executionId: string,
    checkpointer: Checkpointer | null,
    basePath: string,
    context: unknown,
    signal: AbortSignal | undefined,
  ): DelegationRun {
    return { executionId, checkpointer, basePath, context, signal, resume: null, counts: new Map(), workerTokens: 0 };
  }

  private attributes(executionId: string): Attributes {
    return {
      'supervisor.name': this.name,
      'supervisor.worker_roles': this.workers.map((w) => w.role),
      'supervisor.execution_id': executionId,
      'agentkit.runner.type': 'supervisor',
    };
  }
}

/** The path the supervisor's agent joins under (its label adds `supervisor:<name>`): null at top level. */
function parentPath(basePath: string): string | null {
  const cut = basePath.lastIndexOf('/');
  return cut < 0 ? null : basePath.slice(0, cut);
}

/** The text of the first user message, or null. */
function firstUserText(messages: readonly unknown[]): string | null {
  for (const message of messages) {
    const m = message as { role?: unknown; content?: unknown };
    if (m?.role === 'user' && typeof m.content === 'string') return m.content;
  }
  return null;
}
