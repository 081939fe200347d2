/**
 * The typed Platform client: openapi-fetch over the generated `spec/platform` contract. Every call sends the key in
 * the `X-API-Key` header (never in a URL, a log line or an error), has a timeout, and turns each failure into one
 * clear error: 401 PlatformAuthError, 403 PlatformForbiddenError, anything else PlatformError (with `status`, null
 * when unreachable). Transport failures, timeouts, 429 and 5xx are retried with exponential backoff before failing.
 */
import type { Client } from 'openapi-fetch';
import { createPlatformClient, type components, type paths } from '../../generated/clients/platform.js';
import { registerSecret } from '../config/secrets.js';
import { VERSION } from '../version.js';
import { normalizeTarget } from './credentials.js';
import { PlatformAuthError, PlatformError, PlatformForbiddenError } from './errors.js';

export type PlatformSchemas = components['schemas'];
export type WireCheckpoint = PlatformSchemas['WireCheckpoint'];
export type IngestResult = PlatformSchemas['IngestResult'];
export type AuthCheck = PlatformSchemas['AuthCheck'];
export type PlatformTrace = PlatformSchemas['PlatformTrace'];
export type ExecutionClaim = PlatformSchemas['ExecutionClaim'];
export type ClaimRecord = PlatformSchemas['ClaimRecord'];
/** The Platform's lease of an execution (ADR 0054). */
export type ExecutionLease = PlatformSchemas['ExecutionLease'];

/** A lease request's answer: granted, or the lease in force elsewhere. */
export interface LeaseOutcome {
  won: boolean;
  lease: ExecutionLease;
}

/** A claim's answer (ADR 0054): `won` with the claim in force (ours), or not, with the other claim in force. */
export interface ClaimOutcome {
  won: boolean;
  record: ClaimRecord;
}

export interface PlatformClientOptions {
  apiKey: string;
  /** Platform base URL (`http://` or `https://`), without `/public/v1`. */
  target: string;
  /** Per-attempt timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Attempts for retryable failures (default 3; 1 disables retries). */
  attempts?: number;
  /** First backoff in ms, doubled per retry (default 500). */
  backoffMs?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

const API_PREFIX = '/public/v1';

/** Typed access to the Platform routes agentkit uses. */
export class PlatformClient {
  readonly target: string;
  private readonly http: Client<paths>;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(options: PlatformClientOptions) {
    this.target = normalizeTarget(options.target);
    this.apiKey = options.apiKey;
    registerSecret(options.apiKey);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.attempts = Math.max(1, options.attempts ?? 3);
    this.backoffMs = options.backoffMs ?? 500;
    const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
    this.http = createPlatformClient({
      baseUrl: this.target,
      headers: { 'user-agent': `agentkit-ts/${VERSION}` },
      fetch: (request: Request) => baseFetch(request),
    });
  }

  /** `GET /auth/check`: who the key belongs to. */
  async authCheck(): Promise<AuthCheck> {
    return this.call('check the API key', (signal) =>
      this.http.GET(`${API_PREFIX}/auth/check`, { params: { header: { 'X-API-Key': this.apiKey } }, signal }),
    ) as Promise<AuthCheck>;
  }

  /** `POST /checkpoints/ingest`: accepted ids and rows rejected on payload grounds. */
  async ingestCheckpoints(checkpoints: WireCheckpoint[], project?: string | null, options: { attempts?: number } = {}): Promise<IngestResult> {
    return this.call(
      'replicate checkpoints',
      (signal) =>
        this.http.POST(`${API_PREFIX}/checkpoints/ingest`, {
          params: { header: { 'X-API-Key': this.apiKey } },
          body: { ...(project ? { project } : {}), checkpoints },
          signal,
        }),
      options.attempts,
    ) as Promise<IngestResult>;
  }

  /** `GET /checkpoints/{execution_id}/latest`; null when the Platform holds none. */
  async latestCheckpoint(executionId: string): Promise<WireCheckpoint | null> {
    return this.call(
      'fetch the latest checkpoint',
      (signal) =>
        this.http.GET(`${API_PREFIX}/checkpoints/{execution_id}/latest`, {
          params: { header: { 'X-API-Key': this.apiKey }, path: { execution_id: executionId } },
          signal,
        }),
      undefined,
      true,
    ) as Promise<WireCheckpoint | null>;
  }

  /** `GET /checkpoints/{execution_id}/history`: every replicated row, oldest first; null when the Platform holds none. */
  async checkpointHistory(executionId: string): Promise<WireCheckpoint[] | null> {
    const history = (await this.call(
      'fetch the checkpoints',
      (signal) =>
        this.http.GET(`${API_PREFIX}/checkpoints/{execution_id}/history`, {
          params: { header: { 'X-API-Key': this.apiKey }, path: { execution_id: executionId } },
          signal,
        }),
      undefined,
      true,
    )) as PlatformSchemas['CheckpointHistory'] | null;
    return history ? history.checkpoints : null;
  }

  /**
   * `POST /executions/{execution_id}/claim` (ADR 0054): claim one pause of a replicated execution. Retries (transport
   * failures, timeouts, 5xx) resend the same `claim_id`, so a retry after a lost response is answered `won`; a 409
   * `already_resumed` is an answer, not a failure: `won: false` with the claim in force.
   */
  async claimExecution(executionId: string, claim: ExecutionClaim): Promise<ClaimOutcome> {
    const answer = (await this.call(
      'claim the execution',
      (signal) =>
        this.http.POST(`${API_PREFIX}/executions/{execution_id}/claim`, {
          params: { header: { 'X-API-Key': this.apiKey }, path: { execution_id: executionId } },
          body: claim,
          signal,
        }),
      undefined,
      false,
      true,
    )) as ClaimRecord | { conflict: { claim: ClaimRecord } };
    return 'conflict' in answer ? { won: false, record: answer.conflict.claim } : { won: true, record: answer };
  }

  /**
   * `POST /executions/{execution_id}/lease` (ADR 0054): lease a replicated execution to continue it after a crash. A
   * 409 `execution_busy` is an answer: `won: false` with the lease in force (another host continues it, or its rows
   * arrived within the lease time).
   */
  async leaseExecution(executionId: string, request: PlatformSchemas['ExecutionLeaseRequest']): Promise<LeaseOutcome> {
    const answer = (await this.call(
      'lease the execution',
      (signal) =>
        this.http.POST(`${API_PREFIX}/executions/{execution_id}/lease`, {
          params: { header: { 'X-API-Key': this.apiKey }, path: { execution_id: executionId } },
          body: request,
          signal,
        }),
      undefined,
      false,
      true,
    )) as ExecutionLease | { conflict: { lease: ExecutionLease } };
    return 'conflict' in answer ? { won: false, lease: answer.conflict.lease } : { won: true, lease: answer };
  }

  /** `POST /eval/runs/ingest`. */
  async ingestEvalRuns(runs: PlatformSchemas['ExportedEvalRun'][], project?: string | null): Promise<IngestResult> {
    return this.call('export eval runs', (signal) =>
      this.http.POST(`${API_PREFIX}/eval/runs/ingest`, {
        params: { header: { 'X-API-Key': this.apiKey } },
        body: { ...(project ? { project } : {}), runs },
        signal,
      }),
    ) as Promise<IngestResult>;
  }

  /** `GET /traces/{trace_id}`; null when the Platform holds no such trace. */
  async getTrace(traceId: string): Promise<PlatformTrace | null> {
    return this.call(
      'fetch the trace',
      (signal) =>
        this.http.GET(`${API_PREFIX}/traces/{trace_id}`, {
          params: { header: { 'X-API-Key': this.apiKey }, path: { trace_id: traceId } },
          signal,
        }),
      undefined,
      true,
    ) as Promise<PlatformTrace | null>;
  }

  /**
   * One call with timeout, retries and error mapping; `notFoundIsNull` turns a 404 into null, `conflictIsAnswer` a 409
   * carrying a `claim` or a `lease` into `{ conflict: body }`.
   */
  private async call(
    what: string,
    send: (signal: AbortSignal) => Promise<{ data?: unknown; error?: unknown; response: Response }>,
    attempts = this.attempts,
    notFoundIsNull = false,
    conflictIsAnswer = false,
  ): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      let failure: PlatformError;
      try {
        const { data, error, response } = await send(AbortSignal.timeout(this.timeoutMs));
        if (response.ok) return data;
        if (response.status === 404 && notFoundIsNull) return null;
        if (response.status === 409 && conflictIsAnswer && error && typeof error === 'object' && ('claim' in error || 'lease' in error))
          return { conflict: error };
        const detail = errorDetail(error);
        if (response.status === 401) throw new PlatformAuthError(this.target);
        if (response.status === 403) throw new PlatformForbiddenError(this.target, detail ?? 'missing scope');
        failure = new PlatformError(
          `Platform at ${this.target} could not ${what}: HTTP ${response.status}${detail ? `: ${detail}` : ''}`,
          response.status,
          detail,
        );
      } catch (error) {
        if (!(error instanceof Error) || error instanceof PlatformAuthError || error instanceof PlatformForbiddenError) throw error;
        if (error instanceof PlatformError) failure = error;
        else {
          const reason = error.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : transportReason(error);
          failure = new PlatformError(`Platform at ${this.target} is unreachable (${reason}); could not ${what}`, null, null, { cause: error });
        }
      }
      if (!failure.transient || attempt >= attempts) throw failure;
      await sleep(this.backoffMs * 2 ** (attempt - 1));
    }
  }
}

function errorDetail(error: unknown): string | null {
  if (error && typeof error === 'object' && typeof (error as { detail?: unknown }).detail === 'string') return (error as { detail: string }).detail;
  return null;
}

/** `fetch failed` hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, ...). */
function transportReason(error: Error): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
