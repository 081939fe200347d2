/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit crosses the WAL
 * threshold: it copies the WAL back into the database and fsyncs both, which on a busy disk takes from milliseconds to
 * seconds, and better-sqlite3 runs it on the calling thread. In a serving process that stalls every request at once
 * (the served benchmark's p99 was dominated by it). So a connection that writes on the main thread turns automatic
 * checkpoints off and retains a keeper: one worker thread per store file and process, holding its own connection,
 * running a PASSIVE checkpoint (never waits for readers or writers) every `intervalMs`.
 *
 * The keeper is reference-counted by the connections that retain it and unref'd (it never keeps a process alive).
 * When the thread cannot start or fails, the connections get automatic checkpoints back: the WAL stays bounded either
 * way.
 */
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_NICENESS } from './thread-priority.js';

/** SQLite's default automatic checkpoint threshold, in WAL pages. */
const AUTO_CHECKPOINT_PAGES = 1000;
const INTERVAL_MS = 200;

interface Keeper {
  worker: Worker;
  connections: Set<Database.Database>;
  failed: boolean;
}

const keepers = new Map<string, Keeper>();

// The thread is plain CommonJS (no loader needed in dev or from dist/); it loads the same better-sqlite3 build.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
// Yield the CPU to request threads (thread-priority.ts; inlined: this source loads without a TypeScript loader).
try { const os = require('node:os'); const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()); if (tid > 0 && os.getPriority(tid) < ${BACKGROUND_NICENESS}) os.setPriority(tid, ${BACKGROUND_NICENESS}); } catch { /* no per-thread priority here */ }
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const tick = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: next tick */ } };
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  tick();
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

/**
 * Turn automatic checkpoints off on `db` (a writable connection to `file`) and make sure a keeper checkpoints `file`.
 * Returns the release function: call it before closing `db`.
 */
export function retainWalKeeper(db: Database.Database, file: string, options: { intervalMs?: number } = {}): () => void {
  const key = path.resolve(file);
  let keeper = keepers.get(key);
  if (!keeper || keeper.failed) {
    keeper = startKeeper(key, options.intervalMs ?? INTERVAL_MS);
    if (!keeper) return () => undefined;
  }
  const current = keeper;
  current.connections.add(db);
  db.pragma('wal_autocheckpoint = 0');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    current.connections.delete(db);
    if (db.open) db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    if (current.connections.size === 0 && keepers.get(key) === current) {
      keepers.delete(key);
      current.worker.postMessage('stop');
    }
  };
}

/** The number of keeper threads running (tests). */
export function walKeeperCount(): number {
  return keepers.size;
}

function startKeeper(file: string, intervalMs: number): Keeper | undefined {
  let worker: Worker;
  try {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
  } catch {
    return undefined;
  }
  worker.unref();
  const keeper: Keeper = { worker, connections: new Set(), failed: false };
  const fail = () => {
    if (keeper.failed) return;
    keeper.failed = true;
    if (keepers.get(file) === keeper) keepers.delete(file);
    // Without a keeper, each connection checkpoints for itself again.
    for (const db of keeper.connections) if (db.open) db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  };
  worker.on('error', fail);
  worker.on('exit', fail);
  keepers.set(file, keeper);
  return keeper;
}
