/**
 * `agentkit/ui`: the local UI as a library. `createUiApp({ checkpointer, traceStore, auth, runners })` builds the
 * Express app (mount it, or serve it with `startUiServer`); `runners` is the iterable of Agents, Chains, Swarms and
 * Supervisors the resume route may call. The credentials helpers write and read the auth file `agentkit ui` uses.
 */
// First: refuse an unsupported Node.js before any native module loads.
import '../node-support-guard.js';
export { createUiApp, UI_MAX_BODY_BYTES, type UiAppOptions } from './app.js';
export { startUiServer, bindRefusal, DEFAULT_UI_PORT, type RunningUiServer, type UiServerOptions } from './server.js';
export { RunnerRegistry, type ResumableRunner } from './runners.js';
export { newAuthFile, readAuthFile, writeAuthFile, hashPassword, verifyPassword, type AuthFile } from './auth-file.js';
export { LoginThrottle, type ThrottleOptions } from './throttle.js';
export type { UiAuth } from './guard.js';
export { SESSION_COOKIE, CSRF_COOKIE } from './session.js';
