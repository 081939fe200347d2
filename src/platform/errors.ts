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

/**
 * The Platform that arbitrates a replicated execution (docs/adr/0054) could not be reached, so the pause is not
 * decided here: deciding alone could contradict a decision another host made through the Platform. Names the target
 * and the override (`--offline-decision`, `{ offlineDecision: true }`). Exit 1 (a `platform_error`).
 */
export class PlatformUnavailable extends PlatformError {
  /** `decide`: a pause's decision (the override applies); `continue`: a crashed run's continuation (retried later). */
  constructor(target: string, executionId: string, cause: string, what: 'decide' | 'continue' = 'decide') {
    super(
      what === 'decide'
        ? `the Platform at ${target} cannot be reached to arbitrate execution '${executionId}' (it was replicated, so another host may decide it): ${cause}. To decide on this host alone, pass --offline-decision (SDK: { offlineDecision: true }); a conflicting decision made through the Platform will then be quarantined here`
        : `the Platform at ${target} cannot be reached to lease execution '${executionId}' (it was replicated, so another host may be running it): ${cause}. Nothing was run; try again once the Platform answers`,
      null,
    );
  }
}
