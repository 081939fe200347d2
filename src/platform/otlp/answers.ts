/**
 * OTLP/HTTP answers, in the encoding of the request (protobuf for protobuf, JSON for JSON, as OTLP requires): an
 * `ExportTraceServiceResponse` for accepted requests, with `partial_success` when spans were rejected, and a
 * `google.rpc.Status` for every 4xx and 5xx.
 */
import type { Response } from 'express';
import protojson from 'protobufjs/ext/protojson.js';
import type { PayloadEncoding } from './decode.js';
import { ExportTraceServiceResponse, RpcStatus } from './messages.js';
import type { RejectedSpan } from './span-mapping.js';

/** Rejections spelled out in `error_message`; the rest are counted (OTLP asks servers to keep answers small). */
const LISTED_REJECTIONS = 20;

const CONTENT_TYPE: Record<PayloadEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** The google.rpc.Code OTLP clients may log for an HTTP status (they act on the HTTP status alone). */
function rpcCode(status: number): number {
  if (status === 400 || status === 415) return 3; // INVALID_ARGUMENT
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 413 || status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  return 13; // INTERNAL
}

function send(res: Response, encoding: PayloadEncoding, type: typeof RpcStatus, body: Record<string, unknown>): void {
  const message = type.fromObject(body);
  res.type(CONTENT_TYPE[encoding]);
  if (encoding === 'protobuf') res.send(Buffer.from(type.encode(message).finish()));
  else res.send(protojson.toJsonString(type, message));
}

/** Answer 200 with an ExportTraceServiceResponse; `partial_success` is set only when some spans were rejected. */
export function sendAccepted(res: Response, encoding: PayloadEncoding, rejected: RejectedSpan[]): void {
  const body = rejected.length === 0 ? {} : { partialSuccess: { rejectedSpans: rejected.length, errorMessage: describeRejections(rejected) } };
  res.status(200);
  send(res, encoding, ExportTraceServiceResponse, body);
}

/**
 * Answer `status` with a google.rpc.Status carrying `message`; `retryAfterSeconds` adds `Retry-After` (429, 503),
 * in whole seconds, at least 1. No `Connection: close`: Node would destroy the socket right after the answer, and a
 * client still sending its body would see a reset instead of the answer.
 */
export function sendStatus(res: Response, encoding: PayloadEncoding, status: number, message: string, retryAfterSeconds?: number): void {
  res.status(status);
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  send(res, encoding, RpcStatus, { code: rpcCode(status), message });
}

/** One line per rejected span (the first few), then how many more. */
export function describeRejections(rejected: RejectedSpan[]): string {
  const lines = rejected.slice(0, LISTED_REJECTIONS).map((r) => `span ${r.span_id || '(no id)'}: ${r.reason}`);
  if (rejected.length > LISTED_REJECTIONS) lines.push(`... and ${rejected.length - LISTED_REJECTIONS} more`);
  return `${rejected.length} span(s) rejected: ${lines.join('; ')}`;
}
