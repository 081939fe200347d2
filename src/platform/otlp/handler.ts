/**
 * `POST /v1/traces`: OTLP/HTTP trace ingestion for the Platform (issue 42). The handler is standalone; the Platform
 * server supplies who may write (`authenticate`), where spans go (`write`) and how fast (`throttle`), and mounts it
 * before any body parser (it reads the raw request stream itself):
 *
 *   app.post('/v1/traces', createOtlpTracesHandler({ authenticate, write, throttle, limits }));
 *
 * Order of checks: authentication (401/403 from `authenticate`), throttling (429), Content-Type (415 unless
 * protobuf or JSON), Content-Encoding (415 unless gzip or none), body size as sent and inflated (413), decoding (400),
 * spans per request (413), a span or resource attribute `agentkit.project_id` naming another project (403), then each
 * span's own checks (rejected alone, reported in `partial_success`), then `write` (a storage outage: 503).
 * Every answer is in the request's encoding; answers to requests of another Content-Type are JSON.
 */
import type { Request, RequestHandler, Response } from 'express';
import { findStorageError } from '../../store/storage-errors.js';
import type { IngestedSpan } from '../server/ingested-span.js';
import { sendAccepted, sendStatus } from './answers.js';
import { decodeTraceRequest, payloadEncoding, type PayloadEncoding } from './decode.js';
import { resolveOtlpLimits, type OtlpLimits } from './limits.js';
import { OtlpRefusal } from './refusal.js';
import { bodyEncoding, decodeBody, discardRest, readBody } from './request-body.js';
import { mapTraceRequest, type RejectedSpan } from './span-mapping.js';

/** Who sent a request: at least the project its key writes to (the server may add the key's id for `throttle`). */
export interface OtlpPrincipal {
  project: string;
}

/** A refused authentication: the HTTP status (401 no or unknown key, 403 a key without `traces:write`), an error code and a one-line detail. */
export interface OtlpAuthFailure {
  status: number;
  code: string;
  detail: string;
}

export interface OtlpIngestOptions<P extends OtlpPrincipal = OtlpPrincipal> {
  /**
   * Who sent `req` (from its `X-API-Key` header, say): the principal whose project the spans are stored under, or a
   * failure answered as is (`<code>: <detail>` as the Status message). Called first, before the body is read. A
   * throw is answered 503 when it is a storage outage (`StorageUnavailableError`), else 500.
   */
  authenticate(req: Request): P | OtlpAuthFailure | Promise<P | OtlpAuthFailure>;
  /**
   * Store `spans` under `project` (every span is valid per `IngestedSpan`'s contract). Returns the spans the store
   * refused, with reasons; they are counted in the answer's `partial_success`. A `StorageUnavailableError` (or a
   * thrown error with code `storage_unavailable` in its cause chain) is answered 503 with `Retry-After`; any other
   * throw 500 (its message is not sent). Not called for a request with no valid span.
   */
  write(project: string, spans: IngestedSpan[]): Promise<{ rejected: RejectedSpan[] }>;
  /**
   * Optional rate limit, called after authentication: null lets the request through, a number refuses it with 429
   * and `Retry-After` of that many seconds.
   */
  throttle?(principal: P, req: Request): number | null | Promise<number | null>;
  /** Caps over the defaults (limits.ts). Checked when the handler is created. */
  limits?: Partial<OtlpLimits>;
  /** Seconds a client should wait after a storage outage (`Retry-After` of the 503). Default 5. */
  storageRetryAfterSeconds?: number;
  /** The receiving clock in milliseconds (the future bound of span times is relative to it). Default `Date.now`. */
  now?: () => number;
  /** Called with errors answered 500 (a `write` or `authenticate` bug), for the server's log. */
  onServerError?(error: unknown): void;
}

/** The span and resource attribute that names an agentkit project (agentkit hosts set it on spans of a job). */
export const PROJECT_ATTRIBUTE = 'agentkit.project_id';

/**
 * An Express handler for `POST /v1/traces` (see the module comment for the checks and their answers). Throws a
 * RangeError at once for an invalid limit.
 */
export function createOtlpTracesHandler<P extends OtlpPrincipal>(options: OtlpIngestOptions<P>): RequestHandler {
  const limits = resolveOtlpLimits(options.limits);
  const now = options.now ?? Date.now;
  const storageRetryAfter = options.storageRetryAfterSeconds ?? 5;
  return (req, res) => {
    const encoding = payloadEncoding(req.headers['content-type']);
    void ingest(req, res, encoding).catch((error: unknown) => {
      if (res.headersSent) return;
      const refusal = asRefusal(error);
      if (refusal.status === 500) options.onServerError?.(error);
      sendStatus(res, encoding ?? 'json', refusal.status, refusal.message, refusal.retryAfterSeconds);
      // A body left unread (too large, or refused before reading) is dropped, within a bound (see discardRest).
      if (!req.complete) res.once('finish', () => discardRest(req, limits.maxBodyBytes));
    });
  };

  /** What to answer for `error`: a refusal as it is, a storage outage 503, anything else 500 without its message. */
  function asRefusal(error: unknown): OtlpRefusal {
    if (error instanceof OtlpRefusal) return error;
    if (findStorageError(error)) return new OtlpRefusal(503, 'the Platform store is unavailable; retry later', storageRetryAfter);
    return new OtlpRefusal(500, 'the Platform failed to handle the request');
  }

  async function ingest(req: Request, res: Response, encoding: PayloadEncoding | null): Promise<void> {
    const principal = await options.authenticate(req);
    if ('status' in principal) throw new OtlpRefusal(principal.status, `${principal.code}: ${principal.detail}`);
    const wait = options.throttle ? await options.throttle(principal, req) : null;
    if (wait !== null) throw new OtlpRefusal(429, 'too many requests for this key; retry later', wait);
    if (encoding === null)
      throw new OtlpRefusal(
        415,
        `Content-Type '${String(req.headers['content-type'] ?? '').slice(0, 80)}' is not accepted: send application/x-protobuf or application/json`,
      );
    const compression = bodyEncoding(req.headers['content-encoding']);
    const body = await decodeBody(await readBody(req, limits.maxBodyBytes), compression, limits.maxDecodedBytes);
    const request = decodeTraceRequest(body, encoding, limits.maxSpansPerRequest);
    const { spans, rejected } = mapTraceRequest(request, limits, now());
    const foreign = foreignProject(spans, principal.project);
    if (foreign !== null)
      throw new OtlpRefusal(
        403,
        `forbidden: a span names project '${foreign.slice(0, 100)}' in ${PROJECT_ATTRIBUTE}; this key writes to project '${principal.project}' only`,
      );
    if (spans.length > 0) {
      const stored = await options.write(principal.project, spans);
      rejected.push(...stored.rejected);
    }
    sendAccepted(res, encoding, rejected);
  }
}

/** The first project other than `project` that a span's or its resource's `agentkit.project_id` names, or null. */
function foreignProject(spans: IngestedSpan[], project: string): string | null {
  for (const span of spans) {
    for (const named of [span.attributes[PROJECT_ATTRIBUTE], span.resource[PROJECT_ATTRIBUTE]]) {
      if (named !== undefined && named !== project) return typeof named === 'string' ? named : JSON.stringify(named);
    }
  }
  return null;
}
