/**
 * The local UI's access rules, as one Express middleware that runs before any body is read:
 *
 * - The web app's pages and `/assets/*` (UI_PAGE_ROUTES) and `POST /api/auth/login` are open.
 * - `GET /api/auth/status` needs no session. Every other request (logout too), known route or not,
 *   needs a valid session (401) unless the UI runs with `--no-auth`.
 * - A session is valid only while its user exists in the auth file with the generation the cookie carries (re-read
 *   when the file changes), so removal, demotion and sign-out everywhere take effect on the next request (401).
 * - The signed-in user's role must include the route's (./roles.ts), else 403 `forbidden`; `--no-auth` checks none.
 * - Every write (not GET/HEAD) except login needs `X-CSRF-Token` equal to the `agentkit_csrf` cookie (403), with or
 *   without `--no-auth` (a page of another site could otherwise post to a loopback UI that has no login).
 *
 * Enforced by the shared builder's deny-by-default `authenticate` hook on the matched route (src/http), never by
 * comparing raw paths; the web app's pages and assets are extra routes open to all.
 */
import type { Request, RequestHandler } from 'express';
import type { AuthFailure, ExtraRoute, MatchedRoute } from '../http/validated-app.js';
import { statSync } from 'node:fs';
import { findUser, readAuthFileSync, type AuthFile } from './auth-file.js';
import { requiredRole, roleAllows, type UiRole } from './roles.js';
import { CSRF_COOKIE, CSRF_HEADER, csrfMatches, parseCookies, readSession, SESSION_COOKIE } from './session.js';

/**
 * How the UI authenticates: the auth file's users, or nobody (`--no-auth`). With `path`, the file is re-read whenever
 * it changes on disk (`agentkit ui users ...` while the UI runs); without it, `file` is used as given.
 */
export type UiAuth = { mode: 'password'; file: AuthFile; path?: string } | { mode: 'none' };

/** A signed-in user as of this request. */
export interface SignedIn {
  username: string;
  role: UiRole;
  generation: number;
}

const loaded = new WeakMap<object, { stamp: string; file: AuthFile }>();

/**
 * The auth file as it is now: re-read when its inode, size or modification time changed (every write is an atomic
 * rename, so a change always shows). A file that vanished or no longer parses keeps the last good content.
 */
export function currentAuthFile(auth: { file: AuthFile; path?: string }): AuthFile {
  if (!auth.path) return auth.file;
  const cached = loaded.get(auth);
  let stamp: string;
  try {
    const info = statSync(auth.path, { bigint: true });
    stamp = `${info.ino}:${info.size}:${info.mtimeNs}`;
  } catch {
    return cached?.file ?? auth.file;
  }
  if (cached?.stamp === stamp) return cached.file;
  try {
    const file = readAuthFileSync(auth.path) ?? cached?.file ?? auth.file;
    loaded.set(auth, { stamp, file });
    return file;
  } catch {
    return cached?.file ?? auth.file;
  }
}

/**
 * The signed-in user of a request, checked against the auth file now: the cookie's user must still exist with the
 * cookie's generation. `null` when not signed in; with `--no-auth` always `null`.
 */
export function sessionUser(req: Request, auth: UiAuth): SignedIn | null {
  if (auth.mode === 'none') return null;
  const file = currentAuthFile(auth);
  const session = readSession(parseCookies(req.headers.cookie)[SESSION_COOKIE], file.session_secret);
  if (!session) return null;
  const user = findUser(file, session.username);
  if (!user || user.generation !== session.generation) return null;
  return { username: user.username, role: user.role, generation: user.generation };
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
      /^\/(?:evals\/compare|approvals\/history)?$|^\/(?!api$)[a-z][a-z0-9-]*$|^\/(?:traces|executions|evals)\/[A-Za-z0-9_:-][A-Za-z0-9_.:-]*$|^\/traces\/[A-Za-z0-9_:-][A-Za-z0-9_.:-]*\/replay$/,
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
 * write without the CSRF header matching the cookie, 403 `forbidden` when the user's role is short of the route's.
 */
export function uiAuthenticate(getAuth: () => UiAuth): (req: Request, route: MatchedRoute | undefined) => AuthFailure | null {
  return (req, route) => {
    const auth = getAuth();
    const key = route?.key;
    if (auth.mode === 'password' && !(key && SESSIONLESS.has(key))) {
      const user = sessionUser(req, auth);
      if (user === null) return { status: 401, code: 'not_authenticated', detail: 'Not authenticated: sign in at /login (POST /api/auth/login).' };
      // An unmatched path runs nothing: it goes on to the contract's 404 for every role.
      const needed = key ? requiredRole(req.method, key) : 'viewer';
      if (!roleAllows(user.role, needed)) {
        return {
          status: 403,
          code: 'forbidden',
          detail: `Forbidden: ${key} needs the ${needed} role; '${user.username}' is a ${user.role}.`,
        };
      }
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
