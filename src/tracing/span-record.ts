/**
 * An ended span as plain data that can cross to the writer thread (structured clone), and the `spans` row it
 * becomes there: timestamps in the store's format, credentials redacted.
 */
import { SpanStatusCode, type Attributes, type HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { SpanStatus } from '../types.js';
import { redactAttributes, redactedJson } from './redact.js';

/** The data of an ended span. */
export interface SpanRecord {
  spanId: string;
  traceId: string;
  parentSpanId: string | null;
  name: string;
  start: HrTime;
  end: HrTime | null;
  status: SpanStatusCode;
  attributes: Attributes;
  events: Array<{ name: string; time: HrTime; attributes: Attributes }>;
}

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

/** The plain data of an ended span (cheap: no serialisation happens here). */
export function toSpanRecord(span: ReadableSpan): SpanRecord {
  const ctx = span.spanContext();
  return {
    spanId: ctx.spanId,
    traceId: ctx.traceId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    start: span.startTime,
    end: span.ended ? span.endTime : null,
    status: span.status.code,
    attributes: span.attributes,
    events: span.events.length === 0 ? [] : span.events.map((e) => ({ name: e.name, time: e.time, attributes: e.attributes ?? {} })),
  };
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

/** The row of a span record, credentials redacted from attributes and event attributes. */
export function rowOf(record: SpanRecord, secretKey?: (key: string) => boolean): SpanRow {
  return {
    span_id: record.spanId,
    trace_id: record.traceId,
    parent_span_id: record.parentSpanId,
    name: record.name,
    start_time: hrTimeToIso(record.start),
    end_time: record.end === null ? null : hrTimeToIso(record.end),
    status: statusName(record.status),
    attributes: redactedJson(record.attributes, secretKey),
    events: record.events.length === 0 ? '[]' : JSON.stringify(record.events.map((e) => ({ name: e.name, timestamp: hrTimeToIso(e.time), attributes: redactAttributes(e.attributes) }))),
  };
}

/** The row of an ended span. */
export function spanRow(span: ReadableSpan): SpanRow {
  return rowOf(toSpanRecord(span));
}
