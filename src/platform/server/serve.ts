/**
 * Start the Platform server (issue 42): the app (./app.ts) on the store a value names, bound to loopback unless told
 * otherwise. A non-loopback host is refused without `insecureBind`; with it, `warning` names the risk (keys travel in
 * clear without a TLS proxy in front).
 */
import type { Server } from 'node:http';
import { ConfigError } from '../../errors.js';
import { listen, warmUp } from '../../http/validated-app.js';
import { isLoopback } from '../../http/loopback.js';
import { createPlatformApp, type PlatformAppOptions } from './app.js';
import { openPlatformStore } from './open-platform-store.js';
import type { PlatformStore } from './store-types.js';

export interface PlatformServerOptions extends Omit<PlatformAppOptions, 'store'> {
  /** The store: a file path or a `postgres://...?schema=` URL. */
  db: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  insecureBind?: boolean;
  cwd?: string;
}

export interface RunningPlatformServer {
  url: string;
  store: PlatformStore;
  server: Server;
  /** The startup warning for a non-loopback bind, or null. */
  warning: string | null;
  /** Stop accepting, end open connections, close the store. Idempotent. */
  close(): Promise<void>;
}

/** Why `host` is refused, or null. */
export function platformBindRefusal(host: string, insecureBind: boolean): string | null {
  if (isLoopback(host) || insecureBind) return null;
  return `refusing to bind the Platform to non-loopback address '${host}': API keys travel in clear over plain HTTP; pass --insecure-bind to acknowledge (and put a TLS proxy in front), or use --host 127.0.0.1`;
}

/** Start the server. Rejects (ConfigError) a refused bind, a taken port, a store value naming no store. */
export async function startPlatformServer(options: PlatformServerOptions): Promise<RunningPlatformServer> {
  const host = options.host ?? '127.0.0.1';
  const refusal = platformBindRefusal(host, options.insecureBind === true);
  if (refusal) throw new ConfigError(refusal);
  const store = openPlatformStore(options.db, options.cwd);
  try {
    // Fail at start, not on the first request, when the store is unreachable or its secret unreadable.
    await store.serverSecret();
    const app = createPlatformApp({ ...options, store });
    let bound: Awaited<ReturnType<typeof listen>>;
    try {
      bound = await listen(app, options.port ?? 0, host);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw new ConfigError(`port ${options.port} on ${host} is already in use; pass --port <n> (0 picks a free one)`);
      throw error;
    }
    await warmUp(bound.url);
    let closing: Promise<void> | undefined;
    return {
      url: bound.url,
      store,
      server: bound.server,
      warning: isLoopback(host)
        ? null
        : `warning: the Platform listens on ${host} without TLS: API keys travel in clear unless a TLS proxy terminates in front of it (docs/platform.md)`,
      close() {
        closing ??= new Promise<void>((resolve) => {
          bound.server.close(() => resolve());
          bound.server.closeAllConnections();
        }).then(() => store.close());
        return closing;
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
