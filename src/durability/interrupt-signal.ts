/**
 * InterruptSignal: raised by `interrupt()` when no resume value is in scope, and caught by the executors (the Chain
 * node runner, the Agent tool loop), which persist the pause and return a `paused` result. It is control flow, not a
 * failure: executors never retry it and never write a failed terminal row for it.
 */
import type { InterruptSignalPayload } from '../types.js';
import type { JsonRecord } from './json.js';

/** The registered control-flow mark (tools/control-flow.ts): the agent tool loop lets a marked error through untouched. */
const CONTROL_FLOW: unique symbol = Symbol.for('agentkit.control-flow') as never;

export class InterruptSignal extends Error {
  /** Marks the signal as control flow, so a tool's `interrupt()` reaches the agent executor instead of the model. */
  readonly [CONTROL_FLOW] = true;
  /** Why the run paused (e.g. `manager_approval`). */
  readonly reason: string;
  /** What the human needs to decide, frozen at this moment (a deep copy of what `interrupt()` was given). */
  readonly context: JsonRecord;

  constructor(reason: string, context: JsonRecord) {
    super(`interrupt: ${reason} (paused for a human decision; an executor persists this and returns status "paused")`);
    this.name = 'InterruptSignal';
    this.reason = reason;
    this.context = context;
  }

  /** The wire payload `{ reason, context }`. */
  toJSON(): InterruptSignalPayload {
    return { reason: this.reason, context: this.context };
  }
}

/** True for an InterruptSignal, also one raised by another copy of agentkit loaded in the same process. */
export function isInterruptSignal(error: unknown): error is InterruptSignal {
  return error instanceof InterruptSignal || (error instanceof Error && error.name === 'InterruptSignal' && 'reason' in error && 'context' in error);
}
