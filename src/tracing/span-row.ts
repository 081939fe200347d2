/** An ended OpenTelemetry span as a row of the `spans` table (and back, for readers). */
import { SpanStatusCode, type HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Span, SpanStatus } from '../types.js';
import { redactAttributes } from './redact.js';

/** A `spans` row as stored. */
export interface SpanRow {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  start_time: string;
  end_time: string | null;
  status: SpanStatus;
  attributes: string;
  events: string;
}

/** An HrTime as ISO-8601 UTC with microseconds (the store's timestamp format). */
export function hrTimeToIso([seconds, nanos]: HrTime): string {
  const millis = seconds * 1000 + Math.floor(nanos / 1e6);
  const micros = String(Math.floor(nanos / 1000) % 1000).padStart(3, '0');
  return new Date(millis).toISOString().replace('Z', `${micros}Z`);
}

/** The status code name: `OK`, `ERROR` or `UNSET`. */
export function statusName(code: SpanStatusCode): SpanStatus {
  return code === SpanStatusCode.OK ? 'OK' : code === SpanStatusCode.ERROR ? 'ERROR' : 'UNSET';
}

/** The row for an ended span, secrets redacted from attributes and event attributes. */
export function spanRow(span: ReadableSpan): SpanRow {
  const ctx = span.spanContext();
  return {
    span_id: ctx.spanId,
    trace_id: ctx.traceId,
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    start_time: hrTimeToIso(span.startTime),
    end_time: span.ended ? hrTimeToIso(span.endTime) : null,
    status: statusName(span.status.code),
    attributes: JSON.stringify(redactAttributes(span.attributes)),
    events: JSON.stringify(span.events.map((e) => ({ name: e.name, timestamp: hrTimeToIso(e.time), attributes: redactAttributes(e.attributes ?? {}) }))),
  };
}

/** A stored row as the Span resource (attributes and events decoded). */
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
