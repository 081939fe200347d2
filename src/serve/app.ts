/**
 * The served agent's HTTP app: `GET /health` (always open), `POST /run`, `POST /run/stream` (Agent targets only),
 * on the generated served-agent contract with request and response validation, the body cap, and bearer auth on
 * every route but `/health` when a token is set (deny by default, decided on the matched route). Handlers parse, call the target, and map the outcome: no rule lives here.
 */
import type { Express, Request, Response } from 'express';
import { doc } from '../../generated/schemas/served-agent.js';
import type { RunRequest } from '../../generated/types/served-agent.js';
import { describeErrorSafely } from '../config/redact.js';
import { findStorageError } from '../durability/storage-errors.js';
import { callerContextOf } from '../tracing/propagation.js';
import { AgentkitError } from '../errors.js';
import { createValidatedApp } from '../http/validated-app.js';
import { BEARER_REQUIRED, bearerMatches } from './auth.js';
import { SseStream } from './sse.js';
import type { ServeTarget } from './target.js';

/** Default request body cap: 10 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ServeAppOptions {
  /** Require `Authorization: Bearer <token>` on the run routes. */
  token?: string;
  maxBodyBytes?: number;
  /** Server-side failures (a run that raised, a response off the contract), for logging. */
  onServerError?: (error: unknown) => void;
  /** Called when a request starts and when it finishes (graceful shutdown waits for in-flight runs). */
  onRequest?: (phase: 'start' | 'end') => void;
}

/** The only route reachable without the token when one is set. */
export const SERVE_OPEN_ROUTES = ['GET /health'] as const;

/** Build the app for one target. */
export function createServeApp(target: ServeTarget, options: ServeAppOptions = {}): Express {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const track = options.onRequest;
  const token = options.token ?? '';
  return createValidatedApp({
    doc,
    maxBodyBytes,
    // Only with a tracker: a listener on every response costs each request, and nothing would hear it.
    guards: track
      ? [
          (_req, res, next) => {
            track('start');
            res.once('close', () => track('end'));
            next();
          },
        ]
      : [],
    openRoutes: SERVE_OPEN_ROUTES,
    ...(options.token ? { authenticate: (req) => (bearerMatches(req.headers.authorization, token) ? null : BEARER_REQUIRED) } : {}),
    onServerError: (error) => options.onServerError?.(error),
    routes(app) {
      app.get('/health', (_req, res) => {
        res.json({ status: 'ok' });
      });

      app.post('/run', async (req: Request, res: Response) => {
        const input = readInput(req, res);
        if (input === null) return;
        try {
          // The caller's traceparent/tracestate/baggage, when sent: the run is a child of the caller's span.
          res.json(await target.run(input, callerContextOf(req.headers)));
        } catch (error) {
          sendRunFailure(res, error, options.onServerError);
        }
      });

      app.post('/run/stream', async (req: Request, res: Response) => {
        if (!target.stream) {
          sendError(res, 400, 'streaming_unsupported', `Streaming is only supported for Agent targets; '${target.name}' is a ${target.kind}.`);
          return;
        }
        const input = readInput(req, res);
        if (input === null) return;
        await streamRun(target, input, req, res, options.onServerError);
      });
    },
  });
}

/** The trimmed-nonempty input, or null after answering 400 `empty_input`. */
function readInput(req: Request, res: Response): string | null {
  const { input } = req.body as RunRequest;
  if (input.trim() === '') {
    sendError(res, 400, 'empty_input', 'input must be non-empty');
    return null;
  }
  return input;
}

async function streamRun(target: ServeTarget, input: string, req: Request, res: Response, onServerError?: (e: unknown) => void): Promise<void> {
  const abort = new AbortController();
  req.once('close', () => abort.abort());
  res.once('close', () => abort.abort());
  // A blocking input guardrail refuses before the first event: answer it as a plain 422, not a stream.
  const iterator = target.stream!(input, abort.signal, callerContextOf(req.headers))[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await iterator.next();
  } catch (error) {
    sendRunFailure(res, error, onServerError);
    return;
  }
  const sse = new SseStream(res);
  try {
    for (let step = first; !step.done; step = await iterator.next()) {
      if (sse.isClosed) {
        await iterator.return?.();
        return;
      }
      await sse.send(step.value as Parameters<SseStream['send']>[0]);
    }
  } catch (error) {
    const failure = runFailure(error);
    if (failure.status >= 500) onServerError?.(error);
    await sse.send({ type: 'error', detail: failure.detail, code: failure.code });
  }
  await sse.send({ type: 'done' });
  sse.end();
}

interface Failure {
  status: 422 | 500 | 503;
  code: 'guardrail_blocked' | 'internal_error' | 'storage_unavailable';
  detail: string;
}

/**
 * A run that raised: a blocking guardrail is the caller's 422; anything else is a 500 naming the error class and
 * message (agentkit's messages never carry secrets) so the caller can report it.
 */
function runFailure(error: unknown): Failure {
  if (error instanceof AgentkitError && error.code === 'guardrail_blocked') {
    return { status: 422, code: 'guardrail_blocked', detail: error.message };
  }
  // The database is down or dropped the connection: the caller may retry; the detail names no address.
  const outage = findStorageError(error);
  if (outage) return { status: 503, code: 'storage_unavailable', detail: outage.message };
  // The message may quote a tool's or a provider's text: registered secrets are masked, and it is cut to one line.
  const described = describeErrorSafely(error).replace(/\s+/g, ' ');
  return { status: 500, code: 'internal_error', detail: `the run failed: ${described.length > 500 ? `${described.slice(0, 500)}...` : described}` };
}

function sendRunFailure(res: Response, error: unknown, onServerError?: (e: unknown) => void): void {
  const failure = runFailure(error);
  if (failure.status >= 500) onServerError?.(error);
  sendError(res, failure.status, failure.code, failure.detail);
}

function sendError(res: Response, status: number, code: string, detail: string): void {
  res.status(status).json({ detail, code });
}
