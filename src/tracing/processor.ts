/**
 * The local store's side of tracing: which store each trace goes to (decided when its root starts, see
 * destination.ts), and ended spans handed to the batched writer. Two kinds of span
 * arrive: agentkit's own lean spans (lean-tracer.ts), which carry their store, and spans any other code creates
 * through the global tracer provider (chains, third-party instrumentation), which reach this class as an SDK span
 * processor. Both kinds nest under each other and follow their trace's root.
 */
import { trace, type Attributes, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { localDbPath } from '../config/paths.js';
import { resolveTraceDestination } from './destination.js';
import { LeanSpan } from './lean-span.js';
import { FRAMEWORK_ATTR, jobSpanFlags, normalizeAttributes } from './normalize.js';
import type { BatchedTraceWriter } from './writer.js';

interface OpenTrace {
  dbPath: string;
  /** SDK spans of the trace started and not yet ended; the entry goes when it reaches zero. */
  open: number;
}

export class LocalStoreSpanProcessor implements SpanProcessor {
  /** Traces with SDK spans open (lean spans carry their store and need no entry). */
  private readonly traces = new Map<string, OpenTrace>();
  /** SDK spans started inside a `jobScope` with `normalize: true` (normalize.ts). */
  private readonly toNormalize = new WeakSet<object>();

  constructor(private readonly writer: BatchedTraceWriter) {}

  /**
   * The store for a span of trace `traceId` starting under `ctx`: the trace's, if it has SDK spans open here, else
   * the one `ctx` chooses (a new trace's root, or a child of a remote parent).
   */
  destinationOf(traceId: string | undefined, ctx: Context): string {
    return (traceId === undefined ? undefined : this.traces.get(traceId)?.dbPath) ?? resolveTraceDestination(ctx);
  }

  onStart(span: Span, parentContext: Context): void {
    const job = jobSpanFlags();
    if (job) {
      if (job.framework !== undefined && !trace.getSpan(parentContext)) span.setAttribute(FRAMEWORK_ATTR, job.framework);
      if (job.normalize) this.toNormalize.add(span);
    }
    const traceId = span.spanContext().traceId;
    const open = this.traces.get(traceId);
    if (open) open.open++;
    else {
      const parent = trace.getSpan(parentContext);
      this.traces.set(traceId, { dbPath: parent instanceof LeanSpan ? parent.dbPath : resolveTraceDestination(parentContext), open: 1 });
    }
  }

  onEnd(span: ReadableSpan): void {
    const traceId = span.spanContext().traceId;
    const open = this.traces.get(traceId);
    const dbPath = open?.dbPath ?? localDbPath();
    if (open && --open.open === 0) this.traces.delete(traceId);
    // An ended SDK span takes no more setAttribute: its attributes object is completed before the row is written.
    if (this.toNormalize.has(span)) normalizeAttributes(span.attributes as Attributes);
    this.writer.enqueueSpan(dbPath, span);
  }

  /** A lean span ended (lean-tracer.ts). */
  leanSpanEnded(span: LeanSpan): void {
    this.writer.enqueueSpan(span.dbPath, span);
  }

  async forceFlush(): Promise<void> {
    this.writer.flush();
  }

  async shutdown(): Promise<void> {
    this.writer.close();
  }
}
