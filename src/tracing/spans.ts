/**
 * Running code inside a span: the span is active for everything `fn` awaits, ends when `fn` settles, is `OK` on
 * success (unless `fn` set a status itself) and `ERROR` (with the exception recorded) on failure. A control-flow signal (a pause) is not a failure: the
 * span gets an `agentkit.control_flow` event and keeps its status unset.
 */
import { context, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { isControlFlowSignal } from '../tools/control-flow.js';
import { setTraceDestination } from './destination.js';
import { agentkitTracer, ensureTracing } from './setup.js';

export interface SpanOptions {
  attributes?: Attributes;
  /** Write this trace to the store at this path (only meaningful for a root span). */
  dbPath?: string;
  /** Parent context (default: the active one). */
  parent?: Context;
}

/** Run `fn` inside a new span named `name`; returns what `fn` returns, rethrows what it throws. */
export async function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  let parent = options.parent ?? context.active();
  if (options.dbPath) parent = setTraceDestination(parent, options.dbPath);
  return agentkitTracer().startActiveSpan(name, { attributes: options.attributes, startTime: preciseNow() }, parent, async (span) => {
    try {
      const result = await fn(span);
      // `fn` may have set a status of its own (a failed step the run survives); OK would override it.
      if ((span as { status?: { code: SpanStatusCode } }).status?.code === SpanStatusCode.UNSET) span.setStatus({ code: SpanStatusCode.OK });
      return result;
    } catch (error) {
      markFailure(span, error);
      throw error;
    } finally {
      span.end(preciseNow());
    }
  });
}

/**
 * Wall-clock time in milliseconds with sub-millisecond precision. Given for both ends of our spans: the SDK's own
 * start time has millisecond precision, so a parent and its first child (or two quick steps) would otherwise share a
 * start time; and an explicit start makes the SDK take a millisecond end time unless one is given too.
 */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Run `fn` with traces started inside it written to `dbPath`. Sets tracing up first: before that, no context
 * manager carries the destination into `fn`.
 */
export function withTraceDestination<T>(dbPath: string, fn: () => T): T {
  ensureTracing();
  return context.with(setTraceDestination(context.active(), dbPath), fn);
}

/** Record `error` on `span`: an ERROR status with the exception, or a control-flow event for a pause. */
export function markFailure(span: Span, error: unknown): void {
  if (isControlFlowSignal(error)) {
    span.addEvent('agentkit.control_flow', { 'exception.type': error instanceof Error ? error.name : typeof error });
    return;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
}
