/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit crosses the WAL
 * threshold: it copies the WAL back into the database and fsyncs both, which on a busy disk takes from milliseconds to
 * seconds, and better-sqlite3 runs it on the calling thread. In a serving process that stalls every request at once
 * (the served benchmark's p99 was dominated by it). So a connection that writes on the main thread turns automatic
 * checkpoints down to a backstop (below) and retains a keeper: one worker thread per store file,
 * holding its own connection, running a PASSIVE checkpoint (never waits for readers or writers) every `intervalMs`.
 * Two keepers of one file split the work rather than double it (a pass finds the frames the other copied already
 * done; measured in the ninth session, bench/README.md).
 *
 * A PASSIVE checkpoint cannot bound the WAL by itself: SQLite starts the WAL over only when a writer begins a
 * transaction after every frame has been copied, and under sustained writes the keeper always finds frames written
 * while it ran. With automatic checkpoints off the file grew without end (760 MB after 18,000 chain steps, and every
 * commit searched a larger WAL index). So once the WAL holds `BUSY_FRAMES` frames, the keeper follows its PASSIVE pass
 * with a RESTART checkpoint: it waits up to `RESTART_WAIT_MS` for the writer lock and for readers to leave the WAL,
 * copies the few frames the PASSIVE pass missed, and the next writer starts the WAL from the beginning (a group
 * commit that meets it retries from a timer, ADR 0031). When it cannot (busy), the keeper tries again after
 * `BUSY_INTERVAL_MS`, doubling the wait up to a second while it stays busy. A writer that never pauses leaves it no
 * moment, so kept connections keep automatic checkpoints at a high threshold (`WRITER_CHECKPOINT_FRAMES`, ten times
 * SQLite's default) as a backstop. Writers also set `journal_size_limit` (open.ts), so a WAL that grew large in a
 * burst is cut back when it starts over.
 *
 * The thread's body is wal-keeper-worker.ts. The keeper is reference-counted by the connections that retain it and unref'd (it never keeps a process alive).
 * When the thread cannot start or fails, the connections get automatic checkpoints back: the WAL stays bounded either
 * way.
 */
import type Database from 'better-sqlite3';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { WalKeeperData } from './wal-keeper-worker.js';
import { startWorkerModule, workerModuleUrl } from './worker-module.js';

/** SQLite's default automatic checkpoint threshold, in WAL pages. */
const AUTO_CHECKPOINT_PAGES = 1000;
const INTERVAL_MS = 200;
/** A WAL of this many frames or more is restarted by the keeper (SQLite's own checkpoint threshold). */
const BUSY_FRAMES = AUTO_CHECKPOINT_PAGES;
/** How long the keeper's RESTART waits for a writer or reader; it tries again after BUSY_INTERVAL_MS. */
const RESTART_WAIT_MS = 10;
const BUSY_INTERVAL_MS = 20;
/**
 * A kept connection still checkpoints for itself once its commit leaves this many frames in the WAL: the backstop
 * that bounds the WAL when writers leave the keeper no moment to restart it (see the module comment).
 */
export const WRITER_CHECKPOINT_FRAMES = 10 * AUTO_CHECKPOINT_PAGES;

interface Keeper {
  worker: Worker;
  connections: Set<Database.Database>;
  failed: boolean;
  /** Told to stop: ref'd until it exits. */
  stopping: boolean;
  /** Settles when the thread has exited (stopped, failed or terminated). */
  exited: Promise<void>;
}

const keepers = new Map<string, Keeper>();
/** Keeper threads started and not yet exited, stopped ones included (tests). */
const threads = new Set<Worker>();

/**
 * Turn automatic checkpoints off on `db` (a writable connection to `file`) and make sure a keeper checkpoints `file`.
 * Returns the release function: call it before closing `db`. When it releases the file's last connection it stops the
 * keeper, and the promise it returns settles once the thread has closed its own connection and exited; await it
 * before removing the store's files (a thread still starting would create `-wal` and `-shm` again). Otherwise the
 * promise is already settled. It never rejects.
 */
export function retainWalKeeper(db: Database.Database, file: string, options: { intervalMs?: number } = {}): () => Promise<void> {
  const key = path.resolve(file);
  let keeper = keepers.get(key);
  if (!keeper || keeper.failed) {
    keeper = startKeeper(key, options.intervalMs ?? INTERVAL_MS);
    if (!keeper) return () => Promise.resolve();
  }
  const current = keeper;
  current.connections.add(db);
  db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_FRAMES}`);
  let released = false;
  return () => {
    if (released) return Promise.resolve();
    released = true;
    current.connections.delete(db);
    if (db.open) db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    if (current.connections.size === 0 && keepers.get(key) === current) {
      keepers.delete(key);
      current.worker.postMessage('stop');
      // Ref'd again while it stops (a last pass and a close, milliseconds): a process awaiting the returned promise
      // with nothing else to do would otherwise end with that await unsettled.
      current.stopping = true;
      current.worker.ref();
      return current.exited;
    }
    return Promise.resolve();
  };
}

/** The number of files with a keeper (tests). */
export function walKeeperCount(): number {
  return keepers.size;
}

/** The number of keeper threads still alive, a stopping one included (tests). */
export function walKeeperThreadCount(): number {
  return threads.size;
}

function startKeeper(file: string, intervalMs: number): Keeper | undefined {
  let worker: Worker;
  try {
    const workerData: WalKeeperData = { file, intervalMs, busyFrames: BUSY_FRAMES, restartWaitMs: RESTART_WAIT_MS, busyIntervalMs: BUSY_INTERVAL_MS };
    worker = startWorkerModule(workerModuleUrl(import.meta.url, 'wal-keeper-worker'), { workerData });
  } catch {
    return undefined;
  }
  // Ref'd until its connection is open: a process that exits while a thread is still loading the native SQLite
  // module can die of a fatal N-API error (seen on Node 22); after that it never keeps a process alive.
  worker.once('message', () => {
    if (!keeper.stopping) worker.unref();
  });
  threads.add(worker);
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      threads.delete(worker);
      resolve();
    }),
  );
  const keeper: Keeper = { worker, connections: new Set(), failed: false, stopping: false, exited };
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
