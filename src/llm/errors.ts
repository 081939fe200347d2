import { AgentkitError } from '../errors.js';

/**
 * A provider call failed for good: a non-retryable status, retries exhausted, a timeout, a transport failure or a
 * response that does not parse. The message names the provider and the HTTP status (when there was one); it never
 * contains a key or a header value.
 */
export class LLMProviderError extends AgentkitError {
  /** The provider name (`openai`, `anthropic`, `groq`, ...). */
  readonly provider: string;
  /** The HTTP status of the last attempt, null for timeouts, transport failures and malformed bodies of a 200. */
  readonly httpStatus: number | null;
  /** How many requests were sent. */
  readonly attempts: number;

  constructor(provider: string, httpStatus: number | null, message: string, options: ErrorOptions & { attempts?: number } = {}) {
    super('llm_provider_error', message, options);
    this.provider = provider;
    this.httpStatus = httpStatus;
    this.attempts = options.attempts ?? 1;
  }
}
