/**
 * After-commit notification of checkpoint writes, so connected mode can replicate without the durability layer
 * knowing about the Platform. Checkpointers call `notifyCheckpointWrite(this)` once a `put`, `putWrites` or
 * `recordInterrupt` has committed. Listeners must return at once (they schedule work; they never await it on the
 * writer's path) and must not throw; a throwing listener is ignored so a write never fails because of it.
 */
import type { Checkpointer } from './checkpointer.js';

type Listener = (checkpointer: Checkpointer) => void;

const listeners = new Set<Listener>();

/** Hear about every committed write from now on; returns a function that stops it. */
export function onCheckpointWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called by checkpointers after a committed write. Costs one size check when nobody listens. */
export function notifyCheckpointWrite(checkpointer: Checkpointer): void {
  if (listeners.size === 0) return;
  for (const listener of listeners) {
    try {
      listener(checkpointer);
    } catch {
      // A listener's failure is its own; the write has committed.
    }
  }
}
