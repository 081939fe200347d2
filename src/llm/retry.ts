/**
 * When to retry a provider call and how long to wait: 429 and 5xx (and transport failures) are retried with
 * exponential backoff and full jitter; a `retry-after-ms` or `Retry-After` header (seconds or an HTTP date) replaces
 * the backoff for that wait. A server asking for a longer wait than `maxDelayMs` is not waited on: the call fails at
 * once with the requested delay in the message, instead of hanging a run for an hour.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (default 2, so at most 3 requests). */
  maxRetries: number;
  /** First backoff step in ms (default 500); step n waits up to base * 2^n. */
  baseDelayMs: number;
  /** Longest wait agentkit accepts, backoff or Retry-After (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 30_000 };

/** True for the statuses a later attempt may fix: 408, 409 (OpenAI's lock contention), 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait a response asks for, in ms, or null when it asks for none. Reads `retry-after-ms` (OpenAI) first, then
 * `Retry-After` as seconds or as an HTTP date relative to `now`.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The backoff before retry number `retry` (0-based): a random wait in [0, base * 2^retry], capped. */
export function backoffMs(policy: RetryPolicy, retry: number, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Wait `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 && !signal?.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
