/**
 * The WAL keeper's thread (see wal-keeper.ts for why and when): its own connection to one store file, a PASSIVE
 * checkpoint every `intervalMs`, and a RESTART once the WAL holds `busyFrames` frames, retried with a doubling wait
 * while the WAL stays busy. Stops on the message `stop` after a last pass. Posts `ready` once its connection is open.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/** What wal-keeper.ts passes in `workerData`. */
export interface WalKeeperData {
  file: string;
  intervalMs: number;
  busyFrames: number;
  restartWaitMs: number;
  busyIntervalMs: number;
}

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

const data = workerData as WalKeeperData;
const port = parentPort!;
const db = new Database(data.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
let timer: NodeJS.Timeout | undefined;
let stopped = false;
/** The WAL's frame count when the last RESTART succeeded: nothing was written since while it still reads the same. */
let restartedAt = -1;

/** One pass; true when the WAL is large and could not be restarted yet (tick again soon). */
function pass(): boolean {
  const [passive] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointRow[];
  if (passive === undefined || passive.log < data.busyFrames) return false;
  if (passive.log === restartedAt && passive.checkpointed === passive.log) return false;
  db.pragma(`busy_timeout = ${data.restartWaitMs}`);
  let restart: CheckpointRow | undefined;
  try {
    [restart] = db.pragma('wal_checkpoint(RESTART)') as CheckpointRow[];
  } finally {
    db.pragma('busy_timeout = 0');
  }
  if (restart === undefined || restart.busy !== 0) return true;
  restartedAt = restart.log;
  return false;
}

// A RESTART that found the WAL busy holds writers off while it waits; a reader that keeps its snapshot for long (a
// large export, a shell with an open transaction) would meet one every tick. So its retries back off, doubling up to
// a second, and start at busyIntervalMs again once a pass ends without a busy WAL.
let retryMs = data.busyIntervalMs;
function tick(): void {
  let growing = false;
  try {
    growing = pass();
  } catch {
    // Busy or closing: the next tick tries again.
  }
  let delay = data.intervalMs;
  if (growing) {
    delay = retryMs;
    retryMs = Math.min(retryMs * 2, 1000);
  } else {
    retryMs = data.busyIntervalMs;
  }
  if (!stopped) timer = setTimeout(tick, delay);
}

timer = setTimeout(tick, data.intervalMs);
port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  stopped = true;
  clearTimeout(timer);
  try {
    pass();
  } catch {
    // Closing.
  }
  db.close();
  port.close();
});
port.postMessage('ready');
