/**
 * Running code inside a span: the span is active for everything `fn` awaits, ends when `fn` settles, is `OK` on
 * success (unless `fn` set a status itself) and `ERROR` (with the exception recorded) on failure. A control-flow signal (a pause) is not a failure: the
 * span gets an `agentkit.control_flow` event and keeps its status unset.
 */
import { context, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type SpanKind } from '@opentelemetry/api';
import { isControlFlowSignal } from '../tools/control-flow.js';
import { currentJob } from '../config/job-context.js';
import { setTraceDestination } from './destination.js';
import { LeanSpan } from './lean-span.js';
import { agentkitTracer, ensureTracing } from './setup.js';

export interface SpanOptions {
  attributes?: Attributes;
  /** The span's kind (default INTERNAL): a model call is a CLIENT span. */
  kind?: SpanKind;
  /** Write this trace to the store at this path (only meaningful for a root span). */
  dbPath?: string;
  /** Parent context (default: the active one). */
  parent?: Context;
  /** Links given at span start (a resume's root links to its paused run's root). */
  links?: Link[];
}

/**
 * Run `fn` inside a new span named `name`; returns what `fn` returns, rejects with what it throws (a span that
 * cannot start rejects too: nothing is thrown synchronously).
 */
export async function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  let parent = options.parent ?? context.active();
  if (options.dbPath) parent = setTraceDestination(parent, options.dbPath);
  const project = currentJob()?.project;
  const attributes = project ? { ...options.attributes, 'agentkit.project_id': project } : options.attributes;
  const span = agentkitTracer().startSpan(
    name,
    attributes || options.kind || options.links ? { attributes, kind: options.kind, ...(options.links ? { links: options.links } : {}) } : {},
    parent,
  );
  let result: T;
  try {
    result = await context.with(trace.setSpan(parent, span), fn, undefined, span);
  } catch (error) {
    throw failed(span, error);
  }
  // `fn` may have set a status of its own (a failed step the run survives); OK would override it.
  if (span instanceof LeanSpan && span.status.code === SpanStatusCode.UNSET) span.setStatus({ code: SpanStatusCode.OK });
  span.end();
  return result;
}

/** End `span` as failed by `error` and return the error to rethrow. */
function failed(span: Span, error: unknown): unknown {
  try {
    markFailure(span, error);
    // A run that fails leaves a trace; the error leaving its root span (the root of its record in the store: no
    // parent, or a caller's) names it, so a caller that only sees the error (an eval case, a server log) can still
    // point at the trace.
    if (span instanceof LeanSpan && (span.parentSpanContext === undefined || span.callerTraceId !== undefined)) nameTrace(error, span.storedTraceId);
  } finally {
    span.end();
  }
  return error;
}

/**
 * Give `error` a non-enumerable `trace_id` (the trace its failed root span left), unless it has one already or
 * cannot take one. Pauses and other control-flow signals are left alone: they are not failures.
 */
function nameTrace(error: unknown, traceId: string): void {
  if (typeof error !== 'object' || error === null || isControlFlowSignal(error)) return;
  if (Object.hasOwn(error, 'trace_id') || !Object.isExtensible(error)) return;
  Object.defineProperty(error, 'trace_id', { value: traceId, enumerable: false, writable: true, configurable: true });
}

/**
 * Run `fn` with traces started inside it written to `dbPath`, in `parent` (default: the active context; a caller's
 * context from `extractCallerContext` makes the runs inside children of the caller's span). Sets tracing up first:
 * before that, no context manager carries the destination into `fn`.
 */
export function withTraceDestination<T>(dbPath: string, fn: () => T, parent?: Context): T {
  ensureTracing();
  return context.with(setTraceDestination(parent ?? context.active(), dbPath), fn);
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
