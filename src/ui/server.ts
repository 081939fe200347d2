/**
 * Running the local UI: refuse a non-loopback bind unless acknowledged, listen, load the contract before the first
 * request, and shut down gracefully (stop accepting, let in-flight requests finish within a bound, close stores).
 */
import type { Server } from 'node:http';
import { ConfigError } from '../errors.js';
import { listen, warmUp } from '../http/validated-app.js';
import { isLoopback } from '../serve/exposure.js';
import { createUiApp, type UiAppOptions } from './app.js';

/** Default port of `agentkit ui`. */
export const DEFAULT_UI_PORT = 7842;

export interface UiServerOptions extends UiAppOptions {
  host: string;
  port: number;
  /** Acknowledge a non-loopback bind (the session cookie travels over plain HTTP). */
  insecureBind?: boolean;
  /** Run after the server stopped (close stores). */
  onShutdown?: () => Promise<void>;
  /** How long close() waits for in-flight requests, in ms (default 10 s). */
  drainTimeoutMs?: number;
}

export interface RunningUiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Why a bind is refused, or null when it is allowed. */
export function bindRefusal(host: string, insecureBind: boolean): string | null {
  if (isLoopback(host) || insecureBind) return null;
  return `refusing to bind the UI to non-loopback address '${host}': the session cookie travels over plain HTTP; pass --insecure-bind to acknowledge (and put TLS in front), or use --host 127.0.0.1`;
}

/** Start the UI. Rejects (ConfigError) a refused bind, a taken port, or a contract that fails to load. */
export async function startUiServer(options: UiServerOptions): Promise<RunningUiServer> {
  const refusal = bindRefusal(options.host, options.insecureBind === true);
  if (refusal) throw new ConfigError(refusal);
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const app = createUiApp({ ...options, loopbackOnly: options.loopbackOnly ?? isLoopback(options.host) });
  const tracked = (server: Server) =>
    server.on('request', (_req, res) => {
      inFlight += 1;
      res.once('close', () => {
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      });
    });
  let bound: Awaited<ReturnType<typeof listen>>;
  try {
    bound = await listen(app, options.port, options.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`port ${options.port} on ${options.host} is already in use; pass --port <n> (0 picks a free one)`);
    throw error;
  }
  const { server, url, port } = bound;
  tracked(server);
  try {
    await warmUp(url.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]'));
  } catch (error) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (inFlight > 0) {
          await Promise.race([
            new Promise<void>((resolve) => (drained = resolve)),
            new Promise<void>((resolve) => setTimeout(resolve, options.drainTimeoutMs ?? 10_000).unref()),
          ]);
        }
        server.closeAllConnections();
        await stopped;
        await options.onShutdown?.();
      })();
      return closing;
    },
  };
}
