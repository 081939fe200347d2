/**
 * Checkpoint rows before span rows on a shared store. A serving process writes both into local.db from two threads
 * (the checkpointer's commit thread, the span writer), and SQLite lets one writer at a time hold the lock. A run
 * waits for its checkpoint; nobody waits for a span. Under load the span writer held the lock a fifth of the time, in
 * transactions of a hundred rows and more (up to 29 ms), and a third of the checkpoint commits waited for one, polling
 * every millisecond (ADR 0031).
 *
 * So the two coordinate through shared memory, one pair of counters per process (any store: a span writer yielding
 * for a commit on another file only pauses a moment):
 * - [0] checkpoint commits waiting for a write lock. A commit that finds the lock taken counts itself in (`want`)
 *   and out once it is done (`served`), and between tries waits on [1].
 * - [1] how many times a span writer ended its transaction early for them: it bumps this right after committing, so a
 *   waiting commit wakes at once instead of at its next poll.
 * A span writer checks [0] between its insert statements (eight rows each): when a commit waits, it commits what it
 * has, waits until none does (at most `MAX_YIELD_MS`), and goes on in a new transaction that writes at least
 * `MIN_ROWS_AFTER_YIELD` rows before it checks again, so spans always make progress.
 */

/** Slot of the count of checkpoint commits waiting for a lock. */
export const WAITING_COMMITS = 0;
/** Slot the span writer bumps after ending a transaction early. */
export const SPAN_YIELDS = 1;
/** Longest a span writer waits for waiting commits before it writes again. */
export const MAX_YIELD_MS = 20;
/** Rows a span writer writes after a yield before it looks at waiting commits again. */
export const MIN_ROWS_AFTER_YIELD = 64;

/** The process's counters (one SharedArrayBuffer; handed to every thread that writes a store). */
const shared = new SharedArrayBuffer(8);

/** The process-wide buffer, for a worker's `workerData`. */
export function writePriorityBuffer(): SharedArrayBuffer {
  return shared;
}

/** The counters as seen by one thread (pass the buffer from `writePriorityBuffer`). */
export class WritePriority {
  readonly #slots: Int32Array;

  constructor(buffer: SharedArrayBuffer = shared) {
    this.#slots = new Int32Array(buffer);
  }

  /** A checkpoint commit found the write lock taken: span writers yield until `served`. */
  want(): void {
    Atomics.add(this.#slots, WAITING_COMMITS, 1);
  }

  /** The commit counted by `want` is done (committed or failed). */
  served(): void {
    Atomics.sub(this.#slots, WAITING_COMMITS, 1);
    Atomics.notify(this.#slots, WAITING_COMMITS);
  }

  /** How many times span writers have yielded (a waiting commit waits for this to move). */
  yields(): number {
    return Atomics.load(this.#slots, SPAN_YIELDS);
  }

  /** True while a checkpoint commit waits for a lock (span writers check between statements). */
  get contended(): boolean {
    return Atomics.load(this.#slots, WAITING_COMMITS) > 0;
  }

  /** A span writer ended its transaction early: wake the waiting commits. */
  yielded(): void {
    Atomics.add(this.#slots, SPAN_YIELDS, 1);
    Atomics.notify(this.#slots, SPAN_YIELDS);
  }

  /** Block until no checkpoint commit waits, at most `maxMs`. Worker threads only. */
  waitForCommits(maxMs = MAX_YIELD_MS): void {
    const deadline = Date.now() + maxMs;
    for (;;) {
      const waiting = Atomics.load(this.#slots, WAITING_COMMITS);
      const left = deadline - Date.now();
      if (waiting <= 0 || left <= 0) return;
      Atomics.wait(this.#slots, WAITING_COMMITS, waiting, left);
    }
  }
}
