/**
 * Every error agentkit raises on purpose. Each has a stable snake_case `code` from the contract (TypeSpec enum
 * `ErrorCode`), and one table maps each code to its HTTP status and CLI exit code, so the SDK, the CLI and the HTTP
 * surfaces report the same failure the same way.
 */
import type { ErrorCode } from '../generated/errors.js';
import { maskCredentials } from './config/redact.js';

export type { ErrorCode };

/** How a code surfaces: the HTTP status of its error body and the exit code of a CLI command that fails with it. */
export interface ErrorMapping {
  readonly status: number;
  readonly exit: number;
}

/**
 * The one table. Exit codes: 2 for misuse the caller can fix by changing the invocation (usage errors, a resume that
 * lost the race, malformed input), 1 for everything else. `eval run` adds its own gate codes (1 failed, 3 invalid).
 * Adding a code to the contract without mapping it here is a compile error.
 */
export const errorTable = {
  invalid_json: { status: 400, exit: 2 },
  validation_failed: { status: 400, exit: 2 },
  empty_input: { status: 400, exit: 2 },
  streaming_unsupported: { status: 400, exit: 2 },
  unauthorized: { status: 401, exit: 1 },
  payload_too_large: { status: 413, exit: 2 },
  guardrail_blocked: { status: 422, exit: 1 },
  internal_error: { status: 500, exit: 1 },
  not_found: { status: 404, exit: 1 },
  method_not_allowed: { status: 405, exit: 1 },
  unsupported_media_type: { status: 415, exit: 2 },
  headers_too_large: { status: 431, exit: 2 },
  request_timeout: { status: 408, exit: 1 },
  storage_unavailable: { status: 503, exit: 1 },
  invalid_idempotency_key: { status: 400, exit: 2 },
  idempotency_key_in_use: { status: 409, exit: 2 },
  idempotency_key_mismatch: { status: 422, exit: 2 },
  not_authenticated: { status: 401, exit: 1 },
  invalid_credentials: { status: 401, exit: 1 },
  csrf_failed: { status: 403, exit: 1 },
  too_many_attempts: { status: 429, exit: 1 },
  execution_not_found: { status: 404, exit: 1 },
  trace_not_found: { status: 404, exit: 1 },
  trace_ambiguous: { status: 409, exit: 2 },
  fork_not_found: { status: 404, exit: 1 },
  fork_not_rerun: { status: 409, exit: 1 },
  no_runner: { status: 503, exit: 1 },
  not_implemented: { status: 422, exit: 2 },
  already_resumed: { status: 409, exit: 2 },
  execution_busy: { status: 409, exit: 2 },
  run_stopped: { status: 503, exit: 1 },
  chain_checkpoint_error: { status: 409, exit: 1 },
  chain_resume_error: { status: 409, exit: 2 },
  chain_error: { status: 500, exit: 1 },
  chain_cycle_error: { status: 500, exit: 1 },
  chain_routing_error: { status: 500, exit: 1 },
  idempotency_error: { status: 500, exit: 1 },
  store_version_error: { status: 500, exit: 1 },
  invalid_schema_name: { status: 400, exit: 2 },
  max_iterations_exceeded: { status: 500, exit: 1 },
  swarm_error: { status: 500, exit: 1 },
  tool_execution_error: { status: 500, exit: 1 },
  llm_provider_error: { status: 502, exit: 1 },
  ssrf_blocked: { status: 403, exit: 1 },
  replay_error: { status: 400, exit: 2 },
  reconstruction_failed: { status: 422, exit: 1 },
  eval_error: { status: 400, exit: 3 },
  invalid_api_key: { status: 401, exit: 1 },
  forbidden: { status: 403, exit: 1 },
  rate_limited: { status: 429, exit: 1 },
  checkpoint_not_found: { status: 404, exit: 1 },
  platform_error: { status: 502, exit: 1 },
  usage_error: { status: 400, exit: 2 },
  target_load_error: { status: 500, exit: 2 },
  config_error: { status: 500, exit: 2 },
} as const satisfies Record<ErrorCode, ErrorMapping>;

/** Base of every agentkit error: names itself after its class and carries a stable code. */
export class AgentkitError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    // Messages may quote what a provider or a tool said, and that may quote a key: registered secrets and credential
    // shapes (a `ghp_` token, a JWT, an `sk-` key) never survive into a message, so never into a log, an HTTP or MCP
    // error body or a span's exception event (docs/adr/0010).
    super(maskCredentials(message), options);
    this.name = new.target.name;
    this.code = code;
  }

  /** HTTP status for this error's code. */
  get status(): number {
    return errorTable[this.code].status;
  }

  /** CLI exit code for this error's code. */
  get exitCode(): number {
    return errorTable[this.code].exit;
  }
}

/** Invalid configuration or arguments given to an SDK function (the caller's mistake). */
export class ConfigError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('config_error', message, options);
  }
}

/** Input that does not match the contract; `issues` lists every failed check. */
export class ValidationError extends AgentkitError {
  readonly issues: ReadonlyArray<{ path: string; message: string }>;

  constructor(message: string, issues: ReadonlyArray<{ path: string; message: string }> = []) {
    super('validation_failed', message);
    this.issues = issues;
  }
}

/** A stored row, trace or resource does not exist. */
export class NotFoundError extends AgentkitError {
  constructor(code: 'not_found' | 'execution_not_found' | 'trace_not_found' | 'fork_not_found' | 'checkpoint_not_found', message: string) {
    super(code, message);
  }
}

/**
 * A trace id that is no stored trace's own names the caller's trace of several stored runs (docs/adr/0009): the
 * message lists each run's own trace id, and `runs` holds them.
 */
export class AmbiguousTraceError extends AgentkitError {
  readonly runs: readonly string[];

  constructor(message: string, runs: readonly string[]) {
    super('trace_ambiguous', message);
    this.runs = runs;
  }
}

/** The operation is deliberately unsupported; the message says what to use instead. */
export class NotImplementedError extends AgentkitError {
  constructor(message: string) {
    super('not_implemented', message);
  }
}

/** Turn any thrown value into an Error, keeping Errors as they are. */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (typeof value === 'string') return new Error(value);
  try {
    return new Error(JSON.stringify(value));
  } catch {
    return new Error(String(value));
  }
}

/** The error body every HTTP surface writes: `{ detail, code }`. */
export function errorBody(error: AgentkitError): { detail: string; code: ErrorCode } {
  return { detail: error.message, code: error.code };
}
