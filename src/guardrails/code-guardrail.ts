/** Guardrails written as code: `guardrail({ name, position, check: (text) => ... })`. */
import { ConfigError } from '../errors.js';
import { Guardrail, type GuardrailContext, type GuardrailOptions, type GuardrailVerdict } from './guardrail.js';

/** A check: `true`/`false`, or a verdict with a message; sync or async. */
export type GuardrailCheck = (text: string, context: GuardrailContext) => boolean | GuardrailVerdict | Promise<boolean | GuardrailVerdict>;

export interface CodeGuardrailOptions extends GuardrailOptions {
  check: GuardrailCheck;
}

/** A guardrail whose check is a function. */
export class CodeGuardrail extends Guardrail {
  readonly guardrailType = 'code';
  private readonly fn: GuardrailCheck;

  constructor(options: CodeGuardrailOptions) {
    super(options);
    if (typeof options.check !== 'function') throw new ConfigError(`guardrail '${options.name}': check must be a function`);
    this.fn = options.check;
  }

  async check(text: string, context: GuardrailContext): Promise<GuardrailVerdict> {
    return verdictOf(await this.fn(text, context));
  }
}

/** What a check returned, as a verdict; throws naming it when it is neither a boolean nor `{ passed, message }`. */
function verdictOf(result: boolean | GuardrailVerdict): GuardrailVerdict {
  if (typeof result === 'boolean') return { passed: result };
  if (result && typeof result === 'object' && typeof result.passed === 'boolean') return result;
  throw new Error(`check returned ${JSON.stringify(result)}; expected a boolean or { passed, message }`);
}

/** Define a code guardrail (it joins the current guardrail registry). */
export function guardrail(options: CodeGuardrailOptions): CodeGuardrail {
  return new CodeGuardrail(options);
}
