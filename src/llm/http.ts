/**
 * The HTTP side of every provider: one JSON POST with a per-attempt timeout, retries on 429/5xx and transport
 * failures (see retry.ts), and failures turned into LLMProviderError naming the provider and the status. Uses Node's
 * own fetch. URLs in messages lose their query string, since some gateways carry keys there.
 */
import { LLMProviderError } from './errors.js';
import { backoffMs, isRetryableStatus, retryAfterMs, sleep, type RetryPolicy } from './retry.js';

export interface TransportOptions {
  provider: string;
  /** Per attempt: until the response is fully read, or for a stream, the longest silence between two chunks. */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Pulls a human-readable reason out of an error body (default: `error.message`, `message` or the text). */
  errorDetail?: (body: string) => string;
  /** Injected in tests of this module only; providers use the global fetch. */
  fetch?: typeof fetch;
}

/** A timer that aborts an attempt; streams push it back on every chunk. */
export class Deadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private firedFlag = false;

  constructor(
    private readonly ms: number,
    outer?: AbortSignal,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
    this.reset();
  }

  /** True once the deadline passed (as opposed to the caller aborting). */
  get fired(): boolean {
    return this.firedFlag;
  }

  /** Start the wait over (a stream chunk arrived). */
  reset(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.firedFlag = true;
      this.controller.abort(new Error('timeout'));
    }, this.ms);
  }

  /** Stop the timer (the attempt finished). */
  clear(): void {
    clearTimeout(this.timer);
  }
}

/** A successful response and the deadline still guarding its body. */
export interface Sent {
  response: Response;
  deadline: Deadline;
  attempts: number;
}

/** The URL as it may appear in a message: no query string, no credentials. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '<invalid url>';
  }
}

/**
 * POST `body` as JSON and return the first 2xx response, retrying per the policy. The caller reads the body under
 * the returned deadline and clears it. Throws LLMProviderError for a final non-2xx, a timeout or a transport failure;
 * rethrows the caller's abort reason when `signal` aborts.
 */
export async function postJson(options: TransportOptions, url: string, headers: Record<string, string>, body: unknown, signal?: AbortSignal): Promise<Sent> {
  const doFetch = options.fetch ?? fetch;
  const payload = JSON.stringify(body);
  const where = safeUrl(url);
  for (let attempt = 1; ; attempt++) {
    const deadline = new Deadline(options.timeoutMs, signal);
    let response: Response;
    try {
      response = await doFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload, signal: deadline.signal });
    } catch (error) {
      deadline.clear();
      if (signal?.aborted) throw signal.reason;
      const reason = deadline.fired ? `timed out after ${options.timeoutMs} ms` : `request failed: ${transportReason(error)}`;
      if (attempt <= options.retry.maxRetries) {
        await sleep(backoffMs(options.retry, attempt - 1), signal);
        continue;
      }
      throw new LLMProviderError(options.provider, null, `${options.provider}: ${reason} (POST ${where}, ${attempt} attempt${attempt > 1 ? 's' : ''})`, {
        cause: error,
        attempts: attempt,
      });
    }
    if (response.ok) return { response, deadline, attempts: attempt };

    const text = await readText(response, deadline, options, where, attempt, signal);
    deadline.clear();
    const detail = (options.errorDetail ?? defaultErrorDetail)(text);
    if (isRetryableStatus(response.status) && attempt <= options.retry.maxRetries) {
      const asked = retryAfterMs(response.headers);
      if (asked !== null && asked > options.retry.maxDelayMs) {
        throw new LLMProviderError(
          options.provider,
          response.status,
          `${options.provider}: HTTP ${response.status} from POST ${where}: ${detail} (the server asks to retry after ${Math.ceil(asked / 1000)} s, longer than the ${options.retry.maxDelayMs} ms agentkit waits)`,
          { attempts: attempt },
        );
      }
      await sleep(asked ?? backoffMs(options.retry, attempt - 1), signal);
      continue;
    }
    const gaveUp = isRetryableStatus(response.status) ? ` after ${attempt} attempts` : '';
    throw new LLMProviderError(options.provider, response.status, `${options.provider}: HTTP ${response.status} from POST ${where}${gaveUp}: ${detail}`, {
      attempts: attempt,
    });
  }
}

/** Read a whole body under the deadline; a timeout or transport failure becomes LLMProviderError. */
export async function readText(
  response: Response,
  deadline: Deadline,
  options: TransportOptions,
  where: string,
  attempts: number,
  signal?: AbortSignal,
): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const reason = deadline.fired ? `timed out after ${options.timeoutMs} ms reading the response` : `reading the response failed: ${transportReason(error)}`;
    throw new LLMProviderError(options.provider, response.status, `${options.provider}: ${reason} (POST ${where})`, { cause: error, attempts });
  }
}

/**
 * What to throw when reading a stream failed: provider errors and the caller's abort as they are, a passed deadline
 * as a timeout, anything else (a dropped connection) as LLMProviderError.
 */
export function streamFailure(error: unknown, deadline: Deadline, options: TransportOptions, where: string, signal?: AbortSignal): unknown {
  if (error instanceof LLMProviderError) return error;
  if (signal?.aborted) return signal.reason;
  const reason = deadline.fired ? `no data for ${options.timeoutMs} ms while streaming` : `the stream broke off: ${transportReason(error)}`;
  return new LLMProviderError(options.provider, 200, `${options.provider}: ${reason} (POST ${where})`, { cause: error });
}

/** Parse a 2xx JSON body, or fail naming the provider and what was wrong. */
export function parseJsonBody(provider: string, status: number, where: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new LLMProviderError(provider, status, `${provider}: malformed response from POST ${where}: not JSON (${excerpt(text)})`);
  }
}

/** The error message most providers put in their error bodies. */
export function defaultErrorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    // Summarised, never passed through whole: one line of at most 300 characters (registered secrets are masked by
    // the error itself).
    if (typeof parsed.error === 'object' && parsed.error && typeof parsed.error.message === 'string') return excerpt(parsed.error.message);
    if (typeof parsed.error === 'string') return excerpt(parsed.error);
    if (typeof parsed.message === 'string') return excerpt(parsed.message);
    if (typeof parsed.detail === 'string') return excerpt(parsed.detail);
  } catch {
    // Not JSON: the text itself is the best reason available.
  }
  return excerpt(body) || '(empty body)';
}

/** At most 300 characters of a body, on one line. */
export function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

function transportReason(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
