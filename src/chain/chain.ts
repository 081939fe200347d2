/**
 * Chain: nodes sharing one JSON state, edges with conditions, capped cycles, checkpointed after every node, pausable
 * with `interrupt()`, resumable and forkable by execution id. See ./graph.ts for routing and ./executor.ts for the
 * rows written. Resume and fork always go through `restoreIfMissing`, `latestResumable` and `latestForkable`.
 */
import { randomUUID } from 'node:crypto';
import { context, type Attributes } from '@opentelemetry/api';
import { resumedFromLink } from '../agent/resume-link.js';
import { defaultTraceDestination, traceDestinationOf } from '../tracing/destination.js';
import { describedAs } from '../agent/description.js';
import { ValidationError } from '../errors.js';
import type { Checkpointer, CheckpointWrite } from '../durability/checkpointer.js';
import { AlreadyResumed, ChainCheckpointError, ChainResumeError } from '../durability/errors.js';
import { isPlainObject, nonJsonReason, type JsonRecord } from '../durability/json.js';
import { toResume } from '../durability/resume.js';
import { decisionMeta, decisionOf, isDecisionRow, refuseOtherDecision, type DecisionOptions, type RecordedDecision } from '../durability/decision.js';
import { noteRunTrace } from '../durability/fenced.js';
import { withExecutionLease } from '../durability/lease.js';
import { runnerKey } from '../durability/runner-key.js';
import { currentScope } from '../scope/scope.js';
import { FORK_ORIGIN, executionTraceIds, isRunEnd, latestForkable, latestResumable, restoreIfMissing, RUN_START } from '../durability/run-end.js';
import { rowsDownTo } from '../multi/rows.js';
import type { ChainResult, Checkpoint, PendingInterrupt, Resume } from '../types.js';
import { ChainError } from './errors.js';
import { execute, finishWithoutNodes, type ChainSettings } from './executor.js';
import { Graph, type EdgeOptions, type NodeFunction, type NodeOptions, type Runner } from './graph.js';
import { payloadsEnabled } from '../tracing/attributes.js';
import { jsonAttribute } from '../tracing/json-attribute.js';
import { inChainSpan, traceIdOf } from './span.js';
import { RESUMED_FROM } from '../tracing/run-status.js';

export interface ChainOptions {
  /** What the chain does, in a sentence, for people and clients choosing it (the tool description of `mcp serve`). */
  description?: string;
  /** Where checkpoints go. Without one the chain runs in memory: it cannot pause, resume or fork. */
  checkpointer?: Checkpointer | null;
  /** The node runs start at (default: the first node added). */
  entry?: string;
  /** Global step guard: node executions per execution, across resumes (default 500). */
  maxSteps?: number;
  /** Default cap of a back edge (default 10). */
  maxIterations?: number;
  /** Fail with ChainRoutingError when a node's conditional edges all decline (default: the run ends there). */
  strictRouting?: boolean;
}

export interface RunOptions {
  /** Use this execution id instead of a fresh UUID; refused when the id already has checkpoints. */
  executionId?: string;
  /** Passed to every node as `ctx.context`; not persisted. */
  context?: unknown;
  /** Initial state besides `input`. */
  state?: JsonRecord;
  /**
   * Cancels the run: checked before each node, given to function nodes as `ctx.signal` and to runner nodes (an
   * Agent aborts its model call or tool). The run rejects, after writing its failed row, with the signal's reason
   * (or the error of the node the abort stopped).
   */
  signal?: AbortSignal;
}

/** `approver`, `reason` and `surface` say who decides a pause (recorded with the claim; docs/durability.md). */
export interface ResumeOptions extends DecisionOptions {
  /**
   * The decision for a paused run (`{ approved, metadata }`; unknown keys dropped). A value for a run that is not
   * paused raises AlreadyResumed, unless the run holds a claimed decision that never took effect (that one applies).
   */
  resumeValue?: { approved: boolean; metadata?: JsonRecord } | null;
  /** The decision used when the run turns out to be paused and no `resumeValue` is given; ignored otherwise (the CLI's approval by default). */
  defaultResumeValue?: { approved: boolean; metadata?: JsonRecord } | null;
  /** Merged into the restored state before the next node runs (typically to fix what made a run fail). */
  modifiedState?: JsonRecord | null;
  context?: unknown;
  /** Cancels the resumed run (see RunOptions.signal). */
  signal?: AbortSignal;
}

export interface ForkOptions {
  /** The checkpoint to branch from (default: the last executed step; never the terminal row). */
  checkpointId?: string | null;
  /** Replaces `state.input` in the branch. */
  input?: unknown;
  /** Merged into the branch's state. */
  modifiedState?: JsonRecord | null;
  context?: unknown;
  /** The branch's execution id (default a fresh UUID); refused when it already has checkpoints. */
  branchExecutionId?: string;
  /** Cancels the branch's run (see RunOptions.signal). */
  signal?: AbortSignal;
}

/** Where a resume or fork continues. */
type Position =
  | { kind: 'node'; node: string; state: JsonRecord; counters: Record<string, number>; step: number; lastIndex: number }
  | { kind: 'done'; state: JsonRecord; step: number; lastIndex: number; output: unknown };

export class Chain<S extends JsonRecord = JsonRecord> {
  /** What kind of runner this is (see runner-kind.ts). */
  readonly kind = 'chain' as const;
  readonly name: string;
  /** What the chain does (ChainOptions.description); empty when not given. */
  readonly description: string;
  readonly checkpointer: Checkpointer | null;
  private readonly graph: Graph<S>;
  private readonly maxSteps: number;
  private readonly maxIterations: number;
  private readonly strictRouting: boolean;

  /** An empty chain. Throws ChainError for an empty name or non-positive limits. */
  constructor(name: string, options: ChainOptions = {}) {
    if (typeof name !== 'string' || name.trim() === '') throw new ChainError('a Chain needs a non-empty name');
    this.name = name;
    this.description = describedAs(options.description, `chain '${name}'`);
    this.checkpointer = options.checkpointer ?? null;
    this.graph = new Graph<S>(name, options.entry);
    this.maxSteps = positive(options.maxSteps ?? 500, 'maxSteps', name);
    this.maxIterations = positive(options.maxIterations ?? 10, 'maxIterations', name);
    this.strictRouting = options.strictRouting ?? false;
  }

  /**
   * Add a node: a function `(state, ctx) => output` or a runner (any object with `run(input, options)`, e.g. an
   * Agent). A plain-object output is merged into the state; with `outputKey` it is stored under that key; any other
   * output is stored as `_<id>_output`. Returns the chain, for chaining calls.
   */
  addNode(id: string, body: NodeFunction<S> | Runner, options: NodeOptions = {}): this {
    this.graph.addNode(id, body, options);
    return this;
  }

  /** Add an edge; see ./graph.ts for conditions, fallbacks and cycle caps. Returns the chain. */
  connect(source: string, target: string, options: EdgeOptions<S> = {}): this {
    this.graph.connect(source, target, options);
    return this;
  }

  /** Node ids in the order they were added. */
  get nodeIds(): string[] {
    return [...this.graph.nodes.keys()];
  }

  /**
   * Run from the entry node with state `{ ...options.state, input }`. Resolves with status `completed` (terminal row
   * written) or `paused` (interrupted checkpoint and pending row written). Rejects with the node's error when a node
   * throws, after writing a `failed` terminal row; pass `executionId` to know which execution to resume then.
   */
  async run(input?: unknown, options: RunOptions = {}): Promise<ChainResult> {
    const executionId = options.executionId ?? randomUUID();
    if (typeof executionId !== 'string' || executionId === '') throw new ValidationError('executionId must be a non-empty string');
    const state: JsonRecord = { ...jsonObject(options.state, 'state'), ...(input === undefined ? {} : { input }) };
    const problem = nonJsonReason(state, '$');
    if (problem) throw new ValidationError(`the input and initial state of chain '${this.name}' must be JSON (${problem})`);
    const entry = this.graph.entry();
    if (options.executionId !== undefined && this.checkpointer && (await this.checkpointer.getLast(executionId))) {
      throw new ChainCheckpointError(`execution '${executionId}' already has checkpoints; resume() or fork() it, or run with a new executionId`);
    }
    const run = (checkpointer: Checkpointer | null) =>
      inChainSpan(this.name, this.spanAttributes(executionId, { 'chain.input': input }), [], async (span) => {
        const traceId = traceIdOf(span);
        noteRunTrace(checkpointer, traceId);
        // The start row: a crash in the first node leaves a run that `resume` restarts from the entry by id. It takes
        // the execution's lease (docs/adr/0015).
        await checkpointer?.put({
          execution_id: executionId,
          chain_name: this.name,
          node_id: RUN_START,
          node_index: 0,
          status: 'completed',
          step_type: 'run_start',
          state_snapshot: state,
          node_input: { start_node: entry },
        });
        return execute(this.settings(checkpointer), {
          executionId,
          node: entry,
          state,
          counters: {},
          step: 0,
          resume: null,
          context: options.context,
          signal: options.signal,
          traceId,
        });
      });
    if (!this.checkpointer) return run(null);
    return withExecutionLease(this.checkpointer, executionId, `Chain '${this.name}'`, run, 'first-write', currentScope()?.agentPath ?? null, runnerKey(this));
  }

  /**
   * Continue an execution, holding its lease for the whole call (ExecutionBusy when another process is running it).
   * A paused run needs a decision (`resumeValue`, else `defaultResumeValue`): its pending row is claimed and the
   * decision recorded in one transaction (a lost race or an already finished run raises AlreadyResumed) and the
   * suspended node re-executes with `interrupt()` returning the value. A run whose pause was claimed but whose node
   * never completed (its resumer died) re-executes the node with the recorded decision, whatever value is passed. A
   * failed or crashed run continues after its last real checkpoint (the failed marker is stepped over; a run that
   * crashed in its first node restarts from its start row) with `modifiedState` merged in. A completed run raises
   * AlreadyResumed. No checkpoint: ChainCheckpointError; a paused run without a value: ChainResumeError.
   */
  async resume(executionId: string, options: ResumeOptions = {}): Promise<ChainResult> {
    const checkpointer = this.requireCheckpointer('resume');
    await restoreIfMissing(checkpointer, executionId);
    const explicit = options.resumeValue == null ? null : toResume(options.resumeValue);
    const fallback = options.defaultResumeValue == null ? null : toResume(options.defaultResumeValue);
    const patch = jsonObject(options.modifiedState, 'modifiedState');
    const meta = decisionMeta(options);
    return withExecutionLease(
      checkpointer,
      executionId,
      `Chain '${this.name}'`,
      async (fenced) => {
        const latest = await checkpointer.getLast(executionId);
        if (!latest) throw new ChainCheckpointError(`No checkpoint found for execution '${executionId}'`);
        const base = await latestResumable(checkpointer, executionId, { latest, runner: 'Chain' });
        const { position, decision, recorded, paused } = await this.resumePosition(checkpointer, executionId, latest, base, patch);
        refuseOtherDecision(`Chain '${this.name}'`, executionId, recorded, explicit);
        let resume: { value: Resume; claimed: PendingInterrupt | null; decision?: RecordedDecision | null } | null = decision
          ? { ...decision, decision: recorded }
          : null;
        if (!resume && paused) {
          const value = explicit ?? fallback;
          if (!value) {
            throw new ChainResumeError(
              `Execution '${executionId}' is paused at '${base!.node_id}' (${base!.interrupt_reason ?? 'interrupt'}); pass resumeValue ({ approved, metadata }) to resume it`,
            );
          }
          const claimed = await fenced.claimPendingInterrupt(executionId, { resume: value, claimedBy: fenced.lease.owner, decision: meta });
          if (!claimed) throw new AlreadyResumed(`Execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first`);
          resume = { value, claimed: claimed.pending, decision: decisionOf(claimed.checkpoint) };
        } else if (!resume && explicit) {
          throw new AlreadyResumed(
            `Execution '${executionId}' has no pending interrupt to claim: another resumer claimed it first, or the run is not paused (a run that failed after its resume continues without a resumeValue)`,
          );
        }
        const attributes = this.spanAttributes(executionId, {});
        attributes['chain.resumed_execution_id'] = executionId;
        // The resume continues the execution's previous trace (docs/adr/0059): a link to its root where that trace's
        // spans can be read (the store this run's trace goes to), else the previous trace id alone.
        const previous = executionTraceIds(await checkpointer.list(executionId, { limit: 100_000 })).at(-1);
        const link = previous ? await resumedFromLink(checkpointer, executionId, traceDestinationOf(context.active()) ?? defaultTraceDestination()) : null;
        if (link) Object.assign(attributes, link.attributes);
        else if (previous) attributes[RESUMED_FROM.traceId] = previous;
        return inChainSpan(this.name, attributes, link?.links ?? [], (span) => {
          const traceId = traceIdOf(span);
          noteRunTrace(fenced, traceId);
          if (position.kind === 'done') {
            return finishWithoutNodes(
              this.settings(fenced),
              { executionId, state: position.state, counters: {}, step: position.step, context: options.context, traceId },
              position.lastIndex,
              position.output,
            );
          }
          return execute(this.settings(fenced), {
            executionId,
            node: position.node,
            state: position.state,
            counters: position.counters,
            step: position.step,
            resume,
            context: options.context,
            signal: options.signal,
            traceId,
          });
        });
      },
      'now',
      currentScope()?.agentPath ?? null,
      runnerKey(this),
    );
  }

  /**
   * Branch a new execution (fresh execution id) from a checkpoint of `executionId` (default its last executed step)
   * and run forward from the node after it (or from the paused node itself when branching from a pause). The branch
   * starts with a `__fork_origin__` row whose `parent_checkpoint_id` names the source checkpoint, and writes its own
   * terminal row (`completed`, or `failed` on a throw; none on a pause). The original execution is not touched.
   * Pass `branchExecutionId` to know the branch id even when the branch throws.
   * Errors: ChainCheckpointError when there is nothing to fork or `checkpointId` names the terminal row;
   * ChainResumeError when the checkpoint is at the last node (nothing downstream would run).
   */
  async fork(executionId: string, options: ForkOptions = {}): Promise<ChainResult> {
    const checkpointer = this.requireCheckpointer('fork');
    await restoreIfMissing(checkpointer, executionId);
    let base = await latestForkable(checkpointer, executionId, { checkpointId: options.checkpointId });
    if (base && !this.isChainRow(base)) {
      if (options.checkpointId != null) {
        throw new ChainCheckpointError(
          `checkpoint '${options.checkpointId}' was written by '${base.chain_name}' at '${base.node_id}', not by a node of chain '${this.name}'`,
        );
      }
      base = await this.latestChainRow(checkpointer, executionId);
    }
    if (!base) {
      const which = options.checkpointId != null ? ` / checkpoint '${options.checkpointId}'` : '';
      throw new ChainCheckpointError(`No checkpoint found to fork for execution '${executionId}'${which}: the run holds no executed step to branch from`);
    }
    let state: JsonRecord = { ...base.state_snapshot };
    if (options.input !== undefined) state.input = options.input;
    state = { ...state, ...jsonObject(options.modifiedState, 'modifiedState') };
    const problem = nonJsonReason(state, '$');
    if (problem) throw new ValidationError(`the forked state of chain '${this.name}' must be JSON (${problem})`);
    const position = this.positionAfter(base, state, true);
    if (position.kind === 'done') {
      throw new ChainResumeError(
        `cannot fork execution '${executionId}' at checkpoint '${base.checkpoint_id}': node '${base.node_id}' is the last node of chain '${this.name}' on this route, so nothing downstream would run; fork from an earlier checkpoint or change the state so the route continues`,
      );
    }
    const forkId = options.branchExecutionId ?? randomUUID();
    if (options.branchExecutionId !== undefined && (await checkpointer.getLast(forkId))) {
      throw new ChainCheckpointError(`execution '${forkId}' already has checkpoints; give the branch a new branchExecutionId`);
    }
    const origin: CheckpointWrite = {
      execution_id: forkId,
      chain_name: this.name,
      node_id: FORK_ORIGIN,
      node_index: base.node_index,
      status: 'completed',
      step_type: 'fork_origin',
      parent_checkpoint_id: base.checkpoint_id,
      state_snapshot: position.state,
      iteration: position.step,
      iteration_counters: position.counters,
      node_input: { source_execution_id: executionId, source_checkpoint_id: base.checkpoint_id, start_node: position.node },
      agent_path: base.agent_path,
    };
    const attributes = this.spanAttributes(forkId, { 'chain.input': options.input });
    attributes['chain.forked_execution_id'] = forkId;
    attributes['chain.forked_from_execution_id'] = executionId;
    // The branch is a new execution: its origin row takes its lease (docs/adr/0015).
    const branch = (fenced: Checkpointer) =>
      inChainSpan(this.name, attributes, [], async (span) => {
        const traceId = traceIdOf(span);
        noteRunTrace(fenced, traceId);
        await fenced.put(origin);
        return execute(this.settings(fenced), {
          executionId: forkId,
          node: position.node,
          state: position.state,
          counters: position.counters,
          step: position.step,
          resume: null,
          context: options.context,
          signal: options.signal,
          traceId,
        });
      });
    return withExecutionLease(checkpointer, forkId, `Chain '${this.name}'`, branch, 'first-write', currentScope()?.agentPath ?? null, runnerKey(this));
  }

  /**
   * Where a resume continues, computed before any claim so a refused resume never consumes the pending row: the
   * position, the recorded decision in force for the node to re-run (a claim whose node never completed), and
   * whether the run is paused (a pending decision is needed).
   */
  private async resumePosition(
    checkpointer: Checkpointer,
    executionId: string,
    latest: Checkpoint,
    base: Checkpoint | null,
    patch: JsonRecord,
  ): Promise<{ position: Position; decision: { value: Resume; claimed: PendingInterrupt } | null; recorded: RecordedDecision | null; paused: boolean }> {
    if (!base) {
      // The run failed before any node completed (and before start rows existed): its terminal row holds the state it started with.
      return {
        position: { kind: 'node', node: this.graph.entry(), state: { ...latest.state_snapshot, ...patch }, counters: {}, step: 0, lastIndex: -1 },
        decision: null,
        recorded: null,
        paused: false,
      };
    }
    // Rows newest first down to the newest row this chain wrote for a step (hosted runners write rows of their own).
    const rows = await rowsDownTo(checkpointer, executionId, (row) => this.isChainRow(row));
    const row = rows.at(-1);
    if (!row || !this.isChainRow(row)) {
      throw new ChainCheckpointError(
        `execution '${executionId}' has no checkpoint written by chain '${this.name}' to resume from (latest rows are '${base.chain_name}')`,
      );
    }
    // A claimed decision whose node never completed: the chain's own (its row is the decision row) or a hosted
    // runner's (a decision row above the chain's interrupted row).
    const recorded = decisionOf(row) ?? (row.status === 'interrupted' ? (rows.map((r) => decisionOf(r)).find((d) => d !== null) ?? null) : null);
    const decision = recorded ? { value: recorded.value, claimed: recorded.claimed } : null;
    const paused = !decision && base.status === 'interrupted' && !isRunEnd(latest);
    return { position: this.positionAfter(row, { ...row.state_snapshot, ...patch }, false), decision, recorded, paused };
  }

  /**
   * The node to run after `row` with `state`: the row's own node when it is a pause (the node re-runs), the start
   * node recorded in a fork origin, else the route out of the row's node.
   */
  private positionAfter(row: Checkpoint, state: JsonRecord, forking: boolean): Position {
    const counters = { ...row.iteration_counters };
    if (row.node_id === FORK_ORIGIN || row.step_type === 'fork_origin' || row.step_type === 'run_start') {
      const startNode = isPlainObject(row.node_input) ? row.node_input.start_node : undefined;
      if (typeof startNode !== 'string' || !this.graph.has(startNode)) {
        throw new ChainResumeError(
          `${row.step_type === 'run_start' ? 'start row' : 'fork origin'} '${row.checkpoint_id}' records start node ${JSON.stringify(startNode)}, which chain '${this.name}' does not have`,
        );
      }
      return { kind: 'node', node: startNode, state, counters, step: row.iteration, lastIndex: row.node_index - 1 };
    }
    if (!this.graph.has(row.node_id)) {
      throw new ChainResumeError(
        `checkpoint '${row.checkpoint_id}' is at node '${row.node_id}', which chain '${this.name}' does not have (was the chain changed since the run?); nothing was ${forking ? 'forked' : 'resumed'}`,
      );
    }
    if (row.status === 'interrupted' || isDecisionRow(row)) {
      return { kind: 'node', node: row.node_id, state, counters, step: row.iteration, lastIndex: row.node_index - 1 };
    }
    const route = this.graph.route(row.node_id, state as S, counters, this.settings());
    if (route.next === null) return { kind: 'done', state, step: row.iteration, lastIndex: row.node_index, output: row.node_output };
    return { kind: 'node', node: route.next, state, counters: route.counters, step: row.iteration + 1, lastIndex: row.node_index };
  }

  /** A row this chain wrote for one of its steps (not a hosted runner's row, not a terminal row). */
  private isChainRow(row: Checkpoint): boolean {
    return row.chain_name === this.name && !isRunEnd(row);
  }

  /** The newest row this chain wrote for a step of the execution (hosted runners write rows of their own). */
  private async latestChainRow(checkpointer: Checkpointer, executionId: string): Promise<Checkpoint | null> {
    for (let limit = 16; ; limit *= 16) {
      const rows = await checkpointer.list(executionId, { limit, newestFirst: true });
      const found = rows.find((row) => this.isChainRow(row));
      if (found) return found;
      if (rows.length < limit) return null;
    }
  }

  private requireCheckpointer(operation: string): Checkpointer {
    if (!this.checkpointer) {
      throw new ChainCheckpointError(`chain '${this.name}' has no checkpointer, so there is nothing to ${operation}; construct it with { checkpointer }`);
    }
    return this.checkpointer;
  }

  /** What the executor needs; `checkpointer`: where the run writes (its lease's fenced checkpointer). */
  private settings(checkpointer: Checkpointer | null = this.checkpointer): ChainSettings {
    return {
      name: this.name,
      // Nodes are typed with S for the author; the executor handles them as plain JSON objects.
      graph: this.graph as unknown as Graph<JsonRecord>,
      checkpointer,
      maxSteps: this.maxSteps,
      defaultMaxIterations: this.maxIterations,
      strictRouting: this.strictRouting,
    };
  }

  private spanAttributes(executionId: string, payloads: { 'chain.input'?: unknown }): Attributes {
    const attributes: Attributes = {
      'chain.name': this.name,
      'chain.node_count': this.graph.nodes.size,
      'chain.node_ids': this.nodeIds,
      'chain.execution_id': executionId,
      'agentkit.runner.type': 'chain',
    };
    if (payloadsEnabled() && payloads['chain.input'] !== undefined) attributes['chain.input'] = jsonAttribute(payloads['chain.input']);
    return attributes;
  }
}

function positive(value: number, name: string, chain: string): number {
  if (!Number.isInteger(value) || value < 1) throw new ChainError(`chain '${chain}': ${name} must be a positive integer, not ${String(value)}`);
  return value;
}

function jsonObject(value: JsonRecord | null | undefined, name: string): JsonRecord {
  if (value == null) return {};
  if (!isPlainObject(value)) throw new ValidationError(`${name} must be a plain object`);
  const problem = nonJsonReason(value, `$.${name}`);
  if (problem) throw new ValidationError(`${name} must be JSON (${problem})`);
  return value;
}
