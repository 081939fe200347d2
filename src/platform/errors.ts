/**
 * Errors of Platform calls: one class per outcome, each with a one-line message that names the target but never the
 * key (the key travels only in the `X-API-Key` header, and is a registered secret in case anything echoes it).
 */
import { AgentkitError } from '../errors.js';

/** 401: the Platform does not know the key. */
export class PlatformAuthError extends AgentkitError {
  constructor(target: string) {
    super('invalid_api_key', `Invalid API key: the Platform at ${target} refused it (401)`);
  }
}

/** 403: the key is valid but may not do this. */
export class PlatformForbiddenError extends AgentkitError {
  constructor(target: string, detail: string) {
    super('forbidden', `Forbidden: the Platform at ${target} refused the request (403): ${detail}`);
  }
}

/**
 * Any other failure: `httpStatus` is the HTTP status, or null when the Platform could not be reached (connection
 * refused, DNS, timeout). `transient` is true for what a retry may fix (no response, 5xx, 429).
 */
export class PlatformError extends AgentkitError {
  readonly httpStatus: number | null;
  readonly transient: boolean;
  /** The contract's error body `detail`, when the Platform sent one. */
  readonly detail: string | null;

  constructor(message: string, status: number | null, detail: string | null = null, options?: ErrorOptions) {
    super('platform_error', message, options);
    this.httpStatus = status;
    this.detail = detail;
    this.transient = status === null || status >= 500 || status === 429;
  }
}
