/**
 * Bearer-token authentication of the served agent. The comparison is constant-time over SHA-256 digests, so neither
 * the token's content nor its length leaks through timing. Which routes it protects is decided by the app after
 * routing (deny by default; `/health` is the one open route), never here.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthFailure } from '../http/validated-app.js';

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, surrounding whitespace ignored),
 * or null. Linear in the header's length: no backtracking pattern runs on caller-controlled text.
 */
export function bearerToken(header: string | undefined): string | null {
  const value = (header ?? '').trim();
  if (value.length < 7 || value.slice(0, 6).toLowerCase() !== 'bearer') return null;
  const separator = value.charCodeAt(6);
  if (separator !== 0x20 && separator !== 0x09) return null;
  const token = value.slice(7).trimStart();
  return token === '' ? null : token;
}

/** True when `header` is `Bearer <token>` with exactly `token`. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = bearerToken(header);
  const presentedDigest = createHash('sha256')
    .update(presented ?? '')
    .digest();
  const expected = createHash('sha256').update(token).digest();
  // Compare digests even when the header is malformed, so every rejection takes the same path.
  return timingSafeEqual(presentedDigest, expected) && presented !== null;
}

/** The refusal of a request without the token: 401, `WWW-Authenticate: Bearer`, the contract's error body. */
export const BEARER_REQUIRED: AuthFailure = {
  status: 401,
  code: 'unauthorized',
  detail: 'Missing or invalid bearer token.',
  headers: { 'WWW-Authenticate': 'Bearer' },
};

/**
 * The token a server will require, from `--auth-token` or `AGENTKIT_SERVE_TOKEN`: surrounding whitespace (a trailing
 * newline from `$(cat token-file)`) is trimmed; a token that is empty after trimming or holds whitespace or control
 * characters inside is refused with a message, instead of starting a server no client can authenticate to.
 */
export function normalizeToken(raw: string | undefined, source: string): string | undefined {
  if (raw === undefined) return undefined;
  const token = raw.trim();
  if (token === '') throw new Error(`${source} is empty (after trimming whitespace); give a token or leave it unset`);
  // eslint-disable-next-line no-control-regex
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a token must not contain
  if (/[\s\x00-\x1f\x7f]/.test(token))
    throw new Error(`${source} contains whitespace or control characters inside the token; a bearer token cannot carry them`);
  return token;
}
