/**
 * One mapping from anything an HTTP handler can throw to the contract's error body `{ detail, code }` (plus
 * `errors` for validation failures). Used by every Express app agentkit serves.
 */
import { AgentkitError, ValidationError, errorTable, type ErrorCode } from '../errors.js';

/** What to write: status, body, and extra headers. */
export interface ErrorResponse {
  status: number;
  body: { detail: string; code: ErrorCode; errors?: Array<{ path: string; message: string }> };
  headers?: Record<string, string>;
  /** True when the failure is ours (a bug or an outage), worth logging; false for the caller's mistakes. */
  serverFault: boolean;
}

interface ValidatorErrorItem {
  path?: string;
  message?: string;
}

/** The fields of errors thrown by body-parser and express-openapi-validator that we read. */
interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  path?: string;
  message?: string;
  errors?: ValidatorErrorItem[];
  expose?: boolean;
}

function isHttpLike(error: unknown): error is HttpLikeError {
  return typeof error === 'object' && error !== null && ('status' in error || 'statusCode' in error || 'type' in error);
}

/** At most this many validation issues are listed in an error body; the detail says how many there were. */
export const MAX_LISTED_ISSUES = 20;

/** What the mapper may know about the request besides the error. */
export interface ErrorContext {
  maxBodyBytes?: number;
  /** The request's Content-Type header, to name it (or its absence) in a 415-style message. */
  contentType?: string | undefined;
}

/** Map a thrown value to the response the contract declares for it. */
export function toErrorResponse(error: unknown, context: ErrorContext | number = {}): ErrorResponse {
  const { maxBodyBytes, contentType } = typeof context === 'number' ? { maxBodyBytes: context, contentType: undefined } : context;
  if (error instanceof ValidationError) {
    return validationFailed(error.message, [...error.issues]);
  }
  if (error instanceof AgentkitError) {
    const status = errorTable[error.code].status;
    return { status, body: { detail: error.message, code: error.code }, serverFault: status >= 500 };
  }
  if (isHttpLike(error)) {
    const status = error.status ?? error.statusCode ?? 500;
    switch (error.type) {
      case 'entity.parse.failed':
        return { status: 400, body: { detail: `request body is not valid JSON: ${error.message ?? ''}`.trim(), code: 'invalid_json' }, serverFault: false };
      case 'entity.too.large':
        return tooLarge(maxBodyBytes);
      case 'entity.too.deep':
        return validationFailed(error.message ?? 'request body nests too deep', []);
      case 'entity.too.many.keys':
        return { status: 413, body: { detail: error.message ?? 'request body has too many keys', code: 'payload_too_large' }, serverFault: false };
      // RFC 9110: a content coding or charset the server cannot decode is a 415 too.
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return { status: 415, body: { detail: error.message ?? 'unsupported request encoding', code: 'unsupported_media_type' }, serverFault: false };
      default:
        break;
    }
    const items = (error.errors ?? []).map((item) => ({ path: item.path ?? '', message: item.message ?? 'invalid' }));
    if (status === 413) return tooLarge(maxBodyBytes);
    if (status === 404) return { status: 404, body: { detail: `no route ${error.path ?? ''}`.trim(), code: 'not_found' }, serverFault: false };
    if (status === 405) return { status: 405, body: { detail: error.message ?? 'method not allowed', code: 'method_not_allowed' }, serverFault: false };
    if (status === 415) {
      const detail = contentType
        ? `unsupported Content-Type ${JSON.stringify(clip(contentType))}; send application/json`
        : 'the request has no Content-Type; send application/json';
      // 415, not 400: the body may be fine, only its media type is not the route's (docs/adr/0056).
      return { status: 415, body: { detail, code: 'unsupported_media_type' }, serverFault: false };
    }
    if (status === 400) return validationFailed(describe(items) || error.message || 'invalid request', items);
    if (status >= 500 && Array.isArray(error.errors)) {
      // The validator only raises 5xx while checking a response: the handler produced something the contract does
      // not declare (an undeclared status, a body off its schema). Our bug, never the caller's.
      return { status: 500, body: { detail: `response failed contract validation: ${describe(items)}`, code: 'internal_error' }, serverFault: true };
    }
    if (status < 500) return validationFailed(error.message ?? 'invalid request', items);
  }
  return { status: 500, body: { detail: 'internal server error', code: 'internal_error' }, serverFault: true };
}

function tooLarge(maxBodyBytes?: number): ErrorResponse {
  const detail = maxBodyBytes === undefined ? 'request body is too large' : `request body exceeds ${maxBodyBytes} bytes`;
  // The rest of the body was not read; closing is the only way to keep the connection sane.
  return { status: 413, body: { detail, code: 'payload_too_large' }, headers: { Connection: 'close' }, serverFault: false };
}

/**
 * A 400 listing at most `MAX_LISTED_ISSUES` issues. When there are more, the detail says how many there were in
 * total (callers build details from the listed issues only), so a body of many bad keys gets a small answer.
 */
function validationFailed(detail: string, all: Array<{ path: string; message: string }>): ErrorResponse {
  // A 20,000-character unknown key is named, not echoed whole.
  const errors = all.map((item) => ({ path: clip(item.path), message: clip(item.message) }));
  detail = clip(detail, 2000);
  if (errors.length <= MAX_LISTED_ISSUES) return { status: 400, body: { detail, code: 'validation_failed', errors }, serverFault: false };
  const listed = errors.slice(0, MAX_LISTED_ISSUES);
  const shown = `${detail} (${MAX_LISTED_ISSUES} of ${errors.length} problems listed)`;
  return { status: 400, body: { detail: shown, code: 'validation_failed', errors: listed }, serverFault: false };
}

/** At most `limit` characters of `text`, marked when cut. */
function clip(text: string, limit = 200): string {
  return text.length > limit ? `${text.slice(0, limit)}...` : text;
}

function describe(items: Array<{ path: string; message: string }>): string {
  return items
    .slice(0, MAX_LISTED_ISSUES)
    .map((item) => `${clip(item.path)} ${clip(item.message)}`.trim())
    .join('; ');
}
