/**
 * The compact form ended spans travel in from the run's thread to the writer thread: each span's fields appended to
 * one flat array per batch, so ending a span allocates nothing of its own (no row object, no JSON text, no string
 * building) and the hand-over clones one array of strings and numbers instead of a span's object graph. The run's
 * thread only copies references: payload attributes are large JSON texts already, and escaping them again into an
 * attributes JSON text was the single biggest cost of storing a span. `decodeSpanRows`, on the writer thread, does
 * the rest: the attributes' JSON, timestamp formatting, and the credential text scan.
 *
 * One span's fields, in order: spanId, traceId, parentSpanId (null for a root), start and end (epoch microseconds,
 * end null if not ended), status code, events JSON (null for none), name, the number of attributes, then each
 * attribute's key and value (values as set: strings, numbers, booleans, arrays of them). Attribute keys must already
 * be redacted (lean spans redact as they are set); event attributes are redacted here, events being rare.
 */
import type { Attributes, AttributeValue, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { LeanSpan } from './lean-span.js';
import { maskAttributeValue, maskJsonEvents, redactKeys } from './redact.js';
import { hrTimeToIso, hrTimeToMicros, microsToIso, millisToMicros, statusName, type SpanRow } from './span-record.js';

/** A span event as encoding reads it (the SDK's TimedEvent has this shape). */
export interface EventData {
  name: string;
  time: HrTime;
  attributes?: Attributes;
}

/** Append an ended span's fields to `out`. */
export function appendSpan(
  out: unknown[],
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
): void {
  out.push(spanId, traceId, parentSpanId ?? null, startMicros, endMicros ?? null, statusCode, events.length === 0 ? null : eventsJson(events, secretKey), name, 0);
  const countAt = out.length - 1;
  let count = 0;
  for (const key in attributes) {
    const value = attributes[key];
    // Left out as JSON.stringify leaves it out.
    if (value === undefined) continue;
    out.push(key, value);
    count++;
  }
  out[countAt] = count;
}

/** Append an ended lean span (its attributes were key-redacted as they were set). */
export function appendLeanSpan(out: unknown[], span: LeanSpan, secretKey: (key: string) => boolean): void {
  const ctx = span.spanContext();
  const end = span.endMillis < 0 ? undefined : millisToMicros(span.endMillis);
  appendSpan(out, ctx.spanId, ctx.traceId, span.parentSpanContext?.spanId, span.name, millisToMicros(span.startMillis), end, span.status.code, span.attributes, span.events, secretKey);
}

/** Append a span made by the OpenTelemetry SDK (third-party spans through the global provider). */
export function appendReadableSpan(out: unknown[], span: ReadableSpan, secretKey: (key: string) => boolean): void {
  const ctx = span.spanContext();
  const end = span.ended ? hrTimeToMicros(span.endTime) : undefined;
  appendSpan(out, ctx.spanId, ctx.traceId, span.parentSpanContext?.spanId, span.name, hrTimeToMicros(span.startTime), end, span.status.code, redactKeys(span.attributes, secretKey), span.events, secretKey);
}

function eventsJson(events: readonly EventData[], secretKey: (key: string) => boolean): string {
  return JSON.stringify(events.map((e) => ({ name: e.name, timestamp: hrTimeToIso(e.time), attributes: redactKeys(e.attributes ?? {}, secretKey) })));
}

/** `"key":` for attribute keys: they repeat endlessly, so each is escaped once (the memory is bounded). */
const keyPrefixes = new Map<string, string>();

function keyPrefix(key: string): string {
  let prefix = keyPrefixes.get(key);
  if (prefix === undefined) {
    if (keyPrefixes.size >= 10_000) keyPrefixes.clear();
    prefix = `${JSON.stringify(key)}:`;
    keyPrefixes.set(key, prefix);
  }
  return prefix;
}

/** An attribute value as JSON, credential-shaped text masked. */
function valueJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(maskAttributeValue(value));
  // String(n) is JSON for every finite number; JSON has no NaN or Infinity and writes them as null.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(maskAttributeValue(value as AttributeValue)) ?? 'null';
}

/**
 * The stored rows of the spans in `fields` (as appended above): attributes as JSON text (exactly what
 * `JSON.stringify` of the attribute object gives, key order included), timestamps formatted, credential-shaped text
 * masked. Throws on a malformed array.
 */
export function decodeSpanRows(fields: readonly unknown[]): SpanRow[] {
  const rows: SpanRow[] = [];
  let at = 0;
  while (at < fields.length) {
    const count = fields[at + 8];
    if (typeof count !== 'number' || at + 9 + 2 * count > fields.length) throw new Error('agentkit tracing: a malformed span batch');
    let attributes = '{';
    for (let i = at + 9, end = at + 9 + 2 * count; i < end; i += 2) {
      if (i > at + 9) attributes += ',';
      attributes += keyPrefix(fields[i] as string) + valueJson(fields[i + 1]);
    }
    const endMicros = fields[at + 4] as number | null;
    const events = fields[at + 6] as string | null;
    rows.push({
      span_id: fields[at] as string,
      trace_id: fields[at + 1] as string,
      parent_span_id: fields[at + 2] as string | null,
      name: fields[at + 7] as string,
      start_time: microsToIso(fields[at + 3] as number),
      end_time: endMicros === null ? null : microsToIso(endMicros),
      status: statusName(fields[at + 5] as number),
      attributes: attributes + '}',
      events: events === null ? '[]' : maskJsonEvents(events),
    });
    at += 9 + 2 * count;
  }
  return rows;
}
