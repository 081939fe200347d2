/**
 * Background threads (the span writer, WAL keepers) yield the CPU to the thread that serves requests and runs
 * agents: on a machine with few cores they compete with it, and their work is never what a caller waits for (a
 * flush waits, but only for work already handed over). On Linux a thread's nice value is its own: `setpriority` on a
 * thread id (from `/proc/thread-self`) changes that thread alone, and raising it needs no privilege. Elsewhere
 * nothing changes.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value background threads run at (0 is the default, 19 the lowest priority). */
export const BACKGROUND_NICENESS = 10;

/** The calling thread's kernel id, or null where there is no `/proc/thread-self`. */
export function currentThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Lower the calling thread's priority to `niceness` (never raises it). Returns true when the thread now runs at
 * least that nice. Never throws: a platform without per-thread priorities keeps running as before.
 */
export function yieldThisThread(niceness = BACKGROUND_NICENESS): boolean {
  const tid = currentThreadId();
  if (tid === null) return false;
  try {
    if (getPriority(tid) < niceness) setPriority(tid, niceness);
    return getPriority(tid) >= niceness;
  } catch {
    return false;
  }
}
