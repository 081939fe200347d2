/**
 * The local UI's access rules, as one Express middleware that runs before any body is read:
 *
 * - The web app's pages and `/assets/*` (UI_PAGE_ROUTES) and `POST /api/auth/login` are open.
 * - `GET /api/auth/status` needs no session. Every other request (logout too), known route or not,
 *   needs a valid session (401) unless the UI runs with `--no-auth`.
 * - Every write (not GET/HEAD) except login needs `X-CSRF-Token` equal to the `agentkit_csrf` cookie (403), with or
 *   without `--no-auth` (a page of another site could otherwise post to a loopback UI that has no login).
 *
 * Enforced by the shared builder's deny-by-default `authenticate` hook on the matched route (src/http), never by
 * comparing raw paths; the web app's pages and assets are extra routes open to all.
 */
import type { Request, RequestHandler } from 'express';
import type { AuthFailure, ExtraRoute, MatchedRoute } from '../http/validated-app.js';
import type { AuthFile } from './auth-file.js';
import { CSRF_COOKIE, CSRF_HEADER, csrfMatches, parseCookies, SESSION_COOKIE, verifySession } from './session.js';

/** How the UI authenticates: the auth file's credentials, or nobody (`--no-auth`). */
export type UiAuth = { mode: 'password'; file: AuthFile } | { mode: 'none' };

/** The signed-in user of a request: a username, `null` when not signed in. With `--no-auth` always `null`. */
export function sessionUser(req: Request, auth: UiAuth): string | null {
  if (auth.mode === 'none') return null;
  return verifySession(parseCookies(req.headers.cookie)[SESSION_COOKIE], auth.file.session_secret);
}

/**
 * DNS-rebinding protection for a loopback UI: a page of another site whose name an attacker re-points at 127.0.0.1
 * reaches this server with that name in `Host`. Only loopback names (and the bound address) are answered; a
 * non-loopback bind (`--insecure-bind`) is reached by other names on purpose and is not checked.
 */
export function loopbackHostOnly(): RequestHandler {
  return (req, res, next) => {
    const host = (req.headers.host ?? '').toLowerCase();
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
    if (name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) || name.endsWith('.localhost')) {
      next();
      return;
    }
    res
      .status(421)
      .type('application/json')
      .send(
        JSON.stringify({
          detail: `Host '${host.slice(0, 100)}' is not a loopback name; this UI answers only http://127.0.0.1 or http://localhost.`,
          code: 'validation_failed',
        }),
      );
  };
}

/**
 * The web app's pages and assets, served outside the OpenAPI document and open to everyone (the login page must load
 * before anyone signs in; the files hold no data). Any one lower-case segment is a page (the app shows its own "Not
 * found"). Patterns are anchored and exclude `/api`, dot segments, upper case and percent-encoding, so no spelling
 * of an API path can pass as a page.
 */
export const UI_PAGE_ROUTES: readonly ExtraRoute[] = [
  { method: 'GET', pattern: /^\/assets\/[A-Za-z0-9_-][A-Za-z0-9_.-]*$/, key: 'GET /assets/*' },
  {
    method: 'GET',
    pattern:
      /^\/(?:evals\/compare)?$|^\/(?!api$)[a-z][a-z0-9-]*$|^\/(?:traces|executions|evals)\/[A-Za-z0-9_:-][A-Za-z0-9_.:-]*$|^\/traces\/[A-Za-z0-9_:-][A-Za-z0-9_.:-]*\/replay$/,
    key: 'GET /*',
  },
];

/** Routes that never reach `authenticate`: login (nobody is signed in yet) and the web app's files. */
export const UI_OPEN_ROUTES: readonly string[] = ['POST /api/auth/login', 'GET /assets/*', 'GET /*'];

/** The one API route that needs no session: the login page asks it whether anyone is signed in. */
const SESSIONLESS: ReadonlySet<string> = new Set(['GET /api/auth/status']);

/**
 * The `authenticate` hook of the shared builder, called with the matched route (deny by default: every route not in
 * `UI_OPEN_ROUTES`, and every unmatched path, comes here): 401 without a session (unless `--no-auth`), 403 for a
 * write without the CSRF header matching the cookie.
 */
export function uiAuthenticate(getAuth: () => UiAuth): (req: Request, route: MatchedRoute | undefined) => AuthFailure | null {
  return (req, route) => {
    const auth = getAuth();
    const key = route?.key;
    if (auth.mode === 'password' && !(key && SESSIONLESS.has(key)) && sessionUser(req, auth) === null) {
      return { status: 401, code: 'not_authenticated', detail: 'Not authenticated: sign in at /login (POST /api/auth/login).' };
    }
    const write = req.method !== 'GET' && req.method !== 'HEAD';
    if (write) {
      const cookies = parseCookies(req.headers.cookie);
      const header = req.headers[CSRF_HEADER];
      if (!csrfMatches(cookies[CSRF_COOKIE], typeof header === 'string' ? header : undefined)) {
        return {
          status: 403,
          code: 'csrf_failed',
          detail: `CSRF token missing or invalid: send the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header.`,
        };
      }
    }
    return null;
  };
}

/** API responses are never cached: they carry session-bound data. */
export function noStoreForApi(): RequestHandler {
  return (req, res, next) => {
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
