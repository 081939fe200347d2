/**
 * The replication drain thread (see drain-thread.ts): runs drain passes with its own connection to each store, kept
 * between passes and closed after IDLE_MS without one. A SQLite store file deleted (or replaced by a new store at the
 * same path, as after a lost disk) is noticed by its inode at the next pass: the old connection is closed and the
 * file read afresh; a missing file has nothing to send. A Postgres pool is kept per URL and schema. Passes of
 * different stores or connections run concurrently; the main thread never asks for two passes of one outbox at once.
 */
import { statSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { ReplicaSource, ReplicatingCheckpointer } from '../durability/checkpointer.js';
import { PostgresCheckpointer } from '../durability/postgres-checkpointer.js';
import { SQLiteCheckpointer } from '../durability/sqlite-checkpointer.js';
import { drainOnce } from './drain.js';
import type { DrainReply, DrainRequest } from './drain-thread.js';

/** A store connection is closed after this long without a pass. */
const IDLE_MS = 5000;

interface Held {
  checkpointer: SQLiteCheckpointer | PostgresCheckpointer;
  /** The SQLite file's inode when it was opened (null for Postgres). */
  inode: number | null;
  busy: number;
  idle: NodeJS.Timeout | null;
}

const held = new Map<string, Held>();

function keyOf(source: ReplicaSource): string {
  return source.driver === 'sqlite' ? `sqlite\u0000${source.path}` : `postgres\u0000${source.url}\u0000${source.schema}`;
}

function release(key: string, entry: Held): void {
  if (held.get(key) === entry) held.delete(key);
  void entry.checkpointer.close().catch(() => undefined);
}

/** The connection for `source`, or null when its SQLite file does not exist (nothing to send). */
function acquire(source: ReplicaSource): Held | null {
  const key = keyOf(source);
  let inode: number | null = null;
  if (source.driver === 'sqlite') {
    try {
      inode = statSync(source.path).ino;
    } catch {
      const stale = held.get(key);
      if (stale && stale.busy === 0) release(key, stale);
      return null;
    }
  }
  let entry = held.get(key);
  if (entry && entry.inode !== inode) {
    // Another store now lives at this path: the old connection reads a deleted file.
    if (entry.busy === 0) release(key, entry);
    else held.delete(key);
    entry = undefined;
  }
  if (!entry) {
    const checkpointer =
      source.driver === 'sqlite'
        ? new SQLiteCheckpointer(source.path)
        : new PostgresCheckpointer(source.url, { schema: source.schema, minPoolSize: 0, maxPoolSize: 2 });
    entry = { checkpointer, inode, busy: 0, idle: null };
    held.set(key, entry);
  }
  if (entry.idle) clearTimeout(entry.idle);
  entry.idle = null;
  entry.busy++;
  return entry;
}

function done(source: ReplicaSource, entry: Held): void {
  entry.busy--;
  if (entry.busy > 0) return;
  const key = keyOf(source);
  if (held.get(key) !== entry) return release(key, entry);
  entry.idle = setTimeout(() => release(key, entry), IDLE_MS);
  entry.idle.unref();
}

async function pass(request: DrainRequest): Promise<DrainReply> {
  const entry = acquire(request.source);
  if (!entry) return { id: request.id, result: { synced: 0, quarantined: {}, outcome: 'drained', error: null } };
  try {
    return { id: request.id, result: await drainOnce(entry.checkpointer as ReplicatingCheckpointer, request.connection) };
  } catch (error) {
    return { id: request.id, error: error instanceof Error ? error.message : String(error) };
  } finally {
    done(request.source, entry);
  }
}

parentPort!.on('message', (request: DrainRequest) => {
  void pass(request).then((reply) => parentPort!.postMessage(reply));
});
