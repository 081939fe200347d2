/**
 * The compact form an ended span travels in from the run's thread to the writer thread: one string per span, so the
 * hand-over copies flat strings instead of structured-cloning a span's object graph, and the run's thread does the
 * least work that must happen there (one `JSON.stringify` of the attributes, whose keys are already redacted).
 * Everything else a stored row needs (timestamp formatting, the credential text scan) happens in `decodeSpanRow` on
 * the writer thread.
 *
 * Format: nine fields separated by U+0000, the name last. `JSON.stringify` escapes U+0000, the ids are hex and the
 * times and status are digits, so only the name can hold a separator: being last, it is everything after the eighth.
 *
 *   spanId, traceId, parentSpanId ('' for a root), start (epoch µs), end (epoch µs, '' if not ended),
 *   status code, attributes JSON, events JSON ('' for none), name
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { LeanSpan } from './lean-span.js';
import { maskJsonAttributes, maskJsonEvents, redactKeys } from './redact.js';
import { hrTimeToIso, hrTimeToMicros, microsToIso, millisToMicros, statusName, type SpanRow } from './span-record.js';

const SEP = '\u0000';

/** A span event as encoding reads it (the SDK's TimedEvent has this shape). */
export interface EventData {
  name: string;
  time: HrTime;
  attributes?: Attributes;
}

/**
 * Encode an ended span's fields. `attributes` must already be key-redacted (event attributes are redacted here:
 * events are rare). Times are whole epoch microseconds.
 */
export function encodeSpanRow(
  spanId: string,
  traceId: string,
  parentSpanId: string | undefined,
  name: string,
  startMicros: number,
  endMicros: number | undefined,
  statusCode: number,
  attributes: Attributes,
  events: readonly EventData[],
  secretKey: (key: string) => boolean,
): string {
  return (
    spanId + SEP + traceId + SEP + (parentSpanId ?? '') + SEP + startMicros + SEP + (endMicros ?? '') + SEP + statusCode + SEP +
    JSON.stringify(attributes) + SEP + (events.length === 0 ? '' : eventsJson(events, secretKey)) + SEP + name
  );
}

/** Encode an ended lean span (its attributes were key-redacted as they were set). */
export function encodeLeanSpan(span: LeanSpan, secretKey: (key: string) => boolean): string {
  const ctx = span.spanContext();
  return encodeSpanRow(
    ctx.spanId,
    ctx.traceId,
    span.parentSpanContext?.spanId,
    span.name,
    millisToMicros(span.startMillis),
    span.endMillis < 0 ? undefined : millisToMicros(span.endMillis),
    span.status.code,
    span.attributes,
    span.events,
    secretKey,
  );
}

/** Encode a span made by the OpenTelemetry SDK (third-party spans through the global provider). */
export function encodeReadableSpan(span: ReadableSpan, secretKey: (key: string) => boolean): string {
  const ctx = span.spanContext();
  return encodeSpanRow(
    ctx.spanId,
    ctx.traceId,
    span.parentSpanContext?.spanId,
    span.name,
    hrTimeToMicros(span.startTime),
    span.ended ? hrTimeToMicros(span.endTime) : undefined,
    span.status.code,
    redactKeys(span.attributes, secretKey),
    span.events,
    secretKey,
  );
}

function eventsJson(events: readonly EventData[], secretKey: (key: string) => boolean): string {
  return JSON.stringify(events.map((e) => ({ name: e.name, timestamp: hrTimeToIso(e.time), attributes: redactKeys(e.attributes ?? {}, secretKey) })));
}

/** The stored row of an encoded span: timestamps formatted, credential-shaped text masked. */
export function decodeSpanRow(encoded: string): SpanRow {
  const fields: string[] = [];
  let at = 0;
  for (let i = 0; i < 8; i++) {
    const next = encoded.indexOf(SEP, at);
    if (next < 0) throw new Error('agentkit tracing: a malformed encoded span');
    fields.push(encoded.slice(at, next));
    at = next + 1;
  }
  const [spanId, traceId, parent, start, end, status, attributes, events] = fields as [string, string, string, string, string, string, string, string];
  return {
    span_id: spanId,
    trace_id: traceId,
    parent_span_id: parent === '' ? null : parent,
    name: encoded.slice(at),
    start_time: microsToIso(Number(start)),
    end_time: end === '' ? null : microsToIso(Number(end)),
    status: statusName(Number(status)),
    attributes: maskJsonAttributes(attributes),
    events: events === '' ? '[]' : maskJsonEvents(events),
  };
}
