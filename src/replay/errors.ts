/** The error replay raises on purpose: a bad step index, a trace it cannot rerun, a rerun stopped to stay safe. */
import { AgentkitError } from '../errors.js';

/** A replay operation that cannot proceed; the message names what is wrong and, where it can, how to fix it. */
export class ReplayError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('replay_error', message, options);
  }
}

/** The spec's text for an index outside the trace: `Step <n> out of range (0-<max>)`. */
export function stepOutOfRange(step: number, count: number): ReplayError {
  return new ReplayError(`Step ${step} out of range (0-${count - 1})`);
}
