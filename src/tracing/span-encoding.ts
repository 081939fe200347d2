/**
 * The form ended spans wait in until the batched writer stores them: each span encoded once, as it ends, into
 * its stored row (the nine text columns of `spans`: attributes already the JSON text the row holds, timestamps already
 * formatted) as UTF-8 bytes appended to one growing buffer per store. A batch is written by slicing the columns out of
 * that buffer and binding them. Payload attributes (JSON texts of messages and results) are escaped once, straight into the row's
 * attributes text: nothing re-encodes them later.
 *
 * One span is ten fields in column order: span_id, trace_id, parent_span_id, name, start_time, end_time, status,
 * attributes, events, caller_trace_id. The trace id and parent are the span's stored ones (docs/adr/0009: a run under
 * a caller's span has a trace id of its own and no stored parent; its root row keeps the caller's trace id in the
 * last field, NULL on every other row). The span starts with ten little-endian int32 headers, one per field: -1 for
 * SQL NULL, else (byte length << 1) | 1 when every byte is ASCII (decoded as Latin-1, the cheapest string V8 makes);
 * the fields' bytes follow, in the same order. Headers first, so a span is encoded in three writes: its short fields
 * as one text, then its attributes, then its events (each write into a Buffer has a fixed cost, which a write per
 * field and per attribute piece made most of the encoding's time); a caller trace id is a fourth.
 *
 * Attribute keys must already be redacted (lean spans redact as they are set); event attributes are redacted here,
 * events being rare. The scan for credential-shaped text runs when the batch is written, over the row's final
 * texts (`maskRowSecrets`), once per row.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { LeanSpan } from './lean-span.js';
import { canonicalJson } from '../json.js';
import { LLM_ATTR, TOOL_ATTR } from './attributes.js';
import { MESSAGES_OFFSET } from './message-deltas.js';
import { argumentsText, REDACTION_HMAC_ATTR, writeRedactionHashes, type KeyedHash } from './redaction-hash.js';
import { maskAttributeValue, maskJsonEvents, maskJsonValue, mayHoldSecretJson, mayHoldSecretJsonBytes, redactKeys } from './redact.js';
import { hrTimeToIso, hrTimeToMicros, microsToIso, millisToMicros, statusName, type SpanRow } from './span-record.js';

/** A span event as encoding reads it (the SDK's TimedEvent has this shape). */
export interface EventData {
  name: string;
  time: HrTime;
  attributes?: Attributes;
}

const NULL_FIELD = -1;
const FIELDS = 10;
/** The ten int32 headers that start each span. */
const HEADERS_BYTES = 4 * FIELDS;
/** The short fields before the attributes (span_id ... status). */
const HEAD_FIELDS = 7;
/** Field 7, the attributes (kept as bytes by the writer's decoder), and field 8, the events. */
const ATTRIBUTES_FIELD = 7;
const EVENTS_FIELD = 8;
/** Field 9, the caller's trace id on the root row of a run recorded under a remote parent (NULL otherwise). */
const CALLER_FIELD = 9;
/** First buffer of a batch; later ones start at the size the previous batch reached, within these bounds. */
const MIN_CAPACITY = 16 * 1024;
const MAX_START_CAPACITY = 1024 * 1024;
/** The buffer of a batch that holds nothing: a buffer is allocated by the first append. */
const NO_BYTES = Buffer.alloc(0);

/** A field's header: its byte length, flagged ASCII when it has as many bytes as UTF-16 code units. */
function fieldHeader(bytes: number, length: number): number {
  return (bytes << 1) | (bytes === length ? 1 : 0);
}

/**
 * Encoded spans for one store, appended to one buffer. `take()` hands the bytes over (their buffer can be
 * transferred to another thread) and leaves the batch empty and usable.
 */
export class SpanBatch {
  /** Spans appended since the last `take()`. */
  count = 0;
  private bytes: Buffer = NO_BYTES;
  private used = 0;
  /** Size of the next buffer. */
  private capacity: number;

  constructor(capacity = MIN_CAPACITY) {
    this.capacity = Math.max(capacity, 64);
  }

  /** Bytes used. */
  get byteLength(): number {
    return this.used;
  }

  /** Append one span's row. */
  append(
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
  ): void {
    const parent = parentSpanId ?? null;
    const start = microsToIso(startMicros);
    const end = endMicros === undefined ? null : microsToIso(endMicros);
    const status = statusName(statusCode);
    // The attributes field is exactly `JSON.stringify(attributes)` (key order included): one native call escapes the
    // payloads once, straight into the row's text.
    const attributesJson = JSON.stringify(attributes);
    const eventsJsonText = events.length === 0 ? '[]' : eventsJson(events, secretKey);
    // The short fields as one text; the attributes and events written after it as they are (concatenated, the
    // attributes, which hold the payloads, would be copied once more to flatten the whole).
    const head = spanId + traceId + (parent ?? '') + name + start + (end ?? '') + status;
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    this.reserve(HEADERS_BYTES + 3 * (head.length + attributesJson.length + eventsJsonText.length + (callerTraceId?.length ?? 0)));
    const at = this.used;
    let written = this.bytes.write(head, at + HEADERS_BYTES, 'utf8');
    const headAscii = written === head.length;
    const attributesBytes = this.bytes.write(attributesJson, at + HEADERS_BYTES + written, 'utf8');
    written += attributesBytes;
    const eventsBytes = this.bytes.write(eventsJsonText, at + HEADERS_BYTES + written, 'utf8');
    written += eventsBytes;
    let callerBytes = -1;
    if (callerTraceId !== undefined) {
      callerBytes = this.bytes.write(callerTraceId, at + HEADERS_BYTES + written, 'utf8');
      written += callerBytes;
    }
    const fields = [spanId, traceId, parent, name, start, end, status] as const;
    // As many bytes as code units only when every unit is ASCII (any other takes two bytes or more): then each short
    // field's byte length is its length; otherwise each is measured.
    for (let f = 0; f < HEAD_FIELDS; f++) {
      const field = fields[f]!;
      this.bytes.writeInt32LE(field === null ? NULL_FIELD : fieldHeader(headAscii ? field.length : Buffer.byteLength(field, 'utf8'), field.length), at + 4 * f);
    }
    this.bytes.writeInt32LE(fieldHeader(attributesBytes, attributesJson.length), at + 4 * ATTRIBUTES_FIELD);
    this.bytes.writeInt32LE(fieldHeader(eventsBytes, eventsJsonText.length), at + 4 * EVENTS_FIELD);
    this.bytes.writeInt32LE(callerBytes < 0 ? NULL_FIELD : fieldHeader(callerBytes, callerTraceId!.length), at + 4 * CALLER_FIELD);
    this.used = at + HEADERS_BYTES + written;
    this.count++;
  }

  /**
   * The encoded spans; the batch starts again empty. It holds no memory until its next append, which allocates about
   * what this batch needed (a queue of a store written once keeps nothing).
   */
  take(): Uint8Array {
    // An empty batch hands over a buffer of its own, never the shared empty one (a transfer would detach it).
    const out = this.used === 0 ? new Uint8Array(0) : this.bytes.subarray(0, this.used);
    this.capacity = Math.min(MAX_START_CAPACITY, Math.max(MIN_CAPACITY, this.used + (this.used >> 2)));
    this.bytes = NO_BYTES;
    this.used = 0;
    this.count = 0;
    return out;
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.bytes.length) return;
    // allocUnsafeSlow: a buffer of its own (not a slice of Node's shared pool), so it can be transferred.
    const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.capacity, this.used + bytes));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}

/** Append an ended lean span (its attributes were key-redacted as they were set), with what its row stores instead. */
export function appendLeanSpan(batch: SpanBatch, span: LeanSpan, secretKey: (key: string) => boolean): void {
  const ctx = span.spanContext();
  const end = span.endMillis < 0 ? undefined : millisToMicros(span.endMillis);
  const attributes = span.storedAttributes ? withStored(span.attributes, span.storedAttributes) : span.attributes;
  batch.append(
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
 * Append a span made by the OpenTelemetry SDK (third-party spans through the global provider), stored as `stored`
 * says (default: its own trace id and parent).
 */
export function appendReadableSpan(batch: SpanBatch, span: ReadableSpan, secretKey: (key: string) => boolean, stored?: StoredIdentity): void {
  const ctx = span.spanContext();
  const end = span.ended ? hrTimeToMicros(span.endTime) : undefined;
  const caller = stored?.callerTraceId;
  batch.append(
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

/** A row as the writer binds it: the attributes' UTF-8 bytes as they came (bound as text), or masked text. */
export interface EncodedSpanRow extends Omit<SpanRow, 'attributes'> {
  attributes: string | Buffer;
}

/**
 * The stored rows of the spans in `chunks` (as encoded above), credential-shaped text masked in their attributes and
 * events (`hash`: the store's keyed hash, for the hashes beside masked values). Throws on a malformed buffer.
 */
export function decodeSpanRows(chunks: Uint8Array | readonly Uint8Array[], hash?: () => KeyedHash | undefined): SpanRow[] {
  return decodeEncodedSpanRows(chunks, hash).map((row) =>
    typeof row.attributes === 'string' ? row : { ...row, attributes: row.attributes.toString('utf8') },
  ) as SpanRow[];
}

/**
 * `decodeSpanRows` for the writer: an attributes field that nothing needs to mask stays the bytes it arrived as (a
 * view into the batch), never decoded into a string and encoded back to UTF-8 for SQLite. Bind it as
 * `CAST(? AS TEXT)`: SQLite then stores those bytes as the text they are.
 */
export function decodeEncodedSpanRows(chunks: Uint8Array | readonly Uint8Array[], hash?: () => KeyedHash | undefined): EncodedSpanRow[] {
  const rows: EncodedSpanRow[] = [];
  for (const chunk of chunks instanceof Uint8Array ? [chunks] : chunks) decodeChunk(chunk, rows, hash);
  return rows;
}

function decodeChunk(chunk: Uint8Array, rows: EncodedSpanRow[], hash: (() => KeyedHash | undefined) | undefined): void {
  const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const fields: Array<string | null> = new Array<string | null>(FIELDS);
  let attributes: Buffer = bytes;
  let at = 0;
  while (at < bytes.length) {
    if (at + HEADERS_BYTES > bytes.length) throw new Error('agentkit tracing: a malformed span batch');
    let field = at + HEADERS_BYTES;
    for (let f = 0; f < FIELDS; f++) {
      const header = bytes.readInt32LE(at + 4 * f);
      if (header === NULL_FIELD) {
        fields[f] = null;
        continue;
      }
      const end = field + (header >>> 1);
      if (header < 0 || end > bytes.length) throw new Error('agentkit tracing: a malformed span batch');
      if (f === ATTRIBUTES_FIELD) {
        attributes = bytes.subarray(field, end);
        fields[f] = '';
      } else fields[f] = bytes.toString(header & 1 ? 'latin1' : 'utf8', field, end);
      field = end;
    }
    at = field;
    if (
      fields[0] === null ||
      fields[1] === null ||
      fields[3] === null ||
      fields[4] === null ||
      fields[6] === null ||
      fields[7] === null ||
      fields[8] === null
    ) {
      throw new Error('agentkit tracing: a malformed span batch');
    }
    rows.push({
      span_id: fields[0],
      trace_id: fields[1],
      parent_span_id: fields[2]!,
      name: fields[3],
      start_time: fields[4],
      end_time: fields[5]!,
      status: fields[6] as SpanRow['status'],
      attributes: mayHoldSecretJsonBytes(attributes) ? maskAttributesJson(attributes.toString('utf8'), hash) : attributes,
      events: maskJsonEvents(fields[8]),
      caller_trace_id: fields[9]!,
    });
  }
}
