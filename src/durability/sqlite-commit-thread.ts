/**
 * The SQLite checkpointer's commit thread: a worker thread with its own connection to the store that runs group
 * commits, so a serving process's request thread encodes checkpoint rows but no longer executes their SQL (about
 * 100 us of a served agent run's 500, decision 261).
 *
 * Contract:
 * - `commit(rows)` runs the rows' statements (the execution key when `ensure` names one, then the insert) in one
 *   IMMEDIATE transaction (a single row that makes no key: one autocommitted statement) and resolves once they are
 *   committed. When anything fails, nothing of the batch is stored and it rejects with a `CommitFailed` carrying
 *   SQLite's code. An insert refused because its delta base is gone fails the batch with code
 *   `AGENTKIT_BASE_GONE`: the caller writes those rows again as full snapshots.
 * - Batches are pipelined and committed in the order sent; batches that queued while the thread was busy are
 *   committed together, in one transaction. After a failed batch the thread is halted: every batch sent after it
 *   rejects with code `AGENTKIT_HALTED`, unwritten, until `resume()`. So the caller, which writes a failed batch
 *   again itself, can do the same for the ones after it, in order, before the thread writes anything newer.
 * - A locked store is waited for on the thread, never on the caller's event loop. The thread counts itself as a
 *   waiting commit (../store/write-priority.ts), so this process's span writer ends its transaction and wakes it; it
 *   polls every millisecond meanwhile (SQLite's own busy handler would sleep up to 100 ms between tries), for up to
 *   the caller's `lockWaitMs`, then waits once more with the store's busy timeout, as every other write does. A
 *   thread lost while it waits is counted out by the caller's side (`lose`), so span writers do not go on yielding
 *   to a commit that will never come.
 * - When the thread exits or fails, the batches in flight reject with `ThreadLost`: their rows may or may not have
 *   been committed, so the caller looks them up before writing them again. The thread is unref'd while idle (it
 *   never keeps a process alive) and ref'd while a batch is in flight (a process does not exit before its rows land).
 *
 * Plain CommonJS evaluated in the worker (as the WAL keeper's): no TypeScript loader is needed in dev or from dist/.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { WRITER_CHECKPOINT_FRAMES } from '../store/wal-keeper.js';
import { threadErrorText } from '../store/thread-error.js';
import { SPAN_YIELDS, WAITING_COMMITS, WritePriority, writePriorityBuffer } from '../store/write-priority.js';

/** One row of a batch: the execution whose key is made first (null: it has one), and the insert's parameters. */
export interface CommitRow {
  ensure: string | null;
  params: unknown[];
}

/** The statements the thread prepares (the checkpointer's own SQL text, so it lives in one place). */
export interface CommitStatements {
  insert: string;
  ensureExecution: string;
  /** The error message with which `insert` refuses a delta row whose base is gone (code SQLITE_CONSTRAINT_NOTNULL). */
  baseGoneMessage: string;
}

/** A batch the thread rolled back: `code` is SQLite's (SQLITE_CONSTRAINT_UNIQUE, SQLITE_BUSY, ...) or AGENTKIT_BASE_GONE. */
export class CommitFailed extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'CommitFailed';
  }
}

/** The thread exited or failed with a batch in flight: whether it committed is unknown. */
export class ThreadLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ThreadLost';
  }
}

export const BASE_GONE = 'AGENTKIT_BASE_GONE';
/** The code of a batch refused because one sent before it failed (see `resume`). */
export const HALTED = 'AGENTKIT_HALTED';

const WORKER_SOURCE = `
const { workerData, parentPort, receiveMessageOnPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('wal_autocheckpoint = ' + workerData.checkpointFrames);
const insert = db.prepare(workerData.sql.insert);
const ensure = db.prepare(workerData.sql.ensureExecution);
// The process's write-priority counters (src/store/write-priority.ts), and this thread's own flag: set while it is
// counted as a waiting commit, so the caller can count it out if the thread dies meanwhile.
const priority = new Int32Array(workerData.priority);
const waiting = new Int32Array(workerData.waiting);
const write = (batches) => {
  for (const batch of batches) {
    for (const row of batch.rows) {
      if (row.ensure !== null) ensure.run(row.ensure);
      try {
        insert.run(row.params);
      } catch (error) {
        if (error && error.code === 'SQLITE_CONSTRAINT_NOTNULL' && error.message === workerData.sql.baseGoneMessage) {
          throw Object.assign(new Error('the delta base of a row is gone'), { code: '${BASE_GONE}' });
        }
        throw error;
      }
    }
  }
};
const inTransaction = db.transaction(write).immediate;
const isBusy = (error) => String(error && error.code).startsWith('SQLITE_BUSY');
let halted = false;
const reply = (batches, error) => {
  for (const batch of batches) {
    parentPort.postMessage(error === undefined ? { id: batch.id, ok: true } : { id: batch.id, ok: false, code: error.code !== undefined ? String(error.code) : undefined, message: String(error.message) });
  }
};
/** Commit the batches in one transaction; while the lock is taken, wait on the thread (see the module comment). */
const commit = (batches) => {
  const started = Date.now();
  let blocking = false;
  let wanted = false;
  try {
    for (;;) {
      const seen = Atomics.load(priority, ${SPAN_YIELDS});
      try {
        if (blocking) db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
        if (batches.length === 1 && batches[0].rows.length === 1 && batches[0].rows[0].ensure === null) write(batches);
        else inTransaction(batches);
        reply(batches);
        return;
      } catch (error) {
        if (blocking || !isBusy(error)) {
          halted = true;
          reply(batches, error || {});
          return;
        }
      } finally {
        if (blocking) db.pragma('busy_timeout = 0');
      }
      if (!wanted) {
        Atomics.store(waiting, 0, 1);
        Atomics.add(priority, ${WAITING_COMMITS}, 1);
        wanted = true;
      }
      // Woken as soon as a span writer ends its transaction for this commit; polled every millisecond otherwise.
      Atomics.wait(priority, ${SPAN_YIELDS}, seen, 1);
      blocking = Date.now() - started >= workerData.lockWaitMs;
    }
  } finally {
    if (wanted && Atomics.exchange(waiting, 0, 0) === 1) {
      Atomics.sub(priority, ${WAITING_COMMITS}, 1);
      Atomics.notify(priority, ${WAITING_COMMITS});
    }
  }
};
const handle = (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return false;
  }
  if (message === 'resume') {
    halted = false;
    return true;
  }
  // Batches sent meanwhile join this one (one transaction), up to the next control message.
  const batches = [message];
  let control;
  let next;
  while ((next = receiveMessageOnPort(parentPort)) !== undefined) {
    if (typeof next.message === 'string') {
      control = next.message;
      break;
    }
    batches.push(next.message);
  }
  if (halted) reply(batches, { code: '${HALTED}', message: 'a batch before this one failed' });
  else commit(batches);
  return control === undefined || handle(control);
};
parentPort.on('message', handle);
parentPort.postMessage('ready');
`;

interface InFlight {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class CommitThread {
  #ready = false;
  #lost = false;
  readonly #inFlight = new Map<number, InFlight>();
  #nextId = 1;

  private constructor(
    private readonly worker: Worker,
    /** [0] is 1 while the thread counts itself as a waiting commit (see the worker source). */
    private readonly waiting: Int32Array,
  ) {
    worker.unref();
    worker.on('message', (message: 'ready' | { id: number; ok: boolean; code?: string; message?: string }) => {
      if (message === 'ready') {
        this.#ready = true;
        return;
      }
      const pending = this.#inFlight.get(message.id);
      if (!pending) return;
      this.#inFlight.delete(message.id);
      if (this.#inFlight.size === 0) this.worker.unref();
      if (message.ok) pending.resolve();
      else pending.reject(new CommitFailed(message.code, message.message ?? 'the commit thread failed'));
    });
    const lose = (reason: string) => {
      if (this.#lost) return;
      this.#lost = true;
      this.#ready = false;
      // Counted as waiting when it died: count it out (whichever side clears the flag does).
      if (Atomics.exchange(this.waiting, 0, 0) === 1) new WritePriority().served();
      const pending = [...this.#inFlight.values()];
      this.#inFlight.clear();
      for (const batch of pending) batch.reject(new ThreadLost(reason));
    };
    worker.on('error', (error) => lose(`the commit thread failed: ${threadErrorText(error)}`));
    worker.on('exit', (code) => lose(`the commit thread exited (code ${code})`));
  }

  /**
   * Start a thread on the store `file` (already created and migrated); `busyTimeoutMs` is the store's busy timeout,
   * `lockWaitMs` how long the thread retries a locked store before it waits with it. Undefined when no thread can
   * start here.
   */
  static start(file: string, sql: CommitStatements, waits: { busyTimeoutMs: number; lockWaitMs: number }): CommitThread | undefined {
    try {
      const driver = createRequire(import.meta.url).resolve('better-sqlite3');
      const waiting = new SharedArrayBuffer(4);
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { file, driver, sql, ...waits, checkpointFrames: WRITER_CHECKPOINT_FRAMES, priority: writePriorityBuffer(), waiting },
      });
      return new CommitThread(worker, new Int32Array(waiting));
    } catch {
      return undefined;
    }
  }

  /** True once the thread has opened the store and prepared its statements (and until it is lost or stopped). */
  get ready(): boolean {
    return this.#ready && !this.#lost;
  }

  /** Batches sent and not yet settled. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Commit `rows` (see the module comment). */
  commit(rows: CommitRow[]): Promise<void> {
    if (!this.ready) return Promise.reject(new ThreadLost('the commit thread is not running'));
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      this.#inFlight.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, rows });
    });
  }

  /** Let the thread write again after a failed batch (call once every batch sent before has settled). */
  resume(): void {
    if (this.ready) this.worker.postMessage('resume');
  }

  /** Stop the thread (call once no batch is in flight). */
  stop(): void {
    this.#ready = false;
    this.#lost = true;
    this.worker.postMessage('stop');
  }
}
