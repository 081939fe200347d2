/**
 * A guardrail checks text at one position of a run: the user's `input`, the agent's final `output`, or a
 * `tool_call` (the tool's name and arguments as JSON) before the tool runs. A blocking guardrail that fails stops
 * the run with GuardrailBlockedError; a non-blocking one only records a warning. A guardrail that itself fails
 * (throws, or a judge answers nonsense) is `errored`: with `onError: 'block'` (the default) a blocking guardrail
 * then blocks, since an unchecked input is not a checked one.
 */
import { ConfigError } from '../errors.js';
import type { JsonObject } from '../llm/messages.js';
import { currentGuardrailRegistry, type GuardrailRegistry } from './registry.js';

export type GuardrailPosition = 'input' | 'output' | 'tool_call';
export const GUARDRAIL_POSITIONS: readonly GuardrailPosition[] = ['input', 'output', 'tool_call'];

/** What a check decided; `message` says why it failed. */
export interface GuardrailVerdict {
  passed: boolean;
  message?: string;
}

/** What a check receives besides the text. */
export interface GuardrailContext {
  agentName: string;
  executionId: string;
  position: GuardrailPosition;
  /** The `context` value passed to `agent.run()`. */
  context: unknown;
  signal: AbortSignal;
}

/** A guardrail as persisted on the root span (`agent.guardrails`). */
export interface GuardrailDict {
  name: string;
  guardrail_type: string;
  position: GuardrailPosition;
  blocking: boolean;
  on_error: 'block' | 'allow';
  description: string;
  config: JsonObject;
}

export interface GuardrailOptions {
  name: string;
  position: GuardrailPosition;
  /** Stop the run when the check fails (default true). */
  blocking?: boolean;
  /** When the check itself fails: `block` (default) or `allow`. Only matters for blocking guardrails. */
  onError?: 'block' | 'allow';
  description?: string;
  /** Registry to join (default: the current one); `false` to join none. */
  registry?: GuardrailRegistry | false;
}

export abstract class Guardrail {
  readonly name: string;
  readonly position: GuardrailPosition;
  readonly blocking: boolean;
  readonly onError: 'block' | 'allow';
  readonly description: string;
  /** `code` or `llm_judge`. */
  abstract readonly guardrailType: string;

  /** Throws ConfigError for an empty name, an unknown position or onError value. */
  protected constructor(options: GuardrailOptions) {
    if (typeof options.name !== 'string' || options.name.trim() === '') throw new ConfigError('a guardrail needs a non-empty name');
    if (!GUARDRAIL_POSITIONS.includes(options.position)) {
      throw new ConfigError(`guardrail '${options.name}': position must be one of ${GUARDRAIL_POSITIONS.join(', ')}, got ${JSON.stringify(options.position)}`);
    }
    if (options.onError !== undefined && options.onError !== 'block' && options.onError !== 'allow') {
      throw new ConfigError(`guardrail '${options.name}': onError must be 'block' or 'allow', got ${JSON.stringify(options.onError)}`);
    }
    this.name = options.name;
    this.position = options.position;
    this.blocking = options.blocking ?? true;
    this.onError = options.onError ?? 'block';
    this.description = options.description ?? '';
    if (options.registry !== false) (options.registry ?? currentGuardrailRegistry()).register(this);
  }

  /** Check `text`; throwing means the check itself failed (an `errored` outcome). */
  abstract check(text: string, context: GuardrailContext): Promise<GuardrailVerdict>;

  /** The guardrail as persisted on a trace. */
  toDict(): GuardrailDict {
    return {
      name: this.name,
      guardrail_type: this.guardrailType,
      position: this.position,
      blocking: this.blocking,
      on_error: this.onError,
      description: this.description,
      config: this.config(),
    };
  }

  /** Type-specific configuration (no secrets). */
  protected config(): JsonObject {
    return {};
  }
}
