/**
 * The Platform's OTLP trace handler (src/platform/otlp/) mounted alone on a small Express app on 127.0.0.1, with an
 * in-memory store: what tests send with real OpenTelemetry exporters (or raw HTTP) lands in `stored`, by project.
 * Keys: `key-alpha` writes to project `alpha`, `key-beta` to `beta`, `key-readonly` is refused 403 (no
 * `traces:write`); no or another key is 401. `fault` makes writes throw a storage outage (`failingWrites` the next
 * few only), and `throttle` makes requests answer 429.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createOtlpTracesHandler, type OtlpLimits, type RejectedSpan } from '../src/platform/otlp/index.js';
import type { IngestedSpan } from '../src/platform/server/ingested-span.js';
import { StorageUnavailableError } from '../src/store/storage-errors.js';

export interface IngestServer {
  /** `http://127.0.0.1:<port>`; the endpoint is `${url}/v1/traces`. */
  url: string;
  /** Every span written, with the project it was written under, in order. */
  stored: Array<{ project: string; span: IngestedSpan }>;
  /** Each request's Content-Type and Content-Encoding headers and the status answered, in order. */
  requests: Array<{ contentType: string; contentEncoding: string; status: number }>;
  /** How many times `write` was called. */
  writes: number;
  /** When set, `write` throws a storage outage. */
  fault: boolean;
  /** How many of the next writes throw a storage outage (an outage that ends by itself). */
  failingWrites: number;
  /** When set, every request is throttled with this many seconds. */
  throttle: number | null;
  /** Span ids `write` refuses (as a store would a duplicate), with the reason. */
  refuse: Map<string, string>;
  close(): Promise<void>;
}

const KEYS: Record<string, string> = { 'key-alpha': 'alpha', 'key-beta': 'beta' };

/** Start the handler with `limits` over the defaults; `now` fixes the receiving clock. */
export async function startIngestServer(
  options: { limits?: Partial<OtlpLimits>; now?: () => number; storageRetryAfterSeconds?: number } = {},
): Promise<IngestServer> {
  const state = { stored: [], requests: [], writes: 0, fault: false, failingWrites: 0, throttle: null, refuse: new Map() } as Pick<
    IngestServer,
    'stored' | 'requests' | 'writes' | 'fault' | 'failingWrites' | 'throttle' | 'refuse'
  >;
  const app = express();
  app.post(
    '/v1/traces',
    (req, res, next) => {
      const seen = { contentType: req.header('content-type') ?? '', contentEncoding: req.header('content-encoding') ?? '', status: 0 };
      state.requests.push(seen);
      res.once('finish', () => {
        seen.status = res.statusCode;
      });
      next();
    },
    createOtlpTracesHandler({
      limits: options.limits,
      now: options.now,
      storageRetryAfterSeconds: options.storageRetryAfterSeconds,
      authenticate(req) {
        const key = req.header('x-api-key');
        if (key === 'key-readonly') return { status: 403, code: 'forbidden', detail: 'this key has no traces:write scope' };
        const project = key ? KEYS[key] : undefined;
        return project ? { project } : { status: 401, code: 'unauthorized', detail: 'send a Platform key in X-API-Key' };
      },
      throttle: () => state.throttle,
      async write(project, spans) {
        state.writes++;
        if (state.failingWrites > 0) state.failingWrites--;
        else if (!state.fault) return store(project, spans);
        throw new StorageUnavailableError('the trace store is unavailable: the connection failed; retry later');
      },
    }),
  );
  function store(project: string, spans: IngestedSpan[]): { rejected: RejectedSpan[] } {
    const rejected: RejectedSpan[] = [];
    for (const span of spans) {
      const reason = state.refuse.get(span.span_id);
      if (reason) rejected.push({ span_id: span.span_id, reason });
      else state.stored.push({ project, span });
    }
    return { rejected };
  }
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
