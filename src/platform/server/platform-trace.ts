/**
 * A stored trace as `getTrace` answers it (issue 42): every span with its parent link and attributes; `input` and
 * `output` repeat the attributes whose names end in `.input` / `.output` (what clients before `attributes` read).
 */
import type { IngestedSpan, SpanAttributeValue } from './ingested-span.js';

export interface PlatformTraceBody {
  trace_id: string;
  name: string | null;
  spans: Array<{
    id: string;
    name: string;
    status: string;
    input: Record<string, SpanAttributeValue>;
    output: Record<string, SpanAttributeValue>;
    start_time: string;
    end_time: string | null;
    parent_span_id: string | null;
    attributes: Record<string, SpanAttributeValue>;
  }>;
}

const pick = (attributes: Record<string, SpanAttributeValue>, suffix: string) =>
  Object.fromEntries(Object.entries(attributes).filter(([name]) => name.endsWith(suffix)));

/** The trace of `spans` (one trace, start order); its name is its root span's (the first span without a parent). */
export function platformTrace(traceId: string, spans: readonly IngestedSpan[]): PlatformTraceBody {
  const root = spans.find((span) => span.parent_span_id === null) ?? spans[0];
  return {
    trace_id: traceId,
    name: root?.name ?? null,
    spans: spans.map((span) => ({
      id: span.span_id,
      name: span.name,
      status: span.status,
      input: pick(span.attributes, '.input'),
      output: pick(span.attributes, '.output'),
      start_time: span.start_time,
      end_time: span.end_time,
      parent_span_id: span.parent_span_id,
      attributes: span.attributes,
    })),
  };
}
