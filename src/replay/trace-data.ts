/**
 * The trace objects a replay accepts: the shape `agentkit traces export` prints (`Trace`: spans with their raw
 * attributes) and the `export-trace` document (`ExportTraceDocument`: spans with payloads split into input and
 * output). Both become one list of spans in start order.
 */
import { ConfigError } from '../errors.js';
import { inStartOrder } from '../tracing/trace-store.js';
import type { ExportTraceDocument, Span, Trace } from '../types.js';

/** A trace as replay reads it. */
export interface ReplayTrace {
  trace_id: string;
  name: string;
  status: string;
  start_time: string;
  end_time: string | null;
  spans: Span[];
  /** The traces read (one, or every trace of the execution, oldest first). */
  trace_ids?: string[];
  /** The execution the traces belong to, when read as one (docs/adr/0059). */
  execution_id?: string | null;
}

export type TraceInput = Trace | ExportTraceDocument;

/** A trace read from the local store: its spans are already in start order and complete. */
export function storedTrace(trace: Trace): ReplayTrace {
  return { trace_id: trace.trace_id, name: trace.name, status: trace.status, start_time: trace.start_time, end_time: trace.end_time, spans: trace.spans };
}

/** Normalise a trace object; ConfigError naming what is missing when it is neither shape. */
export function replayTraceOf(data: TraceInput): ReplayTrace {
  if (!data || typeof data !== 'object') throw new ConfigError('a replay needs a trace object (the JSON `agentkit traces export` prints)');
  if ('trace' in data && 'spans' in data && 'export_version' in data) return fromExport(data);
  const trace = data as Trace;
  if (typeof trace.trace_id !== 'string' || !Array.isArray(trace.spans)) {
    throw new ConfigError('a replay needs a trace object with trace_id and spans (the JSON `agentkit traces export` prints)');
  }
  return {
    trace_id: trace.trace_id,
    name: trace.name ?? trace.spans[0]?.name ?? '',
    status: trace.status ?? 'UNSET',
    start_time: trace.start_time ?? trace.spans[0]?.start_time ?? '',
    end_time: trace.end_time ?? null,
    spans: inStartOrder(trace.spans.map((s) => ({ ...s, attributes: s.attributes ?? {}, events: s.events ?? [] }))),
  };
}

/** An export document's spans with their attributes put back together (decoded payloads re-encoded as JSON text). */
function fromExport(doc: ExportTraceDocument): ReplayTrace {
  const traceId = doc.trace.trace_id;
  const spans: Span[] = doc.spans.map((s) => {
    const attributes: Record<string, unknown> = { ...s.attributes };
    for (const [key, value] of Object.entries({ ...s.input, ...s.output })) attributes[key] = typeof value === 'string' ? value : JSON.stringify(value);
    const end = s.duration_ms === null ? null : new Date(Date.parse(s.started_at) + s.duration_ms).toISOString();
    return {
      span_id: s.span_id,
      trace_id: traceId,
      parent_span_id: s.parent_span_id,
      name: s.name,
      start_time: s.started_at,
      end_time: end,
      status: s.status,
      attributes: attributes as Span['attributes'],
      events: s.events,
    };
  });
  const ends = spans.map((s) => s.end_time);
  return {
    trace_id: traceId,
    name: doc.trace.name,
    status: doc.trace.status,
    start_time: doc.trace.started_at,
    end_time: ends.some((e) => e === null) ? null : ends.reduce((max, e) => (e! > max! ? e : max), ends[0] ?? null),
    spans: inStartOrder(spans),
  };
}
