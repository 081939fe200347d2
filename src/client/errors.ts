/**
 * The error values of `AgentClient`, typed from the generated contract: per route, one member per declared status,
 * each with the bodies the contract declares for it, so `error.status === 409` narrows the body to
 * `IdempotencyKeyInUseError` and `error.body.code === 'validation_failed'` reaches `error.body.errors`. An answer the
 * contract does not declare for the route (a proxy's 502, an HTML page) is the one `unexpected` member.
 */
import type { paths } from '../../generated/types/served-agent.js';

/** The JSON bodies of the error statuses of one operation's `responses`, as `{ status, body }` members. */
type DeclaredErrors<R> = {
  [S in keyof R & number]: S extends 200
    ? never
    : R[S] extends { content: { 'application/json': infer B } }
      ? { status: S; body: B; unexpected?: false }
      : never;
}[keyof R & number];

/** An answer whose status the route does not declare, or whose body is not a contract error body. */
export interface UnexpectedResponseError {
  status: number;
  body: { detail: string; code: 'internal_error' };
  unexpected: true;
}

/** How `GET /health` can fail. */
export type HealthError = DeclaredErrors<paths['/health']['get']['responses']> | UnexpectedResponseError;
/** How `POST /run` can fail. */
export type RunError = DeclaredErrors<paths['/run']['post']['responses']> | UnexpectedResponseError;
/** How `POST /run/stream` can fail before its stream starts. */
export type StreamError = DeclaredErrors<paths['/run/stream']['post']['responses']> | UnexpectedResponseError;
/** How `GET /runs/{execution_id}` can fail. */
export type GetRunError = DeclaredErrors<paths['/runs/{execution_id}']['get']['responses']> | UnexpectedResponseError;

/** A failed call of any route: the HTTP status and the contract's error body. */
export type AgentClientError = HealthError | RunError | StreamError | GetRunError;

/** Any error body the served agent can answer with. */
export type AgentErrorBody = AgentClientError['body'];

/**
 * A `/run/stream` stream that ended (the connection closed or was reset) before its `done` event: the run's outcome
 * is unknown to the client. `GET /runs/{execution_id}`, or the request again with its `Idempotency-Key`, tells it.
 */
export class StreamCutError extends Error {
  /** How many events arrived before the cut. */
  readonly received: number;

  constructor(received: number, options?: ErrorOptions) {
    const why = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(`the /run/stream stream ended before its done event, after ${received} event${received === 1 ? '' : 's'}${why}`, options);
    this.name = 'StreamCutError';
    this.received = received;
  }
}
