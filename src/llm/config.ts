/** Options and helpers every HTTP provider shares: key lookup, timeouts, retries, header redaction. */
import { registerSecret } from '../config/secrets.js';
import { ConfigError } from '../errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';

/** Options common to the HTTP providers. */
export interface HttpModelOptions {
  model: string;
  /** The key; default: read from `apiKeyEnv` in `env`. Never serialised, never traced. */
  apiKey?: string;
  /** The variable the key is read from (default `<PROVIDER>_API_KEY`). */
  apiKeyEnv?: string;
  /** Override the provider's base URL (any gateway speaking the same protocol). */
  baseUrl?: string;
  /** Extra request headers (their values are never serialised or traced). */
  headers?: Record<string, string>;
  /** Per-attempt timeout in ms (default 60 000; for streams, the longest silence between chunks). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and transport failures (default 2). */
  maxRetries?: number;
  /** First backoff step in ms (default 500). */
  retryBaseDelayMs?: number;
  /** Longest wait accepted, backoff or Retry-After (default 30 000). */
  maxRetryDelayMs?: number;
  /** Where keys are read from (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/** The retry policy from the options. */
export function retryPolicy(options: HttpModelOptions): RetryPolicy {
  return {
    maxRetries: nonNegativeInt(options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries, 'maxRetries'),
    baseDelayMs: nonNegativeInt(options.retryBaseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs, 'retryBaseDelayMs'),
    maxDelayMs: nonNegativeInt(options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs, 'maxRetryDelayMs'),
  };
}

/** The per-attempt timeout from the options. */
export function timeoutOf(options: HttpModelOptions): number {
  const value = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`timeoutMs must be a positive number of milliseconds, got ${value}`);
  return value;
}

/** Header names whose values are credentials (`Authorization`, `X-Api-Key`, `Helicone-Auth`, `Cookie`, ...). */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|password/i;

/** `Bearer abc` -> `abc`: the scheme word is not the secret, the value after it is. */
function bearerless(value: string): string {
  return value.replace(/^\s*(bearer|basic|token)\s+/i, '');
}

/** Resolve the key: the option, else the variable; a required key that is missing is a ConfigError naming both. */
export function resolveKey(provider: string, options: HttpModelOptions, apiKeyEnv: string, required: boolean): string | undefined {
  const env = options.env ?? process.env;
  const key = options.apiKey ?? (env[apiKeyEnv] || undefined);
  if (required && !key) throw new ConfigError(`${provider}: no API key: pass apiKey or set ${apiKeyEnv}`);
  // The redactor masks the key (and credential headers of a gateway) wherever it shows up later.
  registerSecret(key);
  for (const [name, value] of Object.entries(options.headers ?? {})) if (CREDENTIAL_HEADER.test(name)) registerSecret(bearerless(value));
  return key;
}

/** A base URL without its trailing slash; a missing or malformed one is a ConfigError. */
export function normaliseBaseUrl(provider: string, url: string | null | undefined): string {
  if (!url) throw new ConfigError(`${provider}: baseUrl is required (this provider has no default endpoint)`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${provider}: baseUrl '${url}' is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`${provider}: baseUrl must be http or https, got '${parsed.protocol}'`);
  if (parsed.username || parsed.password) throw new ConfigError(`${provider}: baseUrl must not carry credentials; pass apiKey or headers instead`);
  return url.replace(/\/+$/, '');
}

/** Header names with every value replaced by `***` (how headers appear in a config). */
export function redactedHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers || Object.keys(headers).length === 0) return undefined;
  return Object.fromEntries(Object.keys(headers).map((name) => [name, '***']));
}

function nonNegativeInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}
