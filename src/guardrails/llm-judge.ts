/**
 * A guardrail judged by a model: the model reads the criteria and the text and answers
 * `{"passed": true|false, "reason": "..."}`. An answer that says neither is an error of the check (outcome
 * `errored`), never silently a pass.
 */
import { ConfigError } from '../errors.js';
import { systemMessage, userMessage, type JsonObject } from '../llm/messages.js';
import type { ChatModel } from '../llm/types.js';
import { Guardrail, type GuardrailContext, type GuardrailOptions, type GuardrailVerdict } from './guardrail.js';

export interface LLMJudgeOptions extends GuardrailOptions {
  llm: ChatModel;
  /** What the text must satisfy, in plain words ("contains no personal data"). */
  criteria: string;
}

const JUDGE_SYSTEM =
  'You are a guardrail. Decide whether the content satisfies the criteria. Answer with one JSON object and nothing else: {"passed": true or false, "reason": "<one sentence>"}.';

/** A guardrail whose verdict comes from a model. */
export class LLMJudgeGuardrail extends Guardrail {
  readonly guardrailType = 'llm_judge';
  readonly llm: ChatModel;
  readonly criteria: string;

  constructor(options: LLMJudgeOptions) {
    super(options);
    if (!options.criteria || options.criteria.trim() === '') throw new ConfigError(`guardrail '${options.name}': criteria must be a non-empty text`);
    this.llm = options.llm;
    this.criteria = options.criteria;
  }

  async check(text: string, context: GuardrailContext): Promise<GuardrailVerdict> {
    const prompt = `Criteria: ${this.criteria}\n\nContent (${context.position.replace('_', ' ')}):\n<<<\n${text}\n>>>`;
    const response = await this.llm.complete(
      { messages: [systemMessage(JUDGE_SYSTEM), userMessage(prompt)], settings: { temperature: 0 } },
      { signal: context.signal },
    );
    return parseJudgement(response.text);
  }

  protected override config(): JsonObject {
    return { criteria: this.criteria, llm: { ...this.llm.toConfig() } as JsonObject };
  }
}

/** Read a judge's answer: a JSON object with a boolean `passed`, or a leading PASS / FAIL. Throws otherwise. */
export function parseJudgement(answer: string): GuardrailVerdict {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start !== -1 && end > start) {
    try {
      const parsed = JSON.parse(answer.slice(start, end + 1)) as { passed?: unknown; reason?: unknown };
      if (typeof parsed.passed === 'boolean') {
        return typeof parsed.reason === 'string' && parsed.reason !== '' ? { passed: parsed.passed, message: parsed.reason } : { passed: parsed.passed };
      }
    } catch {
      // Not JSON after all: try the plain-word form below.
    }
  }
  const word = /^\s*(PASS|PASSED|FAIL|FAILED)\b[\s:.-]*(.*)$/is.exec(answer);
  if (word) {
    const passed = word[1]!.toUpperCase().startsWith('PASS');
    const reason = word[2]!.trim();
    return reason ? { passed, message: reason } : { passed };
  }
  throw new Error(`the judge's answer is neither {"passed": ...} nor PASS/FAIL: ${answer.slice(0, 200)}`);
}
