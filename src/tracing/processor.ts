/**
 * The local store's side of tracing: which store each trace goes to (decided when its root starts, see
 * destination.ts), which record in that store a span joins (docs/adr/0009), and ended spans handed to the batched
 * writer. Two kinds of span arrive: agentkit's own lean spans (lean-tracer.ts), which carry their store and record,
 * and spans any other code creates through the global tracer provider (chains, third-party instrumentation), which
 * reach this class as an SDK span processor. Both kinds nest under each other and follow their record's root.
 *
 * A span joins its parent's record when this process recorded the parent (a lean span, or an SDK span started
 * here); under any other valid parent (a caller's span extracted from a `traceparent`, a span of another provider)
 * it starts a record of its own: a fresh stored trace id, no stored parent, the caller's ids as attributes.
 */
import { trace, type Attributes, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { TRACE_ATTR } from './attributes.js';
import { defaultTraceDestination, resolveTraceDestination } from './destination.js';
import type { HexIdGenerator } from './ids.js';
import { LeanSpan } from './lean-span.js';
import { FRAMEWORK_ATTR, jobSpanFlags, normalizeAttributes } from './normalize.js';
import type { StoredIdentity } from './span-encoding.js';
import type { BatchedTraceWriter } from './writer.js';

/** Where a recorded span's record lives: its store and the record's stored trace id. */
export interface SpanRecord {
  readonly dbPath: string;
  readonly storedTraceId: string;
}

interface SdkRecord extends SpanRecord, StoredIdentity {}

export class LocalStoreSpanProcessor implements SpanProcessor {
  /** The record of every SDK span started here (a weak map: an ended span that nobody holds goes with its entry). */
  private readonly records = new WeakMap<object, SdkRecord>();
  /** SDK spans started inside a `jobScope` with `normalize: true` (normalize.ts). */
  private readonly toNormalize = new WeakSet<object>();

  constructor(
    private readonly writer: BatchedTraceWriter,
    private readonly ids: HexIdGenerator,
  ) {}

  /** The store for a record starting now under `ctx`. */
  destinationOf(ctx: Context): string {
    return resolveTraceDestination(ctx);
  }

  /** The record of `span` when this process recorded it (a lean span, or an SDK span started here); else undefined. */
  recordOf(span: object): SpanRecord | undefined {
    return span instanceof LeanSpan ? span : this.records.get(span);
  }

  /** The stored trace id of `span`: its record's when this process recorded it, else its own trace id. */
  storedTraceIdOf(span: { spanContext(): { traceId: string } }): string {
    return this.recordOf(span)?.storedTraceId ?? span.spanContext().traceId;
  }

  onStart(span: Span, parentContext: Context): void {
    const job = jobSpanFlags();
    const parentSpan = trace.getSpan(parentContext);
    const parent = parentSpan ? this.recordOf(parentSpan) : undefined;
    let record: SdkRecord;
    if (parent) record = { dbPath: parent.dbPath, storedTraceId: parent.storedTraceId, traceId: parent.storedTraceId };
    else if (span.parentSpanContext) {
      // A caller's span (or another provider's): this span starts a record of its own.
      const storedTraceId = this.ids.generateTraceId();
      const caller = span.parentSpanContext;
      record = { dbPath: resolveTraceDestination(parentContext), storedTraceId, traceId: storedTraceId, callerTraceId: caller.traceId };
      span.setAttributes({ [TRACE_ATTR.callerTraceId]: caller.traceId, [TRACE_ATTR.callerSpanId]: caller.spanId, [TRACE_ATTR.localTraceId]: storedTraceId });
    } else {
      const traceId = span.spanContext().traceId;
      record = { dbPath: resolveTraceDestination(parentContext), storedTraceId: traceId, traceId };
    }
    this.records.set(span, record);
    if (job) {
      if (job.framework !== undefined && !parent) span.setAttribute(FRAMEWORK_ATTR, job.framework);
      if (job.normalize) this.toNormalize.add(span);
    }
  }

  onEnd(span: ReadableSpan): void {
    const record = this.records.get(span);
    // An ended SDK span takes no more setAttribute: its attributes object is completed before the row is written.
    if (this.toNormalize.has(span)) normalizeAttributes(span.attributes as Attributes);
    this.writer.enqueueSpan(record?.dbPath ?? defaultTraceDestination(), span, record);
  }

  /** A lean span ended (lean-tracer.ts). */
  leanSpanEnded(span: LeanSpan): void {
    this.writer.enqueueSpan(span.dbPath, span);
  }

  async forceFlush(): Promise<void> {
    this.writer.flush();
  }

  async shutdown(): Promise<void> {
    await this.writer.closeAsync();
  }
}
