/**
 * Stopping the runs of a process that shuts down (docs/adr/0051). A StopSignal is bound to the async context the runs
 * start in (`run`); each run's lease (./fenced.ts) reads it when it is created. Two steps:
 *
 * - `drain()`: each run stops at its next step boundary, right after that step's checkpoint is written (a chain
 *   node, an agent's model turn, a swarm member's handoff), with RunStopped; its lease is then released but left
 *   active, so the execution is an orphan another process's recovery sweep takes over at once. Writes that finish
 *   a step already under way still go through, and a run that ends or pauses meanwhile ends as usual.
 * - `abandon()` (the grace period is over): every later write of those runs is refused with RunStopped, wherever
 *   they are; their leases are left to expire (the step under way may still be running here), then they are recovered.
 *
 * A run that has not written its first row yet holds no lease and is not stopped by a drain: it stops at its first
 * boundary, once its execution exists.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a process's shutdown stands for the runs bound to a StopSignal. */
export type StopState = 'running' | 'draining' | 'abandoned';

const bound = new AsyncLocalStorage<StopSignal>();

/** A shutdown that runs started under it obey; states only move forward. */
export class StopSignal {
  #state: StopState = 'running';

  get state(): StopState {
    return this.#state;
  }

  /** Stop every run bound to this signal at its next step boundary. */
  drain(): void {
    if (this.#state === 'running') this.#state = 'draining';
  }

  /** Refuse every later write of the runs bound to this signal (the grace period is over). */
  abandon(): void {
    this.#state = 'abandoned';
  }

  /** Call `fn` with this signal bound: runs started inside it (and their async continuations) obey it. */
  run<T>(fn: () => T): T {
    return bound.run(this, fn);
  }
}

/** The StopSignal bound to the current async context, if any. */
export function currentStopSignal(): StopSignal | undefined {
  return bound.getStore();
}
