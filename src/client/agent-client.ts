/**
 * A typed client for a served agent (`agentkit agent serve`), on the generated contract with openapi-fetch. Results
 * are values, never thrown for HTTP errors: `{ data }` on success or `{ error }` carrying the contract's error body
 * (typed per status: `validation_failed`, `unauthorized`, `payload_too_large`, ...) and the HTTP status. Network
 * failures (server down, connection reset) do throw.
 */
import { createServedAgentClient, readRunStreamEvents, type components, type paths } from '../../generated/clients/served-agent.js';
import type { Client } from 'openapi-fetch';

type Schemas = components['schemas'];

/** Any error body the served agent can answer with. */
export type AgentErrorBody =
  | Schemas['InvalidJsonError']
  | Schemas['ValidationFailedError']
  | Schemas['EmptyInputError']
  | Schemas['StreamingUnsupportedError']
  | Schemas['UnauthorizedError']
  | Schemas['PayloadTooLargeError']
  | Schemas['GuardrailBlockedError']
  | Schemas['InvalidIdempotencyKeyError']
  | Schemas['IdempotencyKeyInUseError']
  | Schemas['IdempotencyKeyMismatchError']
  | Schemas['NotFoundError']
  | Schemas['InternalError']
  | { detail: string; code: Schemas['ErrorCode'] };

/** A failed call: the HTTP status and the contract's error body. */
export interface AgentClientError {
  status: number;
  body: AgentErrorBody;
}

export type Result<T> = { data: T; error?: undefined } | { data?: undefined; error: AgentClientError };

export interface AgentClientOptions {
  /** Where the agent is served, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** Bearer token, when the server was started with `--auth-token` or AGENTKIT_SERVE_TOKEN. */
  token?: string;
  /** A fetch implementation (default: the global one). Tests inject one; proxies and mTLS agents go here too. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Per-call options of `run` and `stream`. */
export interface RunCallOptions {
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
  async health(): Promise<Result<Schemas['HealthResponse']>> {
    const { data, error, response } = await this.http.GET('/health');
    return data !== undefined ? { data } : { error: { status: response.status, body: asErrorBody(error, response) } };
  }

  /** Run the agent once. A paused run is a success with `status: 'paused'` and its `pending_interrupt`. */
  async run(input: string, options: RunCallOptions = {}): Promise<Result<Schemas['RunResponse']>> {
    const { data, error, response } = await this.http.POST('/run', { body: { input }, params: keyHeader(options) });
    return data !== undefined ? { data } : { error: { status: response.status, body: asErrorBody(error, response) } };
  }

  /**
   * Stream an Agent's run. On success, `data` iterates the events in order (`delta`, `tool_call`, `paused`,
   * `error`, `done`), each validated against the contract; a malformed event throws `StreamEventError`.
   */
  async stream(input: string, options: RunCallOptions = {}): Promise<Result<AsyncIterable<Schemas['RunStreamEvent']>>> {
    const { data, error, response } = await this.http.POST('/run/stream', { body: { input }, params: keyHeader(options), parseAs: 'stream' });
    if (error !== undefined || !data) return { error: { status: response.status, body: asErrorBody(error, response) } };
    return { data: { [Symbol.asyncIterator]: () => readRunStreamEvents(data) } };
  }

  /**
   * Where an execution of the served runner stands (`running`, `paused`, `completed`, `failed`, `needs_attention`),
   * with its output, pending interrupt and trace ids. A 404 error for an unknown execution, another runner's, or when
   * the server serves no status (no token and no `--expose-status`).
   */
  async getRun(executionId: string): Promise<Result<Schemas['RunStatus']>> {
    const { data, error, response } = await this.http.GET('/runs/{execution_id}', { params: { path: { execution_id: executionId } } });
    return data !== undefined ? { data } : { error: { status: response.status, body: asErrorBody(error, response) } };
  }
}

function keyHeader(options: RunCallOptions): { header: { 'Idempotency-Key'?: string } } {
  return { header: options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey } };
}

/** openapi-fetch types `error` from the declared responses; an undeclared status still gets a readable body. */
function asErrorBody(error: unknown, response: Response): AgentErrorBody {
  if (error && typeof error === 'object' && 'code' in error && 'detail' in error) return error as AgentErrorBody;
  return { detail: `unexpected ${response.status} response from the served agent`, code: 'internal_error' };
}
