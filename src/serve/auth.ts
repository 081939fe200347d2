/**
 * Bearer-token protection of the run routes. The comparison is constant-time over SHA-256 digests, so neither the
 * token's content nor its length leaks through timing. `/health` is never protected.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

/** True when `header` is `Bearer <token>` (scheme case-insensitive, token exact). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^\s*bearer\s+(.+?)\s*$/i.exec(header ?? '');
  const presented = createHash('sha256').update(match?.[1] ?? '').digest();
  const expected = createHash('sha256').update(token).digest();
  // Compare digests even when the header is malformed, so every rejection takes the same path.
  return timingSafeEqual(presented, expected) && match !== null;
}

/** Reject requests to `paths` that lack the token: 401, `WWW-Authenticate: Bearer`, the contract's error body. */
export function requireBearer(token: string, paths: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    if (!paths.has(req.path) || bearerMatches(req.headers.authorization, token)) {
      next();
      return;
    }
    res
      .status(401)
      .setHeader('WWW-Authenticate', 'Bearer')
      .type('application/json')
      .send(JSON.stringify({ detail: 'Missing or invalid bearer token.', code: 'unauthorized' }));
  };
}
