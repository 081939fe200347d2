/**
 * An ended span as its stored row (the ten columns of `spans`: attributes already the JSON text the row holds,
 * timestamps already formatted), built once, as the span ends, and queued as it is until the batched writer stores
 * it. The trace id and parent are the span's stored ones (docs/adr/0009: a run under a caller's span has a trace id
 * of its own and no stored parent; its root row keeps the caller's trace id in `caller_trace_id`, NULL on every other
 * row).
 *
 * Attribute keys must already be redacted (lean spans redact as they are set); event attributes are redacted here,
 * events being rare. The scan for credential-shaped text runs when the batch is written (`maskSpanRow`), with the
 * store's keyed hash, over the row's final texts, once per row.
 *
 * (Rows waited as UTF-8 bytes in one buffer per store while a writer thread stored them; since that thread went,
 * ADR 0034, a row waits as the plain object it is written from.)
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { LeanSpan } from './lean-span.js';
import { canonicalJson } from '../json.js';
import { LLM_ATTR, TOOL_ATTR } from './attributes.js';
import { MESSAGES_OFFSET } from './message-deltas.js';
import { argumentsText, REDACTION_HMAC_ATTR, writeRedactionHashes, type KeyedHash } from './redaction-hash.js';
import { maskAttributeValue, maskJsonEvents, maskJsonValue, mayHoldSecretJson, redactKeys } from './redact.js';
import { hrTimeToIso, hrTimeToMicros, microsToIso, millisToMicros, statusName, type SpanRow } from './span-record.js';

/** A span event as encoding reads it (the SDK's TimedEvent has this shape). */
export interface EventData {
  name: string;
  time: HrTime;
  attributes?: Attributes;
}

/** The stored row of a span's fields; `attributes` is `JSON.stringify(attributes)` exactly (key order included). */
export function spanRowOf(
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
  callerTraceId?: string,
): SpanRow {
  return {
    span_id: spanId,
    trace_id: traceId,
    parent_span_id: parentSpanId ?? null,
    name,
    start_time: microsToIso(startMicros),
    end_time: endMicros === undefined ? null : microsToIso(endMicros),
    status: statusName(statusCode),
    attributes: JSON.stringify(attributes),
    events: events.length === 0 ? '[]' : eventsJson(events, secretKey),
    caller_trace_id: callerTraceId ?? null,
  };
}

/** The row of an ended lean span (its attributes were key-redacted as they were set), with what its row stores instead. */
export function leanSpanRow(span: LeanSpan, secretKey: (key: string) => boolean): SpanRow {
  const ctx = span.spanContext();
  const end = span.endMillis < 0 ? undefined : millisToMicros(span.endMillis);
  const attributes = span.storedAttributes ? withStored(span.attributes, span.storedAttributes) : span.attributes;
  return spanRowOf(
    ctx.spanId,
    span.storedTraceId,
    span.callerTraceId === undefined ? span.parentSpanContext?.spanId : undefined,
    span.name,
    millisToMicros(span.startMillis),
    end,
    span.status.code,
    attributes,
    span.events,
    secretKey,
    span.callerTraceId,
  );
}

/**
 * `{ ...attributes, ...stored }` (same keys, same order), built key by key: a spread of the second object into the
 * copy of the first gave the result a hidden class of its own at every call, so every span's merge made new ones.
 */
function withStored(attributes: Attributes, stored: Attributes): Attributes {
  const merged: Attributes = {};
  for (const key in attributes) merged[key] = Object.hasOwn(stored, key) ? stored[key] : attributes[key];
  for (const key in stored) if (!Object.hasOwn(merged, key)) merged[key] = stored[key];
  return merged;
}

/** Where an SDK span is stored (docs/adr/0009): its run's stored trace id, and the caller's on a run's root. */
export interface StoredIdentity {
  traceId: string;
  /** Set on the root of a run recorded under a parent this process did not record: no stored parent then. */
  callerTraceId?: string;
}

/**
 * The row of a span made by the OpenTelemetry SDK (third-party spans through the global provider), stored as `stored`
 * says (default: its own trace id and parent).
 */
export function readableSpanRow(span: ReadableSpan, secretKey: (key: string) => boolean, stored?: StoredIdentity): SpanRow {
  const ctx = span.spanContext();
  const end = span.ended ? hrTimeToMicros(span.endTime) : undefined;
  const caller = stored?.callerTraceId;
  return spanRowOf(
    ctx.spanId,
    stored?.traceId ?? ctx.traceId,
    caller === undefined ? span.parentSpanContext?.spanId : undefined,
    span.name,
    hrTimeToMicros(span.startTime),
    end,
    span.status.code,
    redactKeys(span.attributes, secretKey),
    span.events,
    secretKey,
    caller,
  );
}

function eventsJson(events: readonly EventData[], secretKey: (key: string) => boolean): string {
  return JSON.stringify(events.map((e) => ({ name: e.name, timestamp: hrTimeToIso(e.time), attributes: redactKeys(e.attributes ?? {}, secretKey) })));
}

/**
 * The attributes JSON text with credential-shaped text masked in its string values (and in arrays' strings), as
 * `maskAttributeValue` masks each value; the same text when nothing can need it (the common case: one scan). A
 * model request's messages are masked message by message and a tool call's arguments as a whole; for each one that
 * changed, `hash` (the store's keyed hash, taken only once something needs it) goes into `agentkit.redaction.hmac`,
 * so replay can still match the call (redaction-hash.ts, docs/adr/0010).
 */
export function maskAttributesJson(json: string, hash?: () => KeyedHash | undefined): string {
  if (!mayHoldSecretJson(json)) return json;
  let attributes: Record<string, unknown>;
  try {
    attributes = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  let messageHashes: Record<string, string> | undefined;
  let argsHash: string | undefined;
  for (const key in attributes) {
    const value = attributes[key];
    if (key === LLM_ATTR.messages && typeof value === 'string') {
      const offset = attributes[MESSAGES_OFFSET];
      const masked = maskMessages(value, typeof offset === 'number' ? offset : 0, hash);
      attributes[key] = masked.text;
      if (masked.hashes) messageHashes = masked.hashes;
      continue;
    }
    const masked = maskAttributeValue(value as Parameters<typeof maskAttributeValue>[0]);
    if (key === TOOL_ATTR.args && typeof value === 'string' && masked !== value) argsHash = hash?.()?.(argumentsText(value));
    attributes[key] = masked;
  }
  const hashes = writeRedactionHashes(messageHashes, argsHash);
  if (hashes !== undefined) attributes[REDACTION_HMAC_ATTR] = hashes;
  return JSON.stringify(attributes);
}

/** A messages JSON array masked message by message; the hash of each message that changed, by its index from `offset`. */
function maskMessages(text: string, offset: number, hash: (() => KeyedHash | undefined) | undefined): { text: string; hashes?: Record<string, string> } {
  let messages: unknown;
  try {
    messages = JSON.parse(text);
  } catch {
    return { text: maskAttributeValue(text) as string };
  }
  if (!Array.isArray(messages)) return { text: maskAttributeValue(text) as string };
  let masked: unknown[] | undefined;
  let hashes: Record<string, string> | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    const clean = maskJsonValue(message);
    if (clean === message) continue;
    (masked ??= messages.slice())[i] = clean;
    const keyed = hash?.();
    if (keyed) (hashes ??= {})[String(offset + i)] = keyed(canonicalJson(message));
  }
  return masked ? (hashes ? { text: JSON.stringify(masked), hashes } : { text: JSON.stringify(masked) }) : { text };
}

/**
 * `row` with credential-shaped text masked in its attributes and events (`hash`: the store's keyed hash, for the
 * hashes beside masked values); the row itself when nothing needs it (the common case: one scan of each text).
 */
export function maskSpanRow(row: SpanRow, hash?: () => KeyedHash | undefined): SpanRow {
  const attributes = maskAttributesJson(row.attributes, hash);
  const events = maskJsonEvents(row.events);
  return attributes === row.attributes && events === row.events ? row : { ...row, attributes, events };
}
