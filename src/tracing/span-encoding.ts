/**
 * The compact form an ended span travels in from the run's thread to the writer thread: one string per span, so the
 * hand-over copies flat strings instead of structured-cloning a span's object graph. The run's thread only
 * concatenates: attribute values go in raw, not JSON-escaped, because payload attributes are large JSON texts already
 * and escaping them again is the single biggest cost of storing a span. `decodeSpanRow`, on the writer thread, does
 * the rest: the attributes' JSON, timestamp formatting, and the credential text scan.
 *
 * Format: seven fields and the name's length, each ended by U+0000, then the name, then the attributes:
 *
 *   spanId, traceId, parentSpanId ('' for a root), start (epoch µs), end (epoch µs, '' if not ended), status code,
 *   events JSON ('' for none), name length; name; attributes
 *
 * The fields before the name never hold U+0000 (hex ids, digits, and JSON, which escapes it). Each attribute is
 * `<type><key length>,<value length>:<key><value>`, type `s` for a string (stored JSON-escaped) and `j` for a value
 * already in JSON (numbers, booleans, arrays), so keys and values may hold any character.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { LeanSpan } from './lean-span.js';
import { maskJsonEvents, maskJsonValue, maskSecretText, redactKeys } from './redact.js';
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
    (events.length === 0 ? '' : eventsJson(events, secretKey)) + SEP + name.length + SEP + name + encodeAttributes(attributes)
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

/** Attributes in enumeration order (the order `JSON.stringify` writes them in); undefined values are left out, as JSON does. */
function encodeAttributes(attributes: Attributes): string {
  let out = '';
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    if (typeof value === 'string') out += 's' + key.length + ',' + value.length + ':' + key + value;
    else {
      // String(n) is JSON for every finite number; JSON has no NaN or Infinity and writes them as null.
      const json = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : 'null') : JSON.stringify(value);
      out += 'j' + key.length + ',' + json.length + ':' + key + json;
    }
  }
  return out;
}

function eventsJson(events: readonly EventData[], secretKey: (key: string) => boolean): string {
  return JSON.stringify(events.map((e) => ({ name: e.name, timestamp: hrTimeToIso(e.time), attributes: redactKeys(e.attributes ?? {}, secretKey) })));
}

/** The attributes' JSON object text, credential-shaped text in string values masked. */
function attributesJson(encoded: string, from: number): string {
  let json = '{';
  let at = from;
  while (at < encoded.length) {
    const comma = encoded.indexOf(',', at);
    const colon = encoded.indexOf(':', comma);
    if (comma < 0 || colon < 0) throw new Error('agentkit tracing: a malformed encoded span');
    const keyEnd = colon + 1 + Number(encoded.slice(at + 1, comma));
    const valueEnd = keyEnd + Number(encoded.slice(comma + 1, colon));
    const value = encoded.slice(keyEnd, valueEnd);
    if (json.length > 1) json += ',';
    json += JSON.stringify(encoded.slice(colon + 1, keyEnd)) + ':' + (encoded[at] === 's' ? JSON.stringify(maskSecretText(value)) : maskJsonValue(value));
    at = valueEnd;
  }
  return json + '}';
}

/** The stored row of an encoded span: attributes as JSON, timestamps formatted, credential-shaped text masked. */
export function decodeSpanRow(encoded: string): SpanRow {
  const fields: string[] = [];
  let at = 0;
  for (let i = 0; i < 8; i++) {
    const next = encoded.indexOf(SEP, at);
    if (next < 0) throw new Error('agentkit tracing: a malformed encoded span');
    fields.push(encoded.slice(at, next));
    at = next + 1;
  }
  const [spanId, traceId, parent, start, end, status, events, nameLength] = fields as [string, string, string, string, string, string, string, string];
  const nameEnd = at + Number(nameLength);
  return {
    span_id: spanId,
    trace_id: traceId,
    parent_span_id: parent === '' ? null : parent,
    name: encoded.slice(at, nameEnd),
    start_time: microsToIso(Number(start)),
    end_time: end === '' ? null : microsToIso(Number(end)),
    status: statusName(Number(status)),
    attributes: attributesJson(encoded, nameEnd),
    events: events === '' ? '[]' : maskJsonEvents(events),
  };
}
