/**
 * What an AI SDK model throws, as agentkit reports it: every failure is an LLMProviderError naming the provider, with
 * the HTTP status when there was one (`APICallError.statusCode`) and the endpoint without its query string. The text
 * is the provider's one-line reason, at most 300 characters; registered secrets are masked by the error itself, and
 * nothing from the request (body, headers) is quoted. Only a failure the AI SDK marks retryable (`isRetryable`: 408,
 * 409, 429, 5xx, transport failures) is tried again.
 */
import { APICallError } from '@ai-sdk/provider';
import { LLMProviderError } from '../errors.js';
import { excerpt, safeUrl } from '../http.js';
import { backoffMs, retryAfterMs, type RetryPolicy } from '../retry.js';

/**
 * `error` (thrown by `doGenerate`, `doStream` or the stream) as an LLMProviderError; one already is passes through.
 * `note` is appended to the message (why agentkit stopped retrying).
 */
export function providerError(provider: string, error: unknown, attempts: number, note = ''): LLMProviderError {
  if (error instanceof LLMProviderError) return error;
  const tried = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (APICallError.isInstance(error)) {
    const where = safeUrl(error.url);
    const reason = excerpt(error.message) || '(no message)';
    const message =
      error.statusCode !== undefined
        ? `${provider}: HTTP ${error.statusCode} from ${where}${tried}: ${reason}${note}`
        : `${provider}: request failed: ${reason} (${where}${tried})${note}`;
    return new LLMProviderError(provider, error.statusCode ?? null, message, { cause: error, attempts });
  }
  // The AI SDK's own errors name themselves (`AI_LoadAPIKeyError`, `AI_InvalidPromptError`, ...).
  const what = error instanceof Error ? `${error.name || 'Error'}: ${excerpt(error.message)}` : excerpt(String(error));
  return new LLMProviderError(provider, null, `${provider}: ${what}${tried}${note}`, { cause: error, attempts });
}

/** What to do after attempt number `attempt` (1-based) failed with `error`. */
export type RetryDecision = { retry: true; waitMs: number } | { retry: false; note: string };

/**
 * Retry a retryable failure while attempts remain, after the wait the response asks for (`retry-after-ms`,
 * `Retry-After`) or else the policy's backoff; a response asking for longer than `maxDelayMs` is not waited on.
 */
export function retryDecision(error: unknown, policy: RetryPolicy, attempt: number): RetryDecision {
  if (!APICallError.isInstance(error) || !error.isRetryable || attempt > policy.maxRetries) return { retry: false, note: '' };
  const asked = error.responseHeaders ? retryAfterMs(new Headers(error.responseHeaders)) : null;
  if (asked !== null && asked > policy.maxDelayMs) {
    return {
      retry: false,
      note: ` (the server asks to retry after ${Math.ceil(asked / 1000)} s, longer than the ${policy.maxDelayMs} ms agentkit waits)`,
    };
  }
  return { retry: true, waitMs: asked ?? backoffMs(policy, attempt - 1) };
}
