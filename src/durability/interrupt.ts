/**
 * `interrupt(reason, context)`: pause the run for a human decision. With no resume value in scope it raises
 * InterruptSignal (the executor persists the pause and returns `paused`); when the run is resumed, the suspended step
 * re-executes from its start with the Resume value bound, and `interrupt()` returns it.
 */
import { ValidationError } from '../errors.js';
import { currentScope } from './execution-scope.js';
import type { Resume } from '../types.js';
import { InterruptSignal } from './interrupt-signal.js';
import { isPlainObject, jsonForm, nonJsonReason, type JsonRecord } from './json.js';

/**
 * Ask for a decision. Returns the Resume value when the current step is being resumed; otherwise throws
 * InterruptSignal carrying `reason` and a deep copy of `context` (frozen now: later changes to the object do not
 * reach the stored pause). Throws ValidationError when `context` is not a JSON object.
 *
 * Every `interrupt()` in the resumed step returns the same Resume value; steps after it run without one.
 */
export function interrupt(reason: string, context: JsonRecord = {}): Resume {
  const bound = currentScope()?.resumeValue;
  if (bound) return bound;
  if (typeof reason !== 'string' || reason === '') throw new ValidationError('interrupt() needs a non-empty reason string');
  if (!isPlainObject(context)) throw new ValidationError('interrupt() context must be a plain object');
  const problem = nonJsonReason(context, '$.context');
  if (problem) throw new ValidationError(`interrupt() context must be JSON (${problem})`);
  throw new InterruptSignal(reason, jsonForm<JsonRecord>(context));
}
