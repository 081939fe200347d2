/**
 * Turning a loaded runner (Agent, Chain, Swarm, Supervisor) into what the served agent serves. Each run is traced
 * into `traceDb` (the server's local store), whatever store the process environment names.
 */
import type { Context } from '@opentelemetry/api';
import type { AgentResult, ChainResult } from '../../generated/types/resources.js';
import type { RunResponse } from '../../generated/types/served-agent.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import { runnerKind, runnerName } from '../runner-kind.js';
import { withTraceDestination } from '../tracing/index.js';
import { ConfigError } from '../errors.js';
import type { ServeTarget, TargetStreamEvent } from './target.js';

interface RunnerLike {
  name?: string;
  checkpointer?: Checkpointer | null;
  run(input: string, options?: Record<string, unknown>): Promise<AgentResult | ChainResult>;
  stream?(input: string, options?: Record<string, unknown>): AsyncIterable<{ type: string; [key: string]: unknown }>;
}

export interface AdapterOptions {
  /** The local store traces of served runs go to. */
  traceDb: string;
}

/** Adapt `value`; throws ConfigError naming what it is when it is not a runner. */
export function toServeTarget(value: unknown, options: AdapterOptions): ServeTarget {
  const kind = runnerKind(value);
  if (!kind) throw new ConfigError(`cannot serve ${describe(value)}: expected an Agent, Chain, Swarm or Supervisor (or a zero-argument factory returning one)`);
  const runner = value as RunnerLike;
  const name = runnerName(value, kind);
  const traced = <T>(parent: Context | undefined, fn: () => T): T => withTraceDestination(options.traceDb, fn, parent);
  const target: ServeTarget = {
    kind,
    name,
    checkpointer: runner.checkpointer ?? null,
    async run(input, parent, executionId) {
      const started = performance.now();
      const options = executionId === undefined ? {} : { executionId };
      const result = await traced(parent, () => runner.run(input, options));
      return kind === 'chain' ? fromChainResult(result as ChainResult, performance.now() - started) : fromAgentResult(result as AgentResult);
    },
  };
  if (kind === 'agent' && typeof runner.stream === 'function') {
    const stream = runner.stream.bind(runner);
    return {
      ...target,
      stream: (input, signal, parent, executionId) =>
        inDestination(options.traceDb, parent, () => agentEvents(stream(input, executionId === undefined ? { signal } : { signal, executionId }))),
    };
  }
  return target;
}

/** A Chain's output is any JSON: strings pass through, anything else is JSON-encoded, nothing (a pause) is ''. */
function chainOutput(output: unknown): string {
  if (output === null || output === undefined) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}

function fromChainResult(result: ChainResult, latencyMs: number): RunResponse {
  return {
    output: result.status === 'paused' ? '' : chainOutput(result.output),
    latency_ms: Math.round(latencyMs * 1000) / 1000,
    tokens_used: 0,
    trace_id: result.trace_id,
    status: result.status,
    execution_id: result.execution_id,
    pending_interrupt: result.pending_interrupt,
  };
}

function fromAgentResult(result: AgentResult): RunResponse {
  return {
    output: result.status === 'paused' ? '' : result.output,
    latency_ms: result.latency_ms,
    tokens_used: result.tokens_used,
    trace_id: result.trace_id,
    status: result.status,
    execution_id: result.execution_id,
    pending_interrupt: result.pending_interrupt,
  };
}

/**
 * Agent stream events -> contract events: text deltas, finished tool calls, `paused` when the run paused, and `done`
 * with the run's execution id, trace id and status.
 */
async function* agentEvents(events: AsyncIterable<{ type: string; [key: string]: unknown }>): AsyncGenerator<TargetStreamEvent> {
  for await (const event of events) {
    if (event.type === 'text_delta' && typeof event.text === 'string') {
      yield { type: 'delta', text: event.text };
    } else if (event.type === 'tool_call_end') {
      yield { type: 'tool_call', name: String(event.name), arguments: (event.arguments ?? {}) as Record<string, unknown> };
    } else if (event.type === 'paused') {
      // The agent says so itself, before its `done`: one `paused` event per pause.
      yield {
        type: 'paused',
        reason: String(event.reason),
        execution_id: String(event.executionId),
        context: (event.context ?? {}) as Record<string, unknown>,
      };
    } else if (event.type === 'done') {
      const result = event.result as AgentResult;
      yield { type: 'done', execution_id: result.execution_id, trace_id: result.trace_id, status: result.status };
    }
  }
}

/**
 * An iterable whose every step runs with `traceDb` as the trace destination, under `parent` when given. Wrapping only
 * the generator's creation is not enough: a generator's body runs in the context of whoever calls `next()`.
 */
function inDestination<T>(traceDb: string, parent: Context | undefined, make: () => AsyncIterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      let inner: AsyncIterator<T> | undefined;
      const open = () => (inner ??= make()[Symbol.asyncIterator]());
      return {
        next: () => withTraceDestination(traceDb, () => open().next(), parent),
        return: (value?: unknown) =>
          inner?.return ? withTraceDestination(traceDb, () => inner!.return!(value), parent) : Promise.resolve({ done: true as const, value: value as T }),
      };
    },
  };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'function') return `a function '${value.name || 'anonymous'}' that is not a zero-argument factory`;
  if (typeof value !== 'object') return `a ${typeof value}`;
  const ctor = (value as object).constructor?.name;
  return ctor && ctor !== 'Object' ? `an instance of ${ctor}` : `an object with keys ${Object.keys(value).slice(0, 8).join(', ') || '(none)'}`;
}
