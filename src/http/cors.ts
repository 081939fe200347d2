/**
 * Cross-origin access for a server that opts in (the served agent with `--cors-origin`; docs/adr/0057). Never the
 * local UI: its CSRF defence relies on browsers refusing cross-origin calls, so it is built without this.
 *
 * Exact origins only: `*` would let every page on the web drive the agent with a token it got hold of, and `null` is
 * the origin of sandboxed frames and `file:` pages, which anyone can produce. A preflight (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) from a listed origin on a declared path is answered here, before authentication and
 * validation (a browser never sends credentials on a preflight); any other request from a listed origin gets
 * `Access-Control-Allow-Origin` on its answer, errors included, so the page can read them. Requests from other
 * origins are served as if CORS were off (a preflight falls through to the 405 or 401 it always got).
 */
import type { RequestHandler } from 'express';
import type { RouteTable } from './route-table.js';

/** The request headers a listed origin may send: auth, body type, retry key, trace context, and EventSource's own. */
export const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'traceparent', 'tracestate', 'baggage', 'last-event-id'] as const;

/** How long a browser may cache a preflight answer, in seconds. */
const MAX_AGE_SECONDS = 600;

/**
 * `value` as an origin to allow, or an Error with a one-line message: `http` or `https`, a host, an optional port,
 * nothing else, written exactly as browsers send it (lower-case host, no default port, no trailing slash).
 */
export function parseCorsOrigin(value: string): string {
  const shown = JSON.stringify(value);
  if (value === '*') throw new Error(`--cors-origin ${shown}: a wildcard is refused; list each origin that may call the agent (e.g. https://app.example)`);
  if (value === 'null') throw new Error(`--cors-origin ${shown}: the null origin (sandboxed frames, file: pages) is refused; anyone can send it`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--cors-origin ${shown} is not an origin; write scheme, host and port, e.g. https://app.example or http://127.0.0.1:5173`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--cors-origin ${shown}: only http and https origins can be allowed`);
  if (url.origin !== value) {
    throw new Error(
      `--cors-origin ${shown} is not exactly an origin (no path, no trailing slash, lower-case host, no default port); write ${JSON.stringify(url.origin)}`,
    );
  }
  return value;
}

/** The middleware that answers preflights and marks answers for the listed `origins` (each from `parseCorsOrigin`). */
export function corsMiddleware(origins: readonly string[], table: RouteTable): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    // Every answer depends on Origin once CORS is on: a cache must not serve one origin's answer to another.
    res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) {
      next();
      return;
    }
    const methods = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined ? table.methodsOf(req.path) : null;
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (!methods) {
      next();
      return;
    }
    res.vary('Access-Control-Request-Method');
    res.vary('Access-Control-Request-Headers');
    res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
    res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS.join(', '));
    res.setHeader('Access-Control-Max-Age', String(MAX_AGE_SECONDS));
    res.setHeader('Content-Length', '0');
    res.status(204).end();
  };
}
