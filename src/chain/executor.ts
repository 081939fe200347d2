/**
 * The chain executor: runs nodes one at a time from a start node until the route ends, the run pauses or it fails,
 * writing one checkpoint per completed node. run, resume and fork all end up here; they differ only in where they
 * start and with what state.
 *
 * Rows written (reference §2.2):
 *   - after each node: `node_id` <node>, `step_type` `node`, `status` `completed`, the state after the node, the
 *     node's output, `iteration` (the step number) and the edge counters before routing (routing is recomputed on
 *     resume from exactly these);
 *   - on `interrupt()`: `step_type` `hitl_pause`, `status` `interrupted`, the state the node started from (it re-runs
 *     on resume), with the pending row, in one transaction; no terminal row;
 *   - at the end: the last node's row and the terminal row (`run_end`, `run_status` `completed`) in one transaction;
 *   - on a throw: the terminal row with `run_status` `failed` and the error, then the error propagates.
 */
import type { Checkpointer } from '../durability/checkpointer.js';
import { isInterruptSignal } from '../durability/interrupt-signal.js';
import { isPlainObject, nonJsonReason, type JsonRecord } from '../durability/json.js';
import { runEndRow } from '../durability/run-end.js';
import { warnTerminalRowLost } from '../durability/terminal-row-warning.js';
import { ChainCheckpointError } from '../durability/errors.js';
import { stopAtBoundary } from '../durability/fenced.js';
import { cloneJson } from '../json.js';
import { recordInterrupt } from '../scope/record-interrupt.js';
import { inNodeSpan } from './node-span.js';
import type { RecordedDecision } from '../durability/decision.js';
import { currentScope, runInScope } from '../scope/scope.js';
import type { ChainResult, PendingInterrupt, PendingInterruptSummary, Resume } from '../types.js';
import { ChainError } from './errors.js';
import type { Graph, NodeDef } from './graph.js';

/** The chain-wide settings the executor needs. */
export interface ChainSettings {
  readonly name: string;
  readonly graph: Graph<JsonRecord>;
  readonly checkpointer: Checkpointer | null;
  /** Global guard: node executions per execution, across resumes. */
  readonly maxSteps: number;
  /** Cap of a back edge without its own `maxIterations`. */
  readonly defaultMaxIterations: number;
  readonly strictRouting: boolean;
}

/** Where and how a run (or a resumed or forked run) starts. */
export interface Start {
  readonly executionId: string;
  readonly node: string;
  readonly state: JsonRecord;
  readonly counters: Record<string, number>;
  /** Node executions already done in this execution (the next node's `iteration`). */
  readonly step: number;
  /** Bound for the first node only: the re-execution of the suspended node. */
  readonly resume: { value: Resume; claimed: PendingInterrupt | null; decision?: RecordedDecision | null } | null;
  readonly context: unknown;
  readonly traceId: string | null;
  /** Cancels the run: checked before each node and handed to it (see RunOptions.signal). */
  readonly signal?: AbortSignal | undefined;
}

type NodeOutcome = { kind: 'output'; value: unknown } | { kind: 'paused'; pending: PendingInterruptSummary };

/** Run from `start` to the end, a pause, or a failure (which is written as a failed terminal row and rethrown). */
export async function execute(settings: ChainSettings, start: Start): Promise<ChainResult> {
  const { graph, checkpointer } = settings;
  const agentPath = currentScope()?.agentPath ?? null;
  const nodeResults: Record<string, unknown> = {};
  let state = start.state;
  let counters = start.counters;
  let step = start.step;
  let current = start.node;
  let resume = start.resume;
  let lastIndex = -1;
  // A run given no signal gets one of its own (docs/adr/0001-run-signals.md: no signal outlives a run).
  const signal = start.signal ?? new AbortController().signal;
  const result = (status: ChainResult['status'], output: unknown, pending: PendingInterruptSummary | null): ChainResult => ({
    output,
    final_state: state,
    node_results: nodeResults,
    execution_id: start.executionId,
    status,
    pending_interrupt: pending,
    trace_id: start.traceId,
  });
  try {
    for (;;) {
      if (step >= settings.maxSteps) {
        throw new ChainError(
          `chain '${settings.name}' reached its step guard (maxSteps ${settings.maxSteps}) in execution '${start.executionId}' before node '${current}'; a cycle without an exit?`,
        );
      }
      signal.throwIfAborted();
      // A run whose lease was lost (another process took the execution over) runs no further node; nor does one
      // whose process is shutting down (docs/adr/0051): the previous node's checkpoint is written, another continues.
      stopAtBoundary(checkpointer);
      const node = graph.node(current);
      const index = graph.indexOf(current);
      const nodeRun = { start, state, counters, step, index, resume, agentPath, signal };
      const outcome = await inNodeSpan(
        {
          chainName: settings.name,
          nodeId: current,
          index,
          iteration: step,
          executionId: start.executionId,
          input: state,
          resume: resume ? { value: resume.value, decision: resume.decision ?? null, reason: resume.claimed?.reason ?? null } : null,
        },
        () => runNode(settings, node, nodeRun),
      );
      resume = null;
      if (outcome.kind === 'paused') return result('paused', null, outcome.pending);

      state = merge(state, node, outcome.value);
      const problem = nonJsonReason(state, '$');
      if (problem) {
        throw new ChainError(`chain '${settings.name}': the state after node '${current}' is not JSON (${problem}); checkpoints store the state as JSON`);
      }
      nodeResults[current] = outcome.value;
      const row = {
        execution_id: start.executionId,
        chain_name: settings.name,
        node_id: current,
        node_index: index,
        status: 'completed' as const,
        step_type: 'node' as const,
        state_snapshot: state,
        node_output: outcome.value === undefined ? null : outcome.value,
        iteration: step,
        iteration_counters: counters,
        agent_path: agentPath,
      };
      let route: { next: string | null; counters: Record<string, number> };
      try {
        route = graph.route(current, state, counters, settings);
      } catch (error) {
        // The node itself completed: keep its checkpoint so a resume with a patched state can route differently.
        await checkpointer?.put(row);
        lastIndex = index;
        throw error;
      }
      if (route.next === null) {
        await checkpointer?.putWrites([
          row,
          runEndRow({ executionId: start.executionId, chainName: settings.name, status: 'completed', state, nodeIndex: index + 1, iteration: step, agentPath }),
        ]);
        return result('completed', outcome.value, null);
      }
      await checkpointer?.put(row);
      lastIndex = index;
      counters = route.counters;
      step += 1;
      current = route.next;
    }
  } catch (error) {
    await writeFailed(settings, start.executionId, state, lastIndex + 1, step, agentPath, error);
    throw error;
  }
}

/** Write the terminal row of a run that finished without any node: a resume of a run whose last node had completed. */
export async function finishWithoutNodes(
  settings: ChainSettings,
  start: Omit<Start, 'node' | 'resume'>,
  lastIndex: number,
  output: unknown,
): Promise<ChainResult> {
  await settings.checkpointer?.put(
    runEndRow({
      executionId: start.executionId,
      chainName: settings.name,
      status: 'completed',
      state: start.state,
      nodeIndex: lastIndex + 1,
      iteration: start.step,
      agentPath: currentScope()?.agentPath ?? null,
    }),
  );
  return {
    output,
    final_state: start.state,
    node_results: {},
    execution_id: start.executionId,
    status: 'completed',
    pending_interrupt: null,
    trace_id: start.traceId,
  };
}

interface NodeRun {
  start: Start;
  state: JsonRecord;
  counters: Record<string, number>;
  step: number;
  index: number;
  resume: Start['resume'];
  agentPath: string | null;
  signal: AbortSignal;
}

/** Run one node in its own scope frame; an InterruptSignal it raises is persisted here and becomes a pause. */
function runNode(settings: ChainSettings, node: NodeDef<JsonRecord>, run: NodeRun): Promise<NodeOutcome> {
  const frame = {
    executionId: run.start.executionId,
    checkpointer: settings.checkpointer,
    runnerName: settings.name,
    agentPath: run.agentPath,
    resumeValue: run.resume?.value ?? null,
    resumedInterrupt: run.resume?.claimed ?? null,
  };
  return runInScope(frame, async (): Promise<NodeOutcome> => {
    try {
      if (node.kind === 'function') {
        const ctx = {
          executionId: run.start.executionId,
          chainName: settings.name,
          nodeId: node.id,
          iteration: run.step,
          context: run.start.context,
          resumed: run.resume?.claimed ?? null,
          signal: run.signal,
        };
        // The node gets its own copy (it may mutate it). The state is JSON (checked after every merge), so a JSON
        // walk copies it: objects and arrays are new, strings are shared (immutable). structuredClone copied every
        // string too, so a step cost time and garbage in proportion to the whole state's bytes (a state that grows
        // by a step's output made a run quadratic), and the delta writer then compared equal texts byte by byte.
        const output = await node.fn!(cloneJson(run.state), ctx);
        // A function that ran an agent (or any runner) in this scope may hand its paused result back as is.
        if (isPausedResult(output)) return { kind: 'paused', pending: await recordRunnerPause(settings, node, run, output) };
        return { kind: 'output', value: output };
      }
      const input = run.state[node.inputKey ?? 'input'];
      const value = await node.runner!.run(input, { context: run.start.context, signal: run.signal });
      if (isPausedResult(value)) return { kind: 'paused', pending: await recordRunnerPause(settings, node, run, value) };
      return { kind: 'output', value: isPlainObject(value) && 'output' in value ? value.output : value };
    } catch (error) {
      if (!isInterruptSignal(error)) throw error;
      const pending = await recordInterrupt(error, {
        nodeId: node.id,
        nodeIndex: run.index,
        stateSnapshot: run.state,
        iteration: run.step,
        iterationCounters: run.counters,
      });
      return { kind: 'paused', pending };
    }
  });
}

/**
 * A hosted runner paused and recorded its own pause (checkpoint and pending row) under this execution. The chain
 * adds its own interrupted row at this node, holding the state the node started from, so a resume knows which node
 * to re-run and with what state.
 */
async function recordRunnerPause(
  settings: ChainSettings,
  node: NodeDef<JsonRecord>,
  run: NodeRun,
  paused: { execution_id?: unknown; pending_interrupt: PendingInterruptSummary },
): Promise<PendingInterruptSummary> {
  if (paused.execution_id !== undefined && paused.execution_id !== run.start.executionId) {
    throw new ChainError(
      `chain '${settings.name}': the runner at node '${node.id}' paused its own execution '${String(paused.execution_id)}', not the chain's ('${run.start.executionId}'); a chain resumes only pauses recorded under its execution (run the runner inside the chain's scope)`,
    );
  }
  if (!settings.checkpointer) {
    throw new ChainCheckpointError(`chain '${settings.name}': the runner at node '${node.id}' paused, but the chain has no checkpointer to resume it from`);
  }
  const pending = paused.pending_interrupt;
  await settings.checkpointer.put({
    execution_id: run.start.executionId,
    chain_name: settings.name,
    node_id: node.id,
    node_index: run.index,
    status: 'interrupted',
    step_type: 'hitl_pause',
    state_snapshot: run.state,
    iteration: run.step,
    iteration_counters: run.counters,
    interrupt_reason: pending.reason,
    interrupt_context: pending.context,
    agent_path: pending.agent_path,
  });
  return pending;
}

function isPausedResult(value: unknown): value is { execution_id?: unknown; pending_interrupt: PendingInterruptSummary } {
  return isPlainObject(value) && value.status === 'paused' && isPlainObject(value.pending_interrupt);
}

/** The state after a node: a plain-object output merges; `outputKey` stores under that key; others go to `_<id>_output`. */
function merge(state: JsonRecord, node: NodeDef<JsonRecord>, value: unknown): JsonRecord {
  if (node.outputKey) return { ...state, [node.outputKey]: value === undefined ? null : value };
  if (value === undefined) return state;
  if (isPlainObject(value)) return { ...state, ...value };
  return { ...state, [`_${node.id}_output`]: value };
}

async function writeFailed(
  settings: ChainSettings,
  executionId: string,
  state: JsonRecord,
  nodeIndex: number,
  step: number,
  agentPath: string | null,
  error: unknown,
): Promise<void> {
  if (!settings.checkpointer) return;
  const snapshot = nonJsonReason(state, '$') ? {} : state;
  try {
    await settings.checkpointer.put(
      runEndRow({ executionId, chainName: settings.name, status: 'failed', state: snapshot, nodeIndex, iteration: step, agentPath, error }),
    );
  } catch (storeError) {
    warnTerminalRowLost(executionId, storeError);
  }
}
