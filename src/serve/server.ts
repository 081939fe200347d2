/**
 * Running the served agent: listen, load the contract before the first request, announce where it serves, warn
 * about a non-loopback bind, and shut down gracefully: stop accepting, let in-flight runs finish (bounded), then run
 * the shutdown hooks (trace flush) before resolving.
 */
import type { Server } from 'node:http';
import { describeErrorSafely } from '../config/redact.js';
import { supportsIdempotencyKeys } from '../durability/idempotency-keys.js';
import { findStorageError } from '../durability/storage-errors.js';
import { registerSecret } from '../config/secrets.js';
import { listen, warmUp } from '../http/validated-app.js';
import { createServeApp, DEFAULT_MAX_BODY_BYTES } from './app.js';
import { exposureWarning } from './exposure.js';
import type { ServeTarget } from './target.js';

export interface AgentServerOptions {
  host: string;
  port: number;
  token?: string;
  maxBodyBytes?: number;
  /** Where startup lines, warnings and server errors go (default: stderr). */
  log?: (line: string) => void;
  /** Run after the last in-flight request ends on close (flush traces, close stores). */
  onShutdown?: () => Promise<void>;
  /** How long close() waits for in-flight runs before cutting them, in ms (default 30 s). */
  drainTimeoutMs?: number;
  /** Serve `GET /runs/{execution_id}` without a token (docs/adr/0053); with a token it is always served. */
  exposeStatus?: boolean;
  /** How long an `Idempotency-Key` is kept, in ms (default 24 h); expired keys are pruned at start and hourly. */
  idempotencyTtlMs?: number;
}

export interface RunningAgentServer {
  url: string;
  port: number;
  /** Requests currently being served. */
  readonly inFlight: number;
  /** Stop accepting, wait for in-flight runs, run the shutdown hook. Idempotent. */
  close(): Promise<void>;
}

/** Start serving `target`. Rejects when the port is taken or the contract fails to load. */
export async function startAgentServer(target: ServeTarget, options: AgentServerOptions): Promise<RunningAgentServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  registerSecret(options.token);
  let inFlight = 0;
  const logServerError = rateLimitedStorageLog(log);
  let drained: (() => void) | undefined;
  const app = createServeApp(target, {
    ...(options.token ? { token: options.token } : {}),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ...(options.exposeStatus ? { exposeStatus: true } : {}),
    ...(options.idempotencyTtlMs ? { idempotencyTtlMs: options.idempotencyTtlMs } : {}),
    onServerError: (error) => logServerError(error),
    onRequest: (phase) => {
      inFlight += phase === 'start' ? 1 : -1;
      if (inFlight === 0) drained?.();
    },
  });
  const { server, url, port } = await listen(app, options.port, options.host);
  try {
    await warmUp(url.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]'));
  } catch (error) {
    await closeNow(server);
    throw error;
  }
  const status = options.token || options.exposeStatus ? ', GET /runs/{execution_id}' : '';
  log(
    `agentkit: serving ${target.kind} '${target.name}' on ${url} (GET /health, POST /run${target.stream ? ', POST /run/stream' : ''}${status})${options.token ? ' with bearer auth' : ''}`,
  );
  const warning = exposureWarning(options.host, Boolean(options.token));
  if (warning) log(warning);
  if (options.exposeStatus && !options.token) {
    log('note: --expose-status without a token: anyone who can reach this port reads the outputs and pending contexts of runs by execution id.');
  }
  const stopPruning = pruneKeysHourly(target, logServerError);

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    get inFlight() {
      return inFlight;
    },
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (inFlight > 0) {
          const limit = options.drainTimeoutMs ?? 30_000;
          await Promise.race([new Promise<void>((resolve) => (drained = resolve)), new Promise<void>((resolve) => setTimeout(resolve, limit).unref())]);
        }
        server.closeAllConnections();
        await stopped;
        stopPruning();
        await options.onShutdown?.();
      })();
      return closing;
    },
  };
}

/**
 * Delete expired idempotency keys now and every hour (docs/adr/0052), on an unref'd timer; failures go to `onError`.
 * Returns the function that stops it. A runner without a key store prunes nothing.
 */
function pruneKeysHourly(target: ServeTarget, onError: (error: unknown) => void): () => void {
  const store = target.checkpointer;
  if (!store || !supportsIdempotencyKeys(store)) return () => {};
  const prune = () => void store.pruneIdempotencyKeys().catch(onError);
  prune();
  const timer = setInterval(prune, 60 * 60 * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

async function closeNow(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Server errors as log lines, one per failure, except storage outages: while the database is down every request
 * fails the same way, so those are logged once per `windowMs` with the count of the ones not shown.
 */
export function rateLimitedStorageLog(log: (line: string) => void, windowMs = 10_000, now: () => number = Date.now): (error: unknown) => void {
  let windowStart = -Infinity;
  let suppressed = 0;
  return (error) => {
    if (!findStorageError(error)) {
      log(`agentkit serve: ${describeErrorSafely(error)}`);
      return;
    }
    const time = now();
    if (time - windowStart < windowMs) {
      suppressed++;
      return;
    }
    const more =
      suppressed > 0 ? ` (${suppressed} more storage failure${suppressed === 1 ? '' : 's'} in the last ${Math.round(windowMs / 1000)} s not shown)` : '';
    windowStart = time;
    suppressed = 0;
    log(`agentkit serve: ${describeErrorSafely(error)}${more}`);
  };
}
