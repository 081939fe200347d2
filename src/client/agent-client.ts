/**
 * A typed client for a served agent (`agentkit agent serve`), on the generated contract with openapi-fetch. Results
 * are values, never thrown for HTTP errors: `{ data }` on success or `{ error }` carrying the HTTP status and the
 * contract's error body, typed per route and status (src/client/errors.ts). Network failures (server down,
 * connection reset) and aborts (`signal`) do throw; so does a stream cut before its `done` event (`StreamCutError`).
 */
import { createServedAgentClient, readRunStreamEvents, StreamEventError, type components, type paths } from '../../generated/clients/served-agent.js';
import { doc } from '../../generated/schemas/served-agent.js';
import type { Client } from 'openapi-fetch';
import {
  type AgentClientError,
  type GetRunError,
  type HealthError,
  type RunError,
  StreamCutError,
  type StreamError,
  type UnexpectedResponseError,
} from './errors.js';

type Schemas = components['schemas'];

/** A call's outcome: `data` on success, else `error` (a member of the route's error union `E`). */
export type Result<T, E = AgentClientError> = { data: T; error?: undefined } | { data?: undefined; error: E };

export interface AgentClientOptions {
  /** Where the agent is served, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** Bearer token, when the server was started with `--auth-token` or AGENTKIT_SERVE_TOKEN. */
  token?: string;
  /** A fetch implementation (default: the global one). Tests inject one; proxies and mTLS agents go here too. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Per-call options of `getRun`. */
export interface CallOptions {
  /** Aborts the request (and a stream being read): the call rejects with the signal's reason; the server sees the disconnect. */
  signal?: AbortSignal;
}

/** Per-call options of `run` and `stream`. */
export interface RunCallOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` (docs/adr/0052): a retry with the same key and input starts nothing and answers the
   * first execution as it stands (an error with status 409 and `execution_id` while it still runs).
   */
  idempotencyKey?: string;
}

/** Typed access to `GET /health`, `POST /run`, `POST /run/stream` and `GET /runs/{execution_id}`. */
export class AgentClient {
  private readonly http: Client<paths>;
  private readonly headers: Record<string, string>;

  constructor(options: AgentClientOptions) {
    this.headers = options.token ? { authorization: `Bearer ${options.token}` } : {};
    this.http = createServedAgentClient({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: this.headers,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** Liveness; open even when the server requires a token. */
  async health(options: CallOptions = {}): Promise<Result<Schemas['HealthResponse'], HealthError>> {
    const { data, error, response } = await this.http.GET('/health', { ...signalOf(options) });
    return data !== undefined ? { data } : { error: errorOf<HealthError>('/health', 'get', error, response) };
  }

  /** Run the agent once. A paused run is a success with `status: 'paused'` and its `pending_interrupt`. */
  async run(input: string, options: RunCallOptions = {}): Promise<Result<Schemas['RunResponse'], RunError>> {
    const { data, error, response } = await this.http.POST('/run', { body: { input }, params: keyHeader(options), ...signalOf(options) });
    return data !== undefined ? { data } : { error: errorOf<RunError>('/run', 'post', error, response) };
  }

  /**
   * Stream an Agent's run. On success, `data` iterates the events in order (`delta`, `tool_call`, `paused`,
   * `error`, `done`), each validated against the contract; a malformed event throws `StreamEventError`, and a stream
   * that ends before `done` (connection closed or reset) throws `StreamCutError`.
   */
  async stream(input: string, options: RunCallOptions = {}): Promise<Result<AsyncIterable<Schemas['RunStreamEvent']>, StreamError>> {
    const { data, error, response } = await this.http.POST('/run/stream', {
      body: { input },
      params: keyHeader(options),
      parseAs: 'stream',
      ...signalOf(options),
    });
    if (error !== undefined || !data) return { error: errorOf<StreamError>('/run/stream', 'post', error, response) };
    return { data: { [Symbol.asyncIterator]: () => untilDone(readRunStreamEvents(data), options.signal) } };
  }

  /**
   * Where an execution of the served runner stands (`running`, `paused`, `completed`, `failed`, `needs_attention`),
   * with its output, pending interrupt and trace ids. A 404 error for an unknown execution, another runner's, or when
   * the server serves no status (no token and no `--expose-status`).
   */
  async getRun(executionId: string, options: CallOptions = {}): Promise<Result<Schemas['RunStatus'], GetRunError>> {
    const { data, error, response } = await this.http.GET('/runs/{execution_id}', { params: { path: { execution_id: executionId } }, ...signalOf(options) });
    return data !== undefined ? { data } : { error: errorOf<GetRunError>('/runs/{execution_id}', 'get', error, response) };
  }
}

function keyHeader(options: RunCallOptions): { header: { 'Idempotency-Key'?: string } } {
  return { header: options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey } };
}

function signalOf(options: CallOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}

/**
 * The error value of a failed call: a status the route declares with a contract body (`{detail, code}`) is that
 * status's member; anything else is `unexpected`, with a detail naming the status.
 */
function errorOf<E>(route: keyof typeof doc.paths, method: 'get' | 'post', error: unknown, response: Response): E {
  const operation = (doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[route]![method]!;
  const declared = String(response.status) in operation.responses && response.status !== 200;
  if (declared && isErrorBody(error)) return { status: response.status, body: error } as E;
  const unexpected: UnexpectedResponseError = {
    status: response.status,
    body: { detail: `unexpected ${response.status} response from the served agent`, code: 'internal_error' },
    unexpected: true,
  };
  return unexpected as E;
}

function isErrorBody(value: unknown): value is { detail: string; code: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { detail?: unknown }).detail === 'string' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/**
 * The events of a stream, then a `StreamCutError` if it ended before `done`: by a clean close or by a reset (the
 * reader's failure is the cause). A malformed event stays a `StreamEventError`; an abort by the caller's signal
 * rejects with the signal's reason. A consumer that stops early (break) ends the reading without an error.
 */
async function* untilDone(events: AsyncGenerator<Schemas['RunStreamEvent']>, signal: AbortSignal | undefined): AsyncGenerator<Schemas['RunStreamEvent']> {
  let received = 0;
  let done = false;
  try {
    for await (const event of events) {
      received++;
      if (event.type === 'done') done = true;
      yield event;
    }
  } catch (error) {
    if (error instanceof StreamEventError) throw error;
    if (signal?.aborted) throw signal.reason;
    throw new StreamCutError(received, { cause: error });
  }
  if (!done) throw new StreamCutError(received);
}
