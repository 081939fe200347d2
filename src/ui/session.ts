/**
 * Session and CSRF cookies of the local UI.
 *
 * - `agentkit_session`: `<payload b64url>.<HMAC-SHA256 b64url>` where the payload is
 *   `{"u": username, "g": user generation, "exp": epoch s}`, signed with the auth file's session secret; HttpOnly,
 *   SameSite=Strict, Path=/, 7 days. The server checks on every request that the user still exists with that
 *   generation (./guard.ts), so removal, demotion and sign-out everywhere end a session on its next request.
 * - `agentkit_csrf`: 32 random bytes (hex), readable by the page (not HttpOnly), SameSite=Strict. A write must echo it
 *   in `X-CSRF-Token` (double submit): another site can neither read the cookie nor send a custom header without a
 *   CORS preflight, which this server never answers.
 */
import { createHmac, randomBytes, timingSafeEqual, createHash } from 'node:crypto';

export const SESSION_COOKIE = 'agentkit_session';
export const CSRF_COOKIE = 'agentkit_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/** Session lifetime: 7 days. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

function sign(payload: string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'hex')).update(payload).digest('base64url');
}

/** A signed session value for `username` at the user's `generation` (default 0), valid for `ttlSeconds`. */
export function issueSession(username: string, secret: string, now = Date.now(), ttlSeconds = SESSION_TTL_SECONDS, generation = 0): string {
  const payload = Buffer.from(JSON.stringify({ u: username, g: generation, exp: Math.floor(now / 1000) + ttlSeconds })).toString('base64url');
  return `${payload}.${sign(payload, secret)}`;
}

/** The username of a valid, unexpired session value signed with `secret`, else null. The MAC check is constant-time. */
export function verifySession(value: string | undefined, secret: string, now = Date.now()): string | null {
  return readSession(value, secret, now)?.username ?? null;
}

/**
 * The username and user generation of a valid, unexpired session value, else null. A cookie written before
 * sessions carried a generation reads as generation 0 (what a converted version 1 auth file's user has).
 */
export function readSession(value: string | undefined, secret: string, now = Date.now()): { username: string; generation: number } | null {
  if (!value) return null;
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  const presented = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = Buffer.from(sign(payload, secret), 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { u?: unknown; g?: unknown; exp?: unknown };
    if (typeof parsed.u !== 'string' || typeof parsed.exp !== 'number' || parsed.exp * 1000 <= now) return null;
    const generation = parsed.g === undefined ? 0 : parsed.g;
    if (typeof generation !== 'number' || !Number.isSafeInteger(generation)) return null;
    return { username: parsed.u, generation };
  } catch {
    return null;
  }
}

/** A fresh CSRF token. */
export function newCsrfToken(): string {
  return randomBytes(32).toString('hex');
}

/** True when the header echoes the cookie: both present, compared in constant time over digests. */
export function csrfMatches(cookie: string | undefined, header: string | undefined): boolean {
  const a = createHash('sha256')
    .update(cookie ?? '')
    .digest();
  const b = createHash('sha256')
    .update(header ?? '')
    .digest();
  return timingSafeEqual(a, b) && Boolean(cookie) && Boolean(header);
}

/** Cookies of a request header, first value of each name wins. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A value that is not valid percent-encoding is not one of ours.
    }
  }
  return out;
}

/** A `Set-Cookie` value. `maxAge` 0 deletes the cookie. */
export function cookie(name: string, value: string, options: { httpOnly: boolean; maxAge: number; secure?: boolean }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'SameSite=Strict', `Max-Age=${options.maxAge}`];
  if (options.httpOnly) parts.push('HttpOnly');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
