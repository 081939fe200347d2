/**
 * The root span of a coordinator run or resume (`swarm.<name>`, `supervisor.<name>`), written to the same local store
 * an Agent's trace would go to, so member agents' `agent.<name>` spans nest under it in one trace.
 */
import { context as otelContext, type Attributes, type Span } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { defaultTraceDestination, setTraceDestination, traceDestinationOf } from '../tracing/destination.js';
import { ensureTracing, storedTraceId } from '../tracing/setup.js';
import { withSpan } from '../tracing/spans.js';

export interface TraceOptions {
  /** Record the trace (default true). */
  trace?: boolean;
  /** The store the trace goes to (default: the enclosing trace's, else AGENTKIT_LOCAL_DB). */
  traceDb?: string;
}

/** Run `fn` in the root span `name`; `traceId` is the span's trace id, null when not recorded. */
export function inRootSpan<T>(name: string, attributes: Attributes, options: TraceOptions, fn: (span: Span, traceId: string | null) => Promise<T>): Promise<T> {
  ensureTracing();
  const active = otelContext.active();
  const parent =
    options.trace === false ? suppressTracing(active) : setTraceDestination(active, options.traceDb ?? traceDestinationOf(active) ?? defaultTraceDestination());
  return withSpan(name, { parent }, async (span) => {
    const recording = span.isRecording();
    if (recording) span.setAttributes(attributes);
    return fn(span, recording ? storedTraceId(span) : null);
  });
}

/** The trace settings a run's options set (unset ones leave the runner's defaults). */
export function pickTrace(options: TraceOptions): TraceOptions {
  const picked: TraceOptions = {};
  if (options.trace !== undefined) picked.trace = options.trace;
  if (options.traceDb !== undefined) picked.traceDb = options.traceDb;
  return picked;
}
