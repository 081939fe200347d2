/**
 * The served agent's HTTP app: `GET /health` (always open), `POST /run`, `POST /run/stream` (Agent targets only),
 * `GET /runs/{execution_id}` (with a token, or `exposeStatus`), on the generated served-agent contract with request
 * and response validation, the body cap, and bearer auth on every route but `/health` when a token is set (deny by
 * default, decided on the matched route). A run request with an `Idempotency-Key` starts at most one execution per
 * caller and key (docs/adr/0052). Handlers parse, call the target or the store, and map the outcome: no rule lives here.
 */
import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { doc } from '../../generated/schemas/served-agent.js';
import type { RunRequest, RunResponse, RunStatus } from '../../generated/types/served-agent.js';
import { runnerOfExecution } from '../agent/durable/owner.js';
import { IdempotencyKeyTaken, RunStopped } from '../durability/errors.js';
import type { StopSignal } from '../durability/run-stop.js';
import type { ExecutionStatus } from '../durability/execution-status.js';
import { readExecutionStatus } from '../durability/execution-status.js';
import { supportsIdempotencyKeys } from '../durability/idempotency-keys.js';
import { describeErrorSafely } from '../config/redact.js';
import { findStorageError } from '../store/storage-errors.js';
import { callerContextOf } from '../tracing/propagation.js';
import { AgentkitError } from '../errors.js';
import { createValidatedApp } from '../http/validated-app.js';
import { BEARER_REQUIRED, bearerMatches } from './auth.js';
import { type KeyedStep, nextKeyedStep } from './keyed-runs.js';
import { bodyFingerprint, callerOf, DEFAULT_IDEMPOTENCY_TTL_MS, parseIdempotencyKey } from './request-key.js';
import { SseStream } from './sse.js';
import type { ServeTarget, TargetStreamEvent } from './target.js';

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
  /**
   * Answer `GET /runs/{execution_id}` without a token (docs/adr/0053): anyone who can reach the port reads outputs
   * and pending contexts. With a token the route is always on, behind it.
   */
  exposeStatus?: boolean;
  /** How long an `Idempotency-Key` is kept, in ms (default 24 h; `AGENTKIT_IDEMPOTENCY_TTL` in the CLI). */
  idempotencyTtlMs?: number;
  /**
   * The server's shutdown (docs/adr/0051): runs are started under it, so a drain stops them at their next step
   * boundary; such a run answers 503 `run_stopped` with its execution id (a stream: an `error` event, `done` stopped).
   */
  stop?: StopSignal;
  /**
   * Origins whose browser pages may call the agent (`--cors-origin`, exact origins; docs/adr/0057): preflights are
   * answered before auth and validation. Empty: no CORS.
   */
  corsOrigins?: readonly string[];
}

/** The only route reachable without the token when one is set. */
export const SERVE_OPEN_ROUTES = ['GET /health'] as const;

/** Build the app for one target. */
export function createServeApp(target: ServeTarget, options: ServeAppOptions = {}): Express {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const track = options.onRequest;
  const token = options.token ?? '';
  const ttlMs = options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  const stop = options.stop;
  const underStop = <T>(fn: () => T): T => (stop ? stop.run(fn) : fn());
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
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.token ? { authenticate: (req) => (bearerMatches(req.headers.authorization, token) ? null : BEARER_REQUIRED) } : {}),
    onServerError: (error) => options.onServerError?.(error),
    routes(app) {
      app.get('/health', (_req, res) => {
        res.json({ status: 'ok' });
      });

      app.post('/run', async (req: Request, res: Response) => {
        const input = readInput(req, res);
        if (input === null) return;
        // The caller's traceparent/tracestate/baggage, when sent: the run is a child of the caller's span.
        const parent = callerContextOf(req.headers);
        try {
          const keyed = await keyedStep(target, req, res, ttlMs);
          if (keyed === false) return;
          if (keyed === null) {
            res.json(await underStop(() => target.run(input, parent)));
            return;
          }
          for (let step = keyed; ; ) {
            if (step.kind !== 'start') {
              answerRepeat(res, step);
              return;
            }
            try {
              const { executionId, within } = step;
              res.json(await underStop(() => within(() => target.run(input, parent, executionId))));
              return;
            } catch (error) {
              // Another request with the key started its run first: answer that one instead.
              if (!(error instanceof IdempotencyKeyTaken)) throw error;
              step = await nextKeyedStep(keyStore(target)!, keyedRequestOf(target, req, ttlMs));
            }
          }
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
        let keyed: KeyedStep | null | false;
        try {
          keyed = await keyedStep(target, req, res, ttlMs);
        } catch (error) {
          sendRunFailure(res, error, options.onServerError);
          return;
        }
        if (keyed === false) return;
        for (let step = keyed; ; ) {
          if (step !== null && step.kind !== 'start') {
            await streamRepeat(res, step);
            return;
          }
          const started = await streamRun(target, input, req, res, options.onServerError, step, underStop);
          if (started !== 'key_taken') return;
          try {
            step = await nextKeyedStep(keyStore(target)!, keyedRequestOf(target, req, ttlMs));
          } catch (error) {
            sendRunFailure(res, error, options.onServerError);
            return;
          }
        }
      });

      app.get('/runs/:execution_id', async (req: Request, res: Response) => {
        if (!token && !options.exposeStatus) {
          sendError(
            res,
            404,
            'not_found',
            'GET /runs/{execution_id} is off: start the server with --auth-token, or with --expose-status to serve it without one',
          );
          return;
        }
        const executionId = String(req.params.execution_id);
        try {
          const status = target.checkpointer ? await readExecutionStatus(target.checkpointer, executionId) : null;
          const owner = status ? runnerOfExecution(status.rows) : null;
          // Only this runner's executions: another runner's on a shared store is as unknown as none at all.
          if (!status || !owner || owner.kind !== target.kind || owner.name !== target.name) {
            sendError(res, 404, 'not_found', `no execution '${executionId}' of ${target.kind} '${target.name}'`);
            return;
          }
          res.json(toRunStatus(status));
        } catch (error) {
          sendRunFailure(res, error, options.onServerError);
        }
      });
    },
  });
}

/** The contract's `RunStatus` of a status read from the store. */
function toRunStatus(status: ExecutionStatus): RunStatus {
  const { rows: _rows, ...body } = status;
  return body;
}

/** The store of the target's keys, or null when its runner has none that records them. */
function keyStore(target: ServeTarget) {
  const store = target.checkpointer;
  return store && supportsIdempotencyKeys(store) ? store : null;
}

function keyedRequestOf(target: ServeTarget, req: Request, ttlMs: number) {
  const header = req.headers['idempotency-key'];
  const parsed = parseIdempotencyKey(Array.isArray(header) ? header.join(', ') : String(header));
  return {
    caller: callerOf(`${target.kind}:${target.name}`, req.headers.authorization),
    key: parsed.ok ? parsed.key : '',
    fingerprint: bodyFingerprint(req.body),
    ttlMs,
  };
}

/**
 * The request's `Idempotency-Key` step: null without the header, false after answering 400 (malformed, or a runner
 * that records no keys: honouring the header is impossible, and ignoring it would run a retry twice).
 */
async function keyedStep(target: ServeTarget, req: Request, res: Response, ttlMs: number): Promise<KeyedStep | null | false> {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return null;
  const parsed = parseIdempotencyKey(Array.isArray(header) ? header.join(', ') : header);
  if (!parsed.ok) {
    sendError(res, 400, 'invalid_idempotency_key', parsed.detail);
    return false;
  }
  const store = keyStore(target);
  if (!store) {
    sendError(
      res,
      400,
      'invalid_idempotency_key',
      `${target.kind} '${target.name}' has no checkpointer, so an Idempotency-Key cannot be honoured; give the runner a checkpointer or send no key`,
    );
    return false;
  }
  return nextKeyedStep(store, keyedRequestOf(target, req, ttlMs));
}

/** A repeat answered on `POST /run`: the execution as `/run` would have answered it, 409 running, 422 mismatch. */
function answerRepeat(res: Response, step: Exclude<KeyedStep, { kind: 'start' }>): void {
  if (step.kind === 'mismatch') {
    sendError(res, 422, 'idempotency_key_mismatch', 'this Idempotency-Key was first sent with a different request body; nothing was run');
    return;
  }
  if (step.kind === 'busy') {
    res.status(409).json({
      detail: `the execution this Idempotency-Key started ('${step.executionId}') is still running; nothing new was started, retry later`,
      code: 'idempotency_key_in_use',
      execution_id: step.executionId,
    });
    return;
  }
  const { status } = step;
  if (status.status === 'failed') {
    sendError(res, 500, 'internal_error', `the run failed: ${oneLine(status.error ?? 'the run failed')}`);
    return;
  }
  res.json(repeatResponse(status));
}

/** A repeat spends nothing: `tokens_used` 0, `latency_ms` 0; the trace is the execution's latest. */
function repeatResponse(status: ExecutionStatus): RunResponse {
  return {
    output: status.status === 'completed' ? (status.output ?? '') : '',
    latency_ms: 0,
    tokens_used: 0,
    trace_id: status.trace_ids.at(-1) ?? null,
    status: status.status === 'paused' ? 'paused' : 'completed',
    execution_id: status.execution_id,
    pending_interrupt: status.pending_interrupt,
  };
}

/** A repeat answered on `POST /run/stream`: one `done` (after `paused` or `error`), never a replay of the tokens. */
async function streamRepeat(res: Response, step: Exclude<KeyedStep, { kind: 'start' }>): Promise<void> {
  if (step.kind !== 'repeat') {
    answerRepeat(res, step);
    return;
  }
  const { status } = step;
  const sse = new SseStream(res);
  if (status.status === 'paused' && status.pending_interrupt) {
    const { reason, context } = status.pending_interrupt;
    await sse.send({ type: 'paused', reason, execution_id: status.execution_id, context });
  }
  if (status.status === 'failed') await sse.send({ type: 'error', detail: `the run failed: ${oneLine(status.error ?? '')}`, code: 'internal_error' });
  const ended = status.status === 'paused' || status.status === 'failed' ? status.status : 'completed';
  await sse.send({ type: 'done', execution_id: status.execution_id, trace_id: status.trace_ids.at(-1) ?? null, status: ended });
  sse.end();
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 500 ? `${line.slice(0, 500)}...` : line;
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

/**
 * Stream one run (a keyed one inside its claim). Returns `key_taken`, having written nothing, when another request
 * with the same key started its run first (the first write of this one was refused before any event).
 */
async function streamRun(
  target: ServeTarget,
  input: string,
  req: Request,
  res: Response,
  onServerError: ((e: unknown) => void) | undefined,
  keyed: Extract<KeyedStep, { kind: 'start' }> | null,
  underStop: <T>(fn: () => T) => T,
): Promise<'key_taken' | undefined> {
  const abort = new AbortController();
  req.once('close', () => abort.abort());
  res.once('close', () => abort.abort());
  // The id is chosen here, so the `done` after a failure still names the execution.
  const executionId = keyed?.executionId ?? randomUUID();
  const within = keyed?.within ?? (<T>(fn: () => T): T => fn());
  const iterator = target.stream!(input, abort.signal, callerContextOf(req.headers), executionId)[Symbol.asyncIterator]();
  const next = () => underStop(() => within(() => iterator.next()));
  // A blocking input guardrail refuses before the first event: answer it as a plain 422, not a stream.
  let first: IteratorResult<TargetStreamEvent>;
  try {
    first = await next();
  } catch (error) {
    if (error instanceof IdempotencyKeyTaken) return 'key_taken';
    sendRunFailure(res, error, onServerError);
    return undefined;
  }
  const sse = new SseStream(res);
  // The target's own `done` when it sent one; else how the stream went.
  let done: TargetStreamEvent | null = null;
  let ended: 'completed' | 'paused' | 'failed' | 'stopped' = 'completed';
  try {
    for (let step = first; !step.done; step = await next()) {
      if (sse.isClosed) {
        await within(() => iterator.return?.());
        return undefined;
      }
      if (step.value.type === 'done') done = step.value;
      else await sse.send(step.value);
      if (step.value.type === 'paused') ended = 'paused';
    }
  } catch (error) {
    const failure = runFailure(error);
    if (failure.status >= 500 && failure.code !== 'run_stopped') onServerError?.(error);
    await sse.send({ type: 'error', detail: failure.detail, code: failure.code });
    ended = failure.code === 'run_stopped' ? 'stopped' : 'failed';
    done = null;
  }
  await sse.send(done ?? { type: 'done', execution_id: executionId, trace_id: null, status: ended });
  sse.end();
  return undefined;
}

interface Failure {
  status: 422 | 500 | 503;
  code: 'guardrail_blocked' | 'internal_error' | 'storage_unavailable' | 'run_stopped';
  detail: string;
  /** The stopped run's execution (`run_stopped` only). */
  executionId?: string;
}

/**
 * A run that raised: a blocking guardrail is the caller's 422; anything else is a 500 naming the error class and
 * message (agentkit's messages never carry secrets) so the caller can report it.
 */
function runFailure(error: unknown): Failure {
  // Not a failure of the run: this replica is shutting down and another one continues it (docs/adr/0051).
  if (error instanceof RunStopped) {
    const detail = `this server is shutting down and stopped execution '${error.executionId}' ${error.atBoundary ? 'at a step boundary; another replica continues it now' : 'mid-step; another replica continues it once its lease expires'}: follow it with GET /runs/${error.executionId}`;
    return { status: 503, code: 'run_stopped', detail, executionId: error.executionId };
  }
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
  if (failure.status >= 500 && failure.code !== 'run_stopped') onServerError?.(error);
  if (failure.executionId) {
    res.status(failure.status).json({ detail: failure.detail, code: failure.code, execution_id: failure.executionId });
    return;
  }
  sendError(res, failure.status, failure.code, failure.detail);
}

function sendError(res: Response, status: number, code: string, detail: string): void {
  res.status(status).json({ detail, code });
}
