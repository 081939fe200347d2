/** The error of the eval layer: a run that cannot be carried out as asked (exit 3 from `agentkit eval ...`). */
import { AgentkitError } from '../errors.js';

/**
 * An eval that cannot run or be read: an unknown scorer, an unreadable dataset, a run id that is not stored. Its CLI
 * exit code is 3 ("run invalid"), never 1, so a broken eval is never mistaken for a model that got worse.
 */
export class EvalError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('eval_error', message, options);
  }
}

/** A malformed threshold rule or eval option: the invocation is wrong (exit 2). */
export class EvalUsageError extends AgentkitError {
  constructor(message: string) {
    super('usage_error', message);
  }
}
