/**
 * What `evaluate()` runs each case against: any function `(input, case) => output`, or any object with `run(input)`
 * (Agent, Chain, Swarm, Supervisor, or your own). Outputs are read the same way for all: a string is the output; an
 * object with `output` gives it (and its `trace_id`); anything else is serialised as JSON. A run that paused is an
 * error of the case (nothing after the pause ran). A plain function runs inside an `eval.case` root span, so every
 * case has a trace id even when the function traces nothing itself.
 */
import { trace } from '@opentelemetry/api';
import { describePause } from '../pause-text.js';
import { runnerName } from '../runner-kind.js';
import { storedTraceId } from '../tracing/setup.js';
import { withSpan, withTraceDestination } from '../tracing/spans.js';
import type { EvalDatasetCase, EvalInput } from './dataset.js';
import { EvalError } from './errors.js';

/** A function target. */
export type EvalFunction = (input: EvalInput, testCase: EvalDatasetCase) => unknown;

/** Anything with a `run(input)` method. */
export interface EvalRunnable {
  run(input: never, ...rest: never[]): unknown;
}

export type EvalTarget = EvalFunction | EvalRunnable;

/** The output of one case as text, and the trace that produced it. */
export interface TargetOutput {
  output: string;
  traceId: string | null;
}

export interface CaseCall {
  runId: string;
  ordinal: number;
  /** The store traces are written to (the eval's own store). */
  dbPath?: string;
}

/** A callable form of `target`, and the name runs record for it. Throws EvalError for anything else. */
export function adaptTarget(
  target: EvalTarget,
  fallbackName = 'agent',
): { name: string; call(input: EvalInput, testCase: EvalDatasetCase, at: CaseCall): Promise<TargetOutput> } {
  if (typeof target === 'function') {
    const fn = target;
    return {
      name: fn.name || fallbackName,
      call: (input, testCase, at) =>
        withSpan(
          'eval.case',
          { attributes: { 'eval.run_id': at.runId, 'eval.case_ordinal': at.ordinal }, ...(at.dbPath ? { dbPath: at.dbPath } : {}) },
          async (span) => {
            try {
              const out = outputOf(await fn(input, testCase));
              return { output: out.output, traceId: out.traceId ?? storedTraceId(span) };
            } catch (error) {
              throw error instanceof CaseFailure ? error : new CaseFailure(error, storedTraceId(span));
            }
          },
        ),
    };
  }
  if (target !== null && typeof target === 'object' && typeof (target as { run?: unknown }).run === 'function') {
    const runnable = target as { run(input: unknown): unknown };
    return {
      name: runnerName(target, fallbackName),
      call: async (input, _testCase, at) => {
        const out = outputOf(await runInDestination(at.dbPath, () => runnable.run(input)));
        return out.traceId === null ? { ...out, traceId: activeTraceId() } : out;
      },
    };
  }
  throw new EvalError(`the eval target must be a function or an object with a run() method`);
}

async function runInDestination(dbPath: string | undefined, fn: () => unknown): Promise<unknown> {
  return dbPath ? withTraceDestination(dbPath, fn) : fn();
}

function activeTraceId(): string | null {
  const span = trace.getActiveSpan();
  return span ? storedTraceId(span) : null;
}

/** Read a target's result. Throws Error with the pause text for a paused run. */
export function outputOf(result: unknown): { output: string; traceId: string | null } {
  if (typeof result === 'string') return { output: result, traceId: null };
  if (result === null || result === undefined) return { output: '', traceId: null };
  if (typeof result === 'object') {
    const r = result as { output?: unknown; trace_id?: unknown; status?: unknown; execution_id?: unknown; pending_interrupt?: unknown };
    const traceId = typeof r.trace_id === 'string' ? r.trace_id : null;
    if (r.status === 'paused')
      throw new CaseFailure(describePause(String(r.execution_id ?? ''), (r.pending_interrupt ?? null) as Parameters<typeof describePause>[1]), traceId);
    if ('output' in r)
      return { output: typeof r.output === 'string' ? r.output : r.output === undefined || r.output === null ? '' : JSON.stringify(r.output), traceId };
    return { output: JSON.stringify(result), traceId };
  }
  return { output: String(result), traceId: null };
}

/** A case that failed, with the trace it left (a paused run's, or the `eval.case` span's). */
export class CaseFailure extends Error {
  readonly trace_id: string | null;

  constructor(cause: unknown, traceId: string | null) {
    super(
      typeof cause === 'string' ? cause : cause instanceof Error ? cause.message || cause.name : String(cause),
      typeof cause === 'string' ? undefined : { cause },
    );
    this.name = 'CaseFailure';
    this.trace_id = traceId;
  }
}
