/**
 * The main thread's side of the writer thread. Spans are converted to rows and inserted on another thread, so a
 * traced run pays for creating its spans and handing them over, not for serialising and storing them. Waiting for a
 * flush reads a counter in shared memory (synchronously with Atomics.wait, or asynchronously with waitAsync). The
 * thread keeps the process alive only while it starts (until it has loaded the native SQLite module: a process that
 * exits meanwhile aborts), while a flush waits for it, and while it closes.
 *
 * The thread runs writer-worker.ts, started by ../store/worker-module.ts.
 */
import type { Worker } from 'node:worker_threads';
import { knownSecrets } from '../config/secrets.js';
import { threadErrorText } from '../store/thread-error.js';
import { startWorkerModule, workerModuleUrl } from '../store/worker-module.js';
import type { StoreBatch } from './store-writer.js';

/** How long a closed writer thread may take to end by itself before it is terminated. */
const CLOSE_GRACE_MS = 2000;

/** `secrets`: values registered on the main thread since the last batch; the thread masks spans with its own copy. */
export type WriterMessage = { type: 'batch'; seq: number; batches: StoreBatch[]; secrets?: string[] } | { type: 'close'; seq: number };

/** Values of the thread-state slot: starting (0), running, failed to start. */
export const THREAD_RUNNING = 1;
export const THREAD_FAILED = 2;

/** `Atomics.waitAsync` (Node 16+; typed in the ES2024 library, newer than ours). */
const waitAsync = (
  Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeout: number): { async: boolean; value: Promise<unknown> | string } }
).waitAsync;

/** How long a flush waits for the thread before giving up with a warning. */
const WAIT_LIMIT_MS = 30_000;

export class WriterThread {
  private readonly worker: Worker;
  /** [0] the last batch the thread handled, [1] its state. */
  private readonly shared: Int32Array;
  private posted = 0;
  /** Spans of each batch posted and not yet known written, oldest first: [seq, spans]. */
  private readonly unwritten: Array<[number, number]> = [];
  private unwrittenSpans = 0;
  /** How many registered secrets the thread has been sent (the registry only grows). */
  private secretsSent = 0;
  private failed = false;
  /** True once the thread said it is ready; until then it stays ref'd. */
  private ready = false;
  /** Asynchronous flushes waiting for the thread (each keeps it ref'd). */
  private waiters = 0;
  /** Set by close: from then on the thread stays ref'd until it ends. */
  private closing = false;

  private constructor(
    worker: Worker,
    shared: Int32Array,
    private readonly warn: (message: string) => void,
  ) {
    this.worker = worker;
    this.shared = shared;
    worker.on('message', (message: { type: string; message: string }) => {
      if (message.type === 'warning') warn(message.message);
      else if (message.type === 'ready') {
        this.ready = true;
        if (this.waiters === 0 && !this.closing) worker.unref();
      }
    });
    worker.on('error', (error) => {
      this.failed = true;
      warn(`agentkit tracing: the writer thread failed (${threadErrorText(error)}); spans are written on the main thread from now on`);
    });
  }

  /**
   * Start the thread, or return null when it cannot be started (spans are then written inline). `entryUrl` replaces
   * the worker module (tests start a thread that cannot load); `busyTimeoutMs` replaces the stores' busy timeout
   * (tests of a locked store).
   */
  static start(warn: (message: string) => void, options: { entryUrl?: string; busyTimeoutMs?: number } = {}): WriterThread | null {
    const { entryUrl, busyTimeoutMs } = options;
    const shared = new SharedArrayBuffer(8);
    try {
      // A thread that cannot load marks itself failed, so a flush waiting for it returns at once.
      const worker = startWorkerModule(entryUrl ?? workerModuleUrl(import.meta.url, 'writer-worker'), {
        workerData: { shared, ...(busyTimeoutMs !== undefined ? { busyTimeoutMs } : {}) },
        loadFailure: { key: 'shared', index: 1, value: THREAD_FAILED },
      });
      return new WriterThread(worker, new Int32Array(shared), warn);
    } catch (error) {
      warn(`agentkit tracing: no writer thread (${error instanceof Error ? error.message : String(error)}); spans are written on the main thread`);
      return null;
    }
  }

  /** False once the thread failed; the caller then writes inline. */
  get usable(): boolean {
    if (!this.failed && Atomics.load(this.shared, 1) === THREAD_FAILED) this.failed = true;
    return !this.failed;
  }

  /** True when every batch handed over is written: the thread is waiting for work. */
  get idle(): boolean {
    return Atomics.load(this.shared, 0) >= this.posted;
  }

  /**
   * Spans handed over and not yet written (the thread behind, or holding rows for a locked store). Exact once the
   * thread has reported; counts only batches it has not reported yet. 0 once the thread failed: what it had will
   * never be written, and spans written inline since must not count against it.
   */
  get pendingSpans(): number {
    if (!this.usable) {
      this.unwritten.length = 0;
      this.unwrittenSpans = 0;
      return 0;
    }
    const handled = Atomics.load(this.shared, 0);
    while (this.unwritten.length > 0 && this.unwritten[0]![0] <= handled) this.unwrittenSpans -= this.unwritten.shift()![1];
    return this.unwrittenSpans;
  }

  /**
   * Hand batches over; returns at once. The spans' buffers are transferred (the caller must not touch them after);
   * only guardrail events, rare, are cloned.
   */
  post(batches: StoreBatch[]): void {
    const secrets = knownSecrets();
    const fresh = secrets.length !== this.secretsSent ? secrets : undefined;
    this.secretsSent = secrets.length;
    const transfer: ArrayBuffer[] = [];
    for (const batch of batches)
      for (const chunk of batch.spans) if (!transfer.includes(chunk.buffer as ArrayBuffer)) transfer.push(chunk.buffer as ArrayBuffer);
    this.worker.postMessage({ type: 'batch', seq: ++this.posted, batches, ...(fresh ? { secrets: fresh } : {}) } satisfies WriterMessage, transfer);
    let spans = 0;
    for (const batch of batches) spans += batch.spanCount;
    if (spans > 0) {
      this.unwritten.push([this.posted, spans]);
      this.unwrittenSpans += spans;
    }
  }

  /** Block until every batch handed over is written (or the thread failed, or the wait limit passed). */
  waitSync(): void {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const current = Atomics.load(this.shared, 0);
      if (current >= this.posted || !this.usable) return;
      const left = deadline - Date.now();
      if (left <= 0) {
        this.warn(`agentkit tracing: the writer thread did not finish within ${WAIT_LIMIT_MS} ms`);
        return;
      }
      Atomics.wait(this.shared, 0, current, Math.min(left, 100));
    }
  }

  /** Resolve when every batch handed over is written. */
  async wait(): Promise<void> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    // Someone is waiting for the thread: it must keep the process alive until it answers.
    this.worker.ref();
    this.waiters++;
    try {
      for (;;) {
        const current = Atomics.load(this.shared, 0);
        if (current >= this.posted || !this.usable || Date.now() > deadline) return;
        const result = waitAsync(this.shared, 0, current, 100);
        if (result.async) await result.value;
      }
    } finally {
      if (--this.waiters === 0 && this.ready && !this.closing) this.worker.unref();
    }
  }

  /**
   * Write what is pending, close the thread's connections and let the thread end. It ends by itself once its
   * connections are closed: terminating it could stop a WAL keeper it started (a thread of its own) while that one is
   * still loading the native SQLite module, which aborts the whole process (a fatal N-API error, seen at exit on
   * Node 22 and 26). It keeps the process alive until then, for at most `CLOSE_GRACE_MS`, then it is terminated.
   */
  close(): void {
    if (!this.usable) return;
    this.closing = true;
    this.worker.postMessage({ type: 'close', seq: ++this.posted } satisfies WriterMessage);
    this.waitSync();
    this.worker.ref();
    const worker = this.worker;
    const deadline = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS).unref();
    worker.once('exit', () => clearTimeout(deadline));
  }
}
