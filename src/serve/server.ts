/**
 * Running the served agent: listen, load the contract before the first request, announce where it serves, warn
 * about a non-loopback bind, and shut down with one stop behaviour for every run (docs/adr/0051): stop accepting,
 * stop each in-flight run at its next step boundary (its lease released, still active: another replica's sweep
 * continues it at once; the request answers 503 `run_stopped`), wait for that up to the grace period, then refuse
 * every later write of the runs still mid-step (their leases expire, then they are recovered) and close the
 * connections, then run the shutdown hooks (trace flush) before resolving. No `failed` row comes from a stop.
 */
import type { Server } from 'node:http';
import { describeErrorSafely } from '../config/redact.js';
import { supportsIdempotencyKeys } from '../durability/idempotency-keys.js';
import { StopSignal } from '../durability/run-stop.js';
import { findStorageError } from '../store/storage-errors.js';
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
  /**
   * How long close() lets in-flight runs (and `draining`) take to reach a step boundary and stop there, in ms
   * (default 25 s, `--grace-ms`); runs still mid-step then are cut off without writing anything more.
   */
  graceMs?: number;
  /** More work close() waits for within the grace period (the recoveries this process started), if any. */
  draining?: () => Promise<void> | undefined;
  /** Serve `GET /runs/{execution_id}` without a token (docs/adr/0053); with a token it is always served. */
  exposeStatus?: boolean;
  /** How long an `Idempotency-Key` is kept, in ms (default 24 h); expired keys are pruned at start and hourly. */
  idempotencyTtlMs?: number;
  /** Origins whose browser pages may call the agent (`--cors-origin`; docs/adr/0057). */
  corsOrigins?: readonly string[];
}

export interface RunningAgentServer {
  url: string;
  port: number;
  /** Requests currently being served. */
  readonly inFlight: number;
  /** The shutdown the server's runs obey; give it to other work of this process that runs executions (recoveries). */
  readonly stop: StopSignal;
  /** Stop accepting, stop in-flight runs at their next step boundary (within the grace), run the shutdown hook. Idempotent. */
  close(): Promise<void>;
}

/** Default grace period of a shutdown: how long in-flight runs get to reach a step boundary (`--grace-ms`). */
export const DEFAULT_GRACE_MS = 25_000;

/** Start serving `target`. Rejects when the port is taken or the contract fails to load. */
export async function startAgentServer(target: ServeTarget, options: AgentServerOptions): Promise<RunningAgentServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  registerSecret(options.token);
  let inFlight = 0;
  const logServerError = rateLimitedStorageLog(log);
  let drained: (() => void) | undefined;
  const stop = new StopSignal();
  const app = createServeApp(target, {
    stop,
    ...(options.token ? { token: options.token } : {}),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ...(options.exposeStatus ? { exposeStatus: true } : {}),
    ...(options.idempotencyTtlMs ? { idempotencyTtlMs: options.idempotencyTtlMs } : {}),
    ...(options.corsOrigins && options.corsOrigins.length > 0 ? { corsOrigins: options.corsOrigins } : {}),
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
  if (options.corsOrigins && options.corsOrigins.length > 0) log(`agentkit: CORS: pages on ${options.corsOrigins.join(', ')} may call this agent`);
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
    stop,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        stop.drain();
        const requests = inFlight > 0 ? new Promise<void>((resolve) => (drained = resolve)) : undefined;
        const waits = [requests, options.draining?.()].filter((wait) => wait !== undefined);
        if (waits.length > 0) {
          const limit = options.graceMs ?? DEFAULT_GRACE_MS;
          await Promise.race([Promise.allSettled(waits), new Promise<void>((resolve) => setTimeout(resolve, limit).unref())]);
        }
        // Past the grace: runs still mid-step write nothing more (no failed row when their connection is cut).
        stop.abandon();
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
