/**
 * An OTLP/HTTP trace request body to a decoded `ExportTraceServiceRequest` (messages.ts), for both encodings. OTLP
 * JSON is the proto3 JSON mapping with OTLP's deviations: trace and span ids are hex, not base64 (they are turned
 * into base64 before protobufjs' ProtoJSON parser reads the document), enums are integers (names are accepted too),
 * unknown fields are ignored, and both lowerCamelCase and the .proto's own field names are read. A body that does not
 * decode is refused whole with 400; a span whose id is not valid hex decodes with a one-byte id and is rejected alone
 * (span-mapping.ts).
 */
import protobuf from 'protobufjs';
import protojson from 'protobufjs/ext/protojson.js';
import { maskCredentials } from '../../config/redact.js';
import { ExportTraceServiceRequest, TO_OBJECT, type OtlpTraceRequest } from './messages.js';
import { OtlpRefusal } from './refusal.js';

export type PayloadEncoding = 'protobuf' | 'json';

/** The payload encoding a Content-Type names, or null for one OTLP/HTTP does not define. */
export function payloadEncoding(contentType: string | undefined): PayloadEncoding | null {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === 'application/x-protobuf' || media === 'application/protobuf') return 'protobuf';
  if (media === 'application/json') return 'json';
  return null;
}

/**
 * Decode `body` (already un-gzipped) as `encoding`. Throws OtlpRefusal 400 naming what is wrong, and 413 when the
 * request carries more than `maxSpans` spans: counted before any message object is built (on the wire for protobuf,
 * on the parsed document for JSON), so refusing a large batch costs no more memory than its body.
 */
export function decodeTraceRequest(body: Buffer, encoding: PayloadEncoding, maxSpans: number): OtlpTraceRequest {
  let message: protobuf.Message;
  try {
    if (encoding === 'protobuf') {
      refuseOverMany(countWireSpans(body), maxSpans);
      message = ExportTraceServiceRequest.decode(body);
    } else {
      const document: unknown = JSON.parse(body.toString('utf8'));
      refuseOverMany(countJsonSpans(document), maxSpans);
      hexIdsToBase64(document);
      message = protojson.fromJson(ExportTraceServiceRequest, document, { ignoreUnknownFields: true });
    }
    return ExportTraceServiceRequest.toObject(message, TO_OBJECT) as OtlpTraceRequest;
  } catch (error) {
    if (error instanceof OtlpRefusal) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new OtlpRefusal(
      400,
      `the body is not an OTLP ExportTraceServiceRequest in ${encoding === 'protobuf' ? 'protobuf' : 'OTLP JSON'}: ${oneLine(reason)}`,
    );
  }
}

/** A parser's message as one short line; it may quote the body, so registered secrets and credential shapes are masked. */
function oneLine(text: string): string {
  const line = maskCredentials(text).replace(/\s+/g, ' ');
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

function refuseOverMany(count: number, maxSpans: number): void {
  if (count > maxSpans) throw new OtlpRefusal(413, `the request carries ${count} spans; the limit is ${maxSpans} per request: send smaller batches`);
}

const LENGTH_DELIMITED = 2;

/**
 * The spans of a binary ExportTraceServiceRequest, read off the wire without decoding them: field 1
 * (resource_spans) holds field 2 (scope_spans), which holds field 2 (spans). Throws on a malformed body.
 */
function countWireSpans(body: Uint8Array): number {
  let count = 0;
  forEachField(protobuf.Reader.create(body), body.length, 1, (resource) =>
    forEachField(resource, messageEnd(resource), 2, (scope) =>
      forEachField(scope, messageEnd(scope), 2, (span) => {
        count++;
        span.skip(span.uint32());
      }),
    ),
  );
  return count;
}

/** Where the length-delimited field at the reader ends (reads its length prefix). */
function messageEnd(reader: protobuf.Reader): number {
  const length = reader.uint32();
  return reader.pos + length;
}

/** Call `onField` with the reader at each length-delimited field `field` before `end`; skip every other field. */
function forEachField(reader: protobuf.Reader, end: number, field: number, onField: (reader: protobuf.Reader) => void): void {
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === LENGTH_DELIMITED) onField(reader);
    else reader.skipType(tag & 7);
  }
  if (reader.pos !== end) throw new Error('a length-delimited field runs past its message');
}

/** The spans of a parsed OTLP JSON document (either field name spelling). */
function countJsonSpans(document: unknown): number {
  let count = 0;
  if (typeof document !== 'object' || document === null) return 0;
  for (const resource of objects(read(document as Record<string, unknown>, 'resourceSpans', 'resource_spans')))
    for (const scope of objects(read(resource, 'scopeSpans', 'scope_spans'))) count += Array.isArray(scope.spans) ? scope.spans.length : 0;
  return count;
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
/** base64 of one zero byte: what an id that is not hex decodes to. */
const NOT_HEX = 'AA==';

/** Either name a field may have in OTLP JSON: lowerCamelCase, or the .proto's own. */
function read(object: Record<string, unknown>, camel: string, snake: string): unknown {
  return camel in object ? object[camel] : object[snake];
}

function objects(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : [];
}

/**
 * Rewrite, in place, the hex trace and span ids of every span and link of an OTLP JSON document as base64 (what
 * ProtoJSON expects for bytes). Text that is not hex becomes a one-byte id, a length no id has, so the span's mapping
 * rejects that span (an empty id would turn a bad parent id into a root); values of other types are left for the
 * parser to refuse.
 */
function hexIdsToBase64(document: unknown): void {
  if (typeof document !== 'object' || document === null) return;
  for (const resource of objects(read(document as Record<string, unknown>, 'resourceSpans', 'resource_spans')))
    for (const scope of objects(read(resource, 'scopeSpans', 'scope_spans')))
      for (const span of objects(scope.spans)) {
        convertId(span, 'traceId', 'trace_id');
        convertId(span, 'spanId', 'span_id');
        convertId(span, 'parentSpanId', 'parent_span_id');
        for (const link of objects(span.links)) {
          convertId(link, 'traceId', 'trace_id');
          convertId(link, 'spanId', 'span_id');
        }
      }
}

function convertId(object: Record<string, unknown>, camel: string, snake: string): void {
  for (const name of [camel, snake]) {
    const value = object[name];
    if (typeof value === 'string') object[name] = HEX.test(value) ? Buffer.from(value, 'hex').toString('base64') : NOT_HEX;
  }
}
