/**
 * Decoded OTLP spans (messages.ts) to the Platform's stored shape (`IngestedSpan`, server/ingested-span.ts), one span
 * at a time: a span that breaks a rule (an invalid id, a time outside the accepted window, too many attributes or
 * events, an over-long value, an unknown kind or status) is rejected alone with a reason, and the rest are kept.
 */
import type { IngestedSpan, IngestedSpanEvent, SpanAttributeValue } from '../server/ingested-span.js';
import type { OtlpLimits } from './limits.js';
import type { OtlpAnyValue, OtlpEvent, OtlpKeyValue, OtlpSpan, OtlpTraceRequest } from './messages.js';

/** A span refused by ingestion or by the store, with why (the answer's `partial_success.error_message` lists them). */
export interface RejectedSpan {
  /** The span's id in hex as sent (empty when it had none). */
  span_id: string;
  reason: string;
}

export interface MappedSpans {
  spans: IngestedSpan[];
  rejected: RejectedSpan[];
}

/** Nesting of arrays and maps inside one attribute value past which a span is rejected. */
const MAX_VALUE_DEPTH = 16;

/** OTLP SpanKind values (UNSPECIFIED ... CONSUMER). */
const MAX_KIND = 5;

const STATUS = ['UNSET', 'OK', 'ERROR'] as const;

class Rejection extends Error {}

/**
 * Map every span of `request` under `limits`; `nowMs` is the receiving clock (the future bound is relative to it).
 * Never throws for bad span data: each bad span is returned in `rejected`.
 */
export function mapTraceRequest(request: OtlpTraceRequest, limits: OtlpLimits, nowMs: number): MappedSpans {
  const spans: IngestedSpan[] = [];
  const rejected: RejectedSpan[] = [];
  const window = { earliest: BigInt(limits.earliestTimeMs) * 1_000_000n, latest: BigInt(nowMs + limits.maxFutureSkewMs) * 1_000_000n };
  for (const resourceSpans of request.resourceSpans ?? []) {
    let resource: Record<string, SpanAttributeValue> | null = null;
    let resourceProblem: string | null = null;
    try {
      resource = attributeMap(resourceSpans.resource?.attributes, limits, 'resource');
    } catch (error) {
      resourceProblem = (error as Error).message;
    }
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = scopeSpans.scope?.name || null;
      for (const span of scopeSpans.spans ?? []) {
        try {
          if (resourceProblem !== null || resource === null) throw new Rejection(resourceProblem ?? 'resource is invalid');
          spans.push(mapSpan(span, resource, scope, limits, window));
        } catch (error) {
          if (!(error instanceof Rejection)) throw error;
          rejected.push({ span_id: span.spanId ? Buffer.from(span.spanId).toString('hex') : '', reason: error.message });
        }
      }
    }
  }
  return { spans, rejected };
}

interface TimeWindow {
  earliest: bigint;
  latest: bigint;
}

function mapSpan(span: OtlpSpan, resource: Record<string, SpanAttributeValue>, scope: string | null, limits: OtlpLimits, window: TimeWindow): IngestedSpan {
  const traceId = id(span.traceId, 16, 'trace_id');
  const spanId = id(span.spanId, 8, 'span_id');
  const parent =
    span.parentSpanId && span.parentSpanId.length > 0 && span.parentSpanId.some((b) => b !== 0) ? id(span.parentSpanId, 8, 'parent_span_id') : null;
  if (!span.name) throw new Rejection('span has no name');
  const kind = span.kind ?? 0;
  if (!Number.isInteger(kind) || kind < 0 || kind > MAX_KIND) throw new Rejection(`kind ${kind} is not an OTLP SpanKind (0-5)`);
  const statusCode = span.status?.code ?? 0;
  const status = STATUS[statusCode];
  if (status === undefined) throw new Rejection(`status code ${statusCode} is not an OTLP StatusCode (0-2)`);
  const start = nanos(span.startTimeUnixNano);
  checkTime(start, window, 'start_time');
  const end = nanos(span.endTimeUnixNano);
  if (end !== 0n) {
    checkTime(end, window, 'end_time');
    if (end < start) throw new Rejection('end_time is before start_time');
  }
  const events = span.events ?? [];
  if (events.length > limits.maxEventsPerSpan) throw new Rejection(`span has ${events.length} events; the limit is ${limits.maxEventsPerSpan}`);
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: parent,
    name: span.name,
    kind,
    start_time: iso(start),
    end_time: end === 0n ? null : iso(end),
    status,
    status_message: span.status?.message || null,
    attributes: attributeMap(span.attributes, limits, 'span'),
    events: events.map((event, i) => mapEvent(event, i, limits, window)),
    resource,
    scope,
  };
}

function mapEvent(event: OtlpEvent, index: number, limits: OtlpLimits, window: TimeWindow): IngestedSpanEvent {
  const time = nanos(event.timeUnixNano);
  checkTime(time, window, `event ${index} time`);
  return { name: event.name ?? '', time: iso(time), attributes: attributeMap(event.attributes, limits, `event ${index}`) };
}

function id(bytes: Uint8Array | undefined, length: number, field: string): string {
  if (!bytes || bytes.length !== length || bytes.every((b) => b === 0))
    throw new Rejection(`${field} must be ${length} bytes (${length * 2} hex digits), not all zero`);
  return Buffer.from(bytes).toString('hex');
}

function nanos(value: string | undefined): bigint {
  return value ? BigInt(value) : 0n;
}

function checkTime(value: bigint, window: TimeWindow, field: string): void {
  if (value < window.earliest) throw new Rejection(`${field} is before ${new Date(Number(window.earliest / 1_000_000n)).toISOString()} (or unset)`);
  if (value > window.latest) throw new Rejection(`${field} is more than the allowed skew in the future`);
}

/** UTC ISO-8601 with milliseconds (sub-millisecond digits dropped). */
function iso(nanoseconds: bigint): string {
  return new Date(Number(nanoseconds / 1_000_000n)).toISOString();
}

/** Key-value pairs as a JSON object (a repeated key: the last one wins), within the count and length caps. */
function attributeMap(pairs: OtlpKeyValue[] | undefined, limits: OtlpLimits, owner: string): Record<string, SpanAttributeValue> {
  const list = pairs ?? [];
  if (list.length > limits.maxAttributesPerSpan) throw new Rejection(`${owner} has ${list.length} attributes; the limit is ${limits.maxAttributesPerSpan}`);
  const out: Record<string, SpanAttributeValue> = {};
  for (const pair of list) {
    const key = pair.key ?? '';
    const budget = { left: limits.maxAttributeValueLength };
    const value = anyValue(pair.value, budget, 0);
    if (budget.left < 0) throw new Rejection(`${owner} attribute '${key.slice(0, 100)}' is longer than ${limits.maxAttributeValueLength} characters`);
    // defineProperty: a key such as '__proto__' is stored as data, never as the object's prototype.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * An OTLP AnyValue as JSON: int64 beyond 2^53 stays a decimal string, bytes become base64, non-finite doubles their
 * ProtoJSON names ('NaN', 'Infinity', '-Infinity'), an unset value null. `budget.left` is charged each string's
 * length and one per other leaf, array item or map entry; it goes negative when the value is too long.
 */
function anyValue(value: OtlpAnyValue | undefined, budget: { left: number }, depth: number): SpanAttributeValue {
  if (depth > MAX_VALUE_DEPTH) throw new Rejection(`an attribute value nests arrays or maps deeper than ${MAX_VALUE_DEPTH} levels`);
  if (!value) return charge(budget, 1, null);
  if (value.stringValue !== undefined) return charge(budget, value.stringValue.length, value.stringValue);
  if (value.boolValue !== undefined) return charge(budget, 1, value.boolValue);
  if (value.intValue !== undefined) {
    const number = Number(value.intValue);
    return charge(budget, value.intValue.length, Number.isSafeInteger(number) ? number : value.intValue);
  }
  if (value.doubleValue !== undefined) {
    const double = value.doubleValue;
    return charge(budget, 1, Number.isFinite(double) ? double : Number.isNaN(double) ? 'NaN' : double > 0 ? 'Infinity' : '-Infinity');
  }
  if (value.bytesValue !== undefined) {
    const base64 = Buffer.from(value.bytesValue).toString('base64');
    return charge(budget, base64.length, base64);
  }
  if (value.arrayValue !== undefined) {
    const items: SpanAttributeValue[] = [];
    for (const item of value.arrayValue.values ?? []) {
      items.push(anyValue(item, budget, depth + 1));
      if (--budget.left < 0) return items;
    }
    return items;
  }
  if (value.kvlistValue !== undefined) {
    const map: Record<string, SpanAttributeValue> = {};
    for (const pair of value.kvlistValue.values ?? []) {
      const key = pair.key ?? '';
      budget.left -= key.length;
      Object.defineProperty(map, key, { value: anyValue(pair.value, budget, depth + 1), enumerable: true, writable: true, configurable: true });
      if (--budget.left < 0) return map;
    }
    return map;
  }
  // string_value_strindex points into a profiles dictionary, which trace requests do not carry.
  return charge(budget, 1, null);
}

function charge<T extends SpanAttributeValue>(budget: { left: number }, cost: number, value: T): T {
  budget.left -= cost;
  return value;
}
