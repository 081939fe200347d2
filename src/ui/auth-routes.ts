/**
 * The UI's auth routes: login, logout, sign-out everywhere, status.
 *
 * Login gives an unknown user and a wrong password the same answer (401, the same body) after the same work: an
 * unknown user's password is checked against a dummy scrypt hash with the same cost, so the response time does not
 * tell which part was wrong. Failures are throttled per client address and per username (known or not): guessing
 * one user's password from many addresses, or many users' from one address, both run into a cooldown.
 */
import type { Request, Response } from 'express';
import type { components } from '../../generated/types/ui.js';
import { AgentkitError } from '../errors.js';
import type { RouteRegistrar } from '../http/validated-app.js';
import { findUser, hashPassword, verifyPassword, writeAuthFile } from './auth-file.js';
import { currentAuthFile, sessionUser, type UiAuth } from './guard.js';
import { cookie, CSRF_COOKIE, issueSession, newCsrfToken, parseCookies, SESSION_COOKIE, SESSION_TTL_SECONDS } from './session.js';
import type { LoginThrottle } from './throttle.js';
import { signOutEverywhere } from './users.js';

type Schemas = components['schemas'];

/** A hash of a random password, drawn once per process: what an unknown username's password is checked against. */
let dummyHash: Promise<string> | undefined;
function dummy(): Promise<string> {
  dummyHash ??= hashPassword(crypto.randomUUID());
  return dummyHash;
}

/** Install the auth routes. */
/** `project`: the Platform project the UI shows (`--project`), told to the page by the status route. */
export function authRoutes(router: RouteRegistrar, auth: UiAuth, throttle: LoginThrottle, project?: string): void {
  if (auth.mode === 'password') void dummy();

  router.post('/api/auth/login', async (req: Request, res: Response) => {
    const { username, password } = req.body as Schemas['LoginRequest'];
    if (auth.mode === 'none') throw new AgentkitError('invalid_credentials', 'Login is off: this UI runs with --no-auth.');
    const keys = [`address:${req.socket.remoteAddress ?? 'unknown'}`, `user:${username}`];
    const wait = Math.max(...keys.map((key) => throttle.retryAfter(key)));
    if (wait > 0) {
      res.setHeader('Retry-After', String(wait));
      res.status(429).json({ detail: `Too many failed logins; try again in ${wait} s.`, code: 'too_many_attempts' });
      return;
    }
    const file = currentAuthFile(auth);
    const user = findUser(file, username);
    // The same scrypt work for an unknown user as for a known one.
    const passwordOk = await verifyPassword(password, user?.password_hash ?? (await dummy()));
    if (!user || !passwordOk) {
      for (const key of keys) throttle.fail(key);
      throw new AgentkitError('invalid_credentials', 'Invalid username or password.');
    }
    for (const key of keys) throttle.succeed(key);
    res.setHeader('Set-Cookie', [
      cookie(SESSION_COOKIE, issueSession(user.username, file.session_secret, Date.now(), SESSION_TTL_SECONDS, user.generation), {
        httpOnly: true,
        maxAge: SESSION_TTL_SECONDS,
      }),
      cookie(CSRF_COOKIE, newCsrfToken(), { httpOnly: false, maxAge: SESSION_TTL_SECONDS }),
    ]);
    res.json({ status: 'ok', username: user.username } satisfies Schemas['LoginResponse']);
  });

  router.post('/api/auth/logout', (_req: Request, res: Response) => {
    res.setHeader('Set-Cookie', [cookie(SESSION_COOKIE, '', { httpOnly: true, maxAge: 0 })]);
    res.json({ status: 'ok' } satisfies Schemas['OkResponse']);
  });

  router.post('/api/auth/logout-everywhere', async (req: Request, res: Response) => {
    const user = sessionUser(req, auth);
    if (auth.mode === 'none' || !user) throw new AgentkitError('not_implemented', 'Nobody is signed in: this UI runs with --no-auth.');
    if (!auth.path) {
      throw new AgentkitError(
        'not_implemented',
        'This UI was given its users without the auth file path; sign out everywhere with `agentkit ui users sign-out`.',
      );
    }
    await writeAuthFile(auth.path, signOutEverywhere(currentAuthFile(auth), user.username));
    res.setHeader('Set-Cookie', [cookie(SESSION_COOKIE, '', { httpOnly: true, maxAge: 0 })]);
    res.json({ status: 'ok' } satisfies Schemas['OkResponse']);
  });

  router.get('/api/auth/status', (req: Request, res: Response) => {
    // The page needs a CSRF cookie for its writes, also with --no-auth where nobody logs in.
    if (!parseCookies(req.headers.cookie)[CSRF_COOKIE]) {
      res.setHeader('Set-Cookie', cookie(CSRF_COOKIE, newCsrfToken(), { httpOnly: false, maxAge: SESSION_TTL_SECONDS }));
    }
    const user = sessionUser(req, auth);
    res.json({
      authenticated: auth.mode === 'none' || user !== null,
      username: user?.username ?? null,
      role: user?.role ?? null,
      no_auth: auth.mode === 'none',
      ...(project !== undefined ? { project } : {}),
    } satisfies Schemas['AuthStatus']);
  });
}
