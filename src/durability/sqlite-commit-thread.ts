/**
 * The SQLite checkpointer's commit thread: a worker thread with its own connection to the store that runs group
 * commits, so a serving process's request thread encodes checkpoint rows but no longer executes their SQL (about
 * 100 us of a served agent run's 500, ADR 0031).
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
 * The thread's body is sqlite-commit-worker.ts; what the two exchange is sqlite-commit-protocol.ts.
 */
import type { Worker } from 'node:worker_threads';
import { WRITER_CHECKPOINT_FRAMES } from '../store/wal-keeper.js';
import { threadErrorText } from '../store/thread-error.js';
import { startWorkerModule, workerModuleUrl } from '../store/worker-module.js';
import { WritePriority, writePriorityBuffer } from '../store/write-priority.js';
import type { CommitReply, CommitRequest, CommitRow, CommitStatements, CommitWorkerData } from './sqlite-commit-protocol.js';

export { BASE_GONE, HALTED, type CommitRow, type CommitStatements } from './sqlite-commit-protocol.js';

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
    // Ref'd until it is ready (a process exiting while a thread loads the native SQLite module can die of a fatal
    // N-API error); from then on only while a batch is in flight.
    worker.on('message', (message: CommitReply) => {
      if (message === 'ready') {
        this.#ready = true;
        if (this.#inFlight.size === 0) this.worker.unref();
        return;
      }
      const pending = this.#inFlight.get(message.id);
      if (!pending) return;
      this.#inFlight.delete(message.id);
      if (this.#inFlight.size === 0) this.worker.unref();
      if (message.ok) pending.resolve();
      else pending.reject(new CommitFailed(message.code, message.message));
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
      const waiting = new SharedArrayBuffer(4);
      const workerData: CommitWorkerData = { file, sql, ...waits, checkpointFrames: WRITER_CHECKPOINT_FRAMES, priority: writePriorityBuffer(), waiting };
      const worker = startWorkerModule(workerModuleUrl(import.meta.url, 'sqlite-commit-worker'), { workerData });
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
      this.worker.postMessage({ id, rows } satisfies CommitRequest);
    });
  }

  /** Let the thread write again after a failed batch (call once every batch sent before has settled). */
  resume(): void {
    if (this.ready) this.worker.postMessage('resume' satisfies CommitRequest);
  }

  /** Stop the thread (call once no batch is in flight). */
  stop(): void {
    this.#ready = false;
    this.#lost = true;
    this.worker.postMessage('stop' satisfies CommitRequest);
  }
}
