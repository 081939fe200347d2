import { AgentkitError } from '../errors.js';
import type { GuardrailPosition } from './guardrail.js';

/** A blocking guardrail failed (or errored with `onError: 'block'`); the run stops. */
export class GuardrailBlockedError extends AgentkitError {
  readonly guardrailName: string;
  readonly position: GuardrailPosition;
  /** The guardrail's message, or the error of the check. */
  readonly reason: string;

  constructor(guardrailName: string, position: GuardrailPosition, reason: string) {
    super('guardrail_blocked', `guardrail '${guardrailName}' blocked the ${position.replace('_', ' ')}${reason ? `: ${reason}` : ''}`);
    this.guardrailName = guardrailName;
    this.position = position;
    this.reason = reason;
  }
}
