/**
 * The local UI's access rules, as one Express middleware that runs before any body is read:
 *
 * - Paths outside `/api/` (the web app) are open.
 * - Open API routes, matched exactly (method and case-sensitive path): `POST /api/auth/login`, `GET /api/auth/status`,
 *   `POST /api/auth/logout`. Every other `/api/*` request, known route or not, needs a valid session (401) unless
 *   the UI runs with `--no-auth`.
 * - Every write (not GET/HEAD) except login needs `X-CSRF-Token` equal to the `agentkit_csrf` cookie (403), with or
 *   without `--no-auth` (a page of another site could otherwise post to a loopback UI that has no login).
 *
 * Kept apart from the routes so the UI can move onto a shared deny-by-default builder without changing its rules.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AuthFile } from './auth-file.js';
import { CSRF_COOKIE, CSRF_HEADER, csrfMatches, parseCookies, SESSION_COOKIE, verifySession } from './session.js';

/** How the UI authenticates: the auth file's credentials, or nobody (`--no-auth`). */
export type UiAuth = { mode: 'password'; file: AuthFile } | { mode: 'none' };

const OPEN_ROUTES: ReadonlySet<string> = new Set(['POST /api/auth/login', 'GET /api/auth/status', 'POST /api/auth/logout']);
/** Writes that need no CSRF token: login (there is no session to ride yet). */
const CSRF_EXEMPT: ReadonlySet<string> = new Set(['POST /api/auth/login']);

/** The signed-in user of a request: a username, `null` when not signed in. With `--no-auth` always `null`. */
export function sessionUser(req: Request, auth: UiAuth): string | null {
  if (auth.mode === 'none') return null;
  return verifySession(parseCookies(req.headers.cookie)[SESSION_COOKIE], auth.file.session_secret);
}

function deny(res: Response, status: 401 | 403, code: string, detail: string): void {
  res.status(status).type('application/json').send(JSON.stringify({ detail, code }));
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
      .send(JSON.stringify({ detail: `Host '${host.slice(0, 100)}' is not a loopback name; this UI answers only http://127.0.0.1 or http://localhost.`, code: 'validation_failed' }));
  };
}

/** The middleware enforcing the rules above. */
export function uiGuard(getAuth: () => UiAuth): RequestHandler {
  return (req, res, next) => {
    if (!req.path.startsWith('/api/')) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    const auth = getAuth();
    const key = `${req.method} ${req.path}`;
    if (auth.mode === 'password' && !OPEN_ROUTES.has(key) && sessionUser(req, auth) === null) {
      deny(res, 401, 'not_authenticated', 'Not authenticated: sign in at /login (POST /api/auth/login).');
      return;
    }
    const write = req.method !== 'GET' && req.method !== 'HEAD';
    if (write && !CSRF_EXEMPT.has(key)) {
      const cookies = parseCookies(req.headers.cookie);
      const header = req.headers[CSRF_HEADER];
      if (!csrfMatches(cookies[CSRF_COOKIE], typeof header === 'string' ? header : undefined)) {
        deny(res, 403, 'csrf_failed', `CSRF token missing or invalid: send the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header.`);
        return;
      }
    }
    next();
  };
}
