/**
 * The local Platform server (conformance/platform/main.ts) as a real child process, for connected-mode scenarios:
 * started on 127.0.0.1 (port 0 unless a port is given, so a stopped Platform can come back on the same one), with
 * its SQLite store file readable from the test through `store()`.
 */
import path from 'node:path';
import { PlatformStore } from '../platform/store.js';
import { spawnNode, type NodeChild } from './processes.js';

export interface LocalPlatform {
  url: string;
  port: number;
  db: string;
  child: NodeChild;
  /** A read handle on the server's store (opened on each call; close it when done, or use `read`). */
  read<T>(fn: (store: PlatformStore) => T): T;
  /** SIGKILL the server and wait for it to go. */
  kill(): Promise<void>;
  /** SIGTERM and wait (idempotent). */
  stop(): Promise<void>;
}

export interface StartPlatformOptions {
  /** Directory for the store file. */
  dir: string;
  apiKeys: string[];
  forbiddenKeys?: string[];
  port?: number;
  maxRowBytes?: number;
  /** The Platform's lease time for executions whose rows arrive (default 30 000 ms). */
  leaseTtlMs?: number;
  /** Store file name inside `dir` (default platform.db). */
  dbName?: string;
}

export async function startPlatform(options: StartPlatformOptions): Promise<LocalPlatform> {
  const db = path.join(options.dir, options.dbName ?? 'platform.db');
  const args = ['--port', String(options.port ?? 0), '--db', db];
  for (const key of options.apiKeys) args.push('--api-key', key);
  for (const key of options.forbiddenKeys ?? []) args.push('--forbidden-key', key);
  if (options.maxRowBytes !== undefined) args.push('--max-row-bytes', String(options.maxRowBytes));
  if (options.leaseTtlMs !== undefined) args.push('--lease-ttl-ms', String(options.leaseTtlMs));
  const child = spawnNode('conformance/platform/main.ts', args);
  const url = await child.waitForLine((line) => line.startsWith('http://'), 30_000);
  let stopped = false;
  return {
    url,
    port: Number(new URL(url).port),
    db,
    child,
    read(fn) {
      const store = new PlatformStore(db);
      try {
        return fn(store);
      } finally {
        store.close();
      }
    },
    async kill() {
      if (stopped) return;
      stopped = true;
      child.process.kill('SIGKILL');
      await child.exit();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      child.process.kill('SIGTERM');
      await child.exit();
    },
  };
}
