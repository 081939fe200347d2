/**
 * The tracer agentkit's own spans are made with (`agent.<name>`, `llm.chat_completion`, `tool.<name>`, guardrail
 * and coordinator spans): an OpenTelemetry API `Tracer` that makes `LeanSpan`s and hands them, ended, straight to
 * the local store (and to OTLP when configured), instead of going through the SDK's tracer, sampler and span.
 *
 * It decides what the SDK's tracer would under our configuration (every span recorded): no span under a context
 * with tracing suppressed (a non-recording one instead); a child of the context's valid span shares its trace id
 * and flags; anything else starts a new trace. Which record in the store a span joins is ours to decide (ADR 0009). Spans that other code makes through the global provider go through the SDK as
 * before and land in the same stores (processor.ts routes both kinds alike).
 */
import {
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import { isTracingSuppressed, type InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { epochMillis, preciseNow } from './clock.js';
import type { HexIdGenerator } from './ids.js';
import { LeanSpan, type LeanSpanOwner } from './lean-span.js';
import { TRACE_ATTR } from './attributes.js';
import { FRAMEWORK_ATTR, jobSpanFlags } from './normalize.js';
import type { LocalStoreSpanProcessor } from './processor.js';

export class LeanTracer implements Tracer, LeanSpanOwner {
  constructor(
    private readonly ids: HexIdGenerator,
    readonly resource: Resource,
    readonly instrumentationScope: InstrumentationScope,
    private readonly local: LocalStoreSpanProcessor,
    private readonly exporter: SpanProcessor | undefined,
  ) {}

  /**
   * A new span under `ctx` (default: the active context); a non-recording span when tracing is suppressed there. A
   * span under a parent this process recorded joins that parent's record; a span under any other valid parent (a
   * caller's, extracted from a `traceparent`) keeps the parent's trace id and flags on the wire but starts a record of
   * its own in the store (docs/adr/0009).
   */
  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    if (options.root) ctx = trace.deleteSpan(ctx);
    if (isTracingSuppressed(ctx)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = trace.getSpan(ctx);
    // Our own ids are valid by construction: only a foreign parent's context needs the (regex) check.
    const parent = parentSpan instanceof LeanSpan || (parentSpan && isSpanContextValid(parentSpan.spanContext())) ? parentSpan.spanContext() : undefined;
    let span: LeanSpan;
    const kind = options.kind ?? SpanKind.INTERNAL;
    const start = options.startTime === undefined ? preciseNow() : epochMillis(options.startTime);
    if (!parent) {
      const spanContext = { traceId: this.ids.generateTraceId(), spanId: this.ids.generateSpanId(), traceFlags: TraceFlags.SAMPLED };
      span = new LeanSpan(this, name, spanContext, undefined, this.local.destinationOf(ctx), kind, start);
    } else {
      // The parent's flags carry on: the traceparent we send repeats the caller's sampling decision (recording ignores it).
      const spanContext = { traceId: parent.traceId, spanId: this.ids.generateSpanId(), traceFlags: parent.traceFlags, traceState: parent.traceState };
      const record = parentSpan instanceof LeanSpan ? parentSpan : this.local.recordOf(parentSpan!);
      if (record) {
        span = new LeanSpan(this, name, spanContext, parent, record.dbPath, kind, start, record.storedTraceId);
      } else {
        const storedTraceId = this.ids.generateTraceId();
        span = new LeanSpan(this, name, spanContext, parent, this.local.destinationOf(ctx), kind, start, storedTraceId, parent.traceId);
        span.setAttributes({ [TRACE_ATTR.callerTraceId]: parent.traceId, [TRACE_ATTR.callerSpanId]: parent.spanId, [TRACE_ATTR.localTraceId]: storedTraceId });
      }
    }
    if (options.attributes) span.setAttributes(options.attributes);
    const job = jobSpanFlags();
    if (job) {
      // On the root of the run's record (no parent, or a caller's).
      if (job.framework !== undefined && (!parent || span.callerTraceId !== undefined)) span.setAttribute(FRAMEWORK_ATTR, job.framework);
      span.normalize = job.normalize;
    }
    if (options.links) span.addLinks(options.links);
    this.exporter?.onStart(span, ctx);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, ctx: Context, fn: F): ReturnType<F>;
  /** `fn(span)` with a new span active in the context it runs in; the caller ends the span. */
  startActiveSpan<F extends (span: Span) => unknown>(name: string, a: SpanOptions | F, b?: Context | F, c?: F): ReturnType<F> {
    const fn = (typeof a === 'function' ? a : typeof b === 'function' ? b : c) as F;
    const options = typeof a === 'object' ? a : {};
    const parent = typeof b === 'object' ? b : context.active();
    const span = this.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }

  /** A lean span ended: its row goes to its store, the span itself to the exporter. */
  spanEnded(span: LeanSpan): void {
    this.local.leanSpanEnded(span);
    this.exporter?.onEnd(span);
  }
}
