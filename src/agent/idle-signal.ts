/**
 * The signal a run gets when its caller gave none: one that never aborts (no one holds its controller). Making one
 * costs a run more than the rest of its setup: Node builds each new signal by re-parenting an `EventTarget`, so each
 * gets hidden classes of its own that V8's caches never see twice. A run therefore takes one from a pool and gives it
 * back when it ends. Reuse is invisible: a signal that can never abort behaves the same for every run, and one that
 * still has an `abort` listener when its run ends (a tool that never removed its own) is dropped instead of pooled,
 * so listeners never accumulate.
 */
import { getEventListeners } from 'node:events';

/** Signals kept for reuse at most: more than the runs one process has in flight in any test or bench seen. */
const MAX_POOLED = 256;
const pool: AbortSignal[] = [];

/** A signal that never aborts, for one run. Give it back with `releaseIdleSignal` when the run has ended. */
export function takeIdleSignal(): AbortSignal {
  return pool.pop() ?? new AbortController().signal;
}

/** Back to the pool, unless something still listens to it (or the pool is full). */
export function releaseIdleSignal(signal: AbortSignal): void {
  if (pool.length < MAX_POOLED && getEventListeners(signal, 'abort').length === 0) pool.push(signal);
}

/** Signals pooled now (tests). */
export function pooledIdleSignals(): number {
  return pool.length;
}
