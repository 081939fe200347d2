/**
 * Our span processor: it decides which local store each trace goes to when its root starts (see destination.ts) and
 * hands ended spans to the batched writer. Spans created by any code through the global tracer provider (chains,
 * third-party instrumentation) are recorded the same way.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { localDbPath } from '../config/paths.js';
import { resolveTraceDestination } from './destination.js';
import type { BatchedTraceWriter } from './writer.js';

interface OpenTrace {
  dbPath: string;
  /** Spans of the trace started and not yet ended; the entry goes when it reaches zero. */
  open: number;
}

export class LocalStoreSpanProcessor implements SpanProcessor {
  private readonly traces = new Map<string, OpenTrace>();

  constructor(private readonly writer: BatchedTraceWriter) {}

  onStart(span: Span, parentContext: Context): void {
    const traceId = span.spanContext().traceId;
    const open = this.traces.get(traceId);
    if (open) open.open++;
    else this.traces.set(traceId, { dbPath: resolveTraceDestination(parentContext), open: 1 });
  }

  onEnd(span: ReadableSpan): void {
    const traceId = span.spanContext().traceId;
    const open = this.traces.get(traceId);
    const dbPath = open?.dbPath ?? localDbPath();
    if (open && --open.open === 0) this.traces.delete(traceId);
    this.writer.enqueueSpan(dbPath, span);
  }

  async forceFlush(): Promise<void> {
    this.writer.flush();
  }

  async shutdown(): Promise<void> {
    this.writer.close();
  }
}
