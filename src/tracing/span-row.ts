/** Reading a stored `spans` row back as the Span resource. */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Span } from '../types.js';
import { isSecretKey } from './redact.js';
import { maskSpanRow, readableSpanRow } from './span-encoding.js';
import type { SpanRow } from './span-record.js';

export { hrTimeToIso, statusName, type SpanRow } from './span-record.js';

/** The row an ended SDK span is stored as (redacted; what the writer would write). */
export function spanRow(span: ReadableSpan): SpanRow {
  return maskSpanRow(readableSpanRow(span, isSecretKey));
}

/**
 * A stored row as the Span resource (attributes and events decoded). A model span stored as the messages it adds
 * stays in that form here: `TraceStore.spans` rebuilds whole conversations across a trace (message-deltas.ts).
 */
export function spanFromRow(row: SpanRow): Span {
  return {
    span_id: row.span_id,
    trace_id: row.trace_id,
    parent_span_id: row.parent_span_id,
    name: row.name,
    start_time: row.start_time,
    end_time: row.end_time,
    status: row.status,
    attributes: parseObject(row.attributes),
    events: parseArray(row.events) as Span['events'],
  };
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parseArray(text: string): unknown[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}
