/**
 * `llm_judge`: a model grades the output against criteria (and an optional rubric), either pass/fail (`binary`) or
 * on a 1..N scale normalised to 0..1; the case passes when the normalised score reaches `threshold`. Any configured
 * model works (a provider model, or a deterministic one from `agentkit/testing`). A judge that answers without a
 * usable score errors the case instead of failing it.
 */
import { systemMessage, userMessage } from '../llm/messages.js';
import type { ChatModel } from '../llm/types.js';
import { inputText } from './dataset.js';
import { firstJsonObject } from './judge-reply.js';
import type { Scorer } from './scorer.js';

export interface LlmJudgeOptions {
  /** The judge model. */
  model: ChatModel;
  /** What to judge (default `correctness`). */
  criteria?: string;
  /** How to grade, shown to the judge as is. */
  rubric?: string;
  /** `binary` (default) or the top of a 1..N scale (e.g. 5). */
  scale?: 'binary' | number;
  /** Normalised score needed to pass (default 0.5). */
  threshold?: number;
  /** Scorer name (default `llm_judge`). */
  name?: string;
}

/** An LLM-judge scorer. Throws TypeError for a scale below 2 or a threshold outside 0..1. */
export function llmJudge(options: LlmJudgeOptions): Scorer {
  const criteria = options.criteria ?? 'correctness';
  const scale = options.scale ?? 'binary';
  const threshold = options.threshold ?? 0.5;
  const name = options.name ?? 'llm_judge';
  if (!options.model || typeof options.model.complete !== 'function') throw new TypeError(`${name}: a judge model is required`);
  if (scale !== 'binary' && !(Number.isInteger(scale) && scale >= 2))
    throw new TypeError(`${name}: scale must be 'binary' or an integer of at least 2, got ${String(scale)}`);
  if (!(threshold >= 0 && threshold <= 1)) throw new TypeError(`${name}: threshold must be between 0 and 1, got ${threshold}`);
  const answerShape =
    scale === 'binary' ? '{"passed": true or false, "reason": "<one sentence>"}' : `{"score": <integer 1-${scale}>, "reason": "<one sentence>"}`;
  const system = [
    "You are an impartial evaluator of an AI assistant's answer.",
    `Criteria: ${criteria}.`,
    options.rubric ? `Rubric:\n${options.rubric}` : '',
    `Reply with JSON only: ${answerShape}`,
  ]
    .filter(Boolean)
    .join('\n');
  return {
    name,
    async score({ input, output, expected }) {
      const user = [`Question:\n${inputText(input)}`, expected === undefined ? '' : `Reference answer:\n${expected}`, `Answer to evaluate:\n${output}`]
        .filter(Boolean)
        .join('\n\n');
      const reply = await options.model.complete({ messages: [systemMessage(system), userMessage(user)], settings: { temperature: 0 } });
      const verdict = firstJsonObject(reply.text, name);
      const reason = typeof verdict.reason === 'string' ? verdict.reason : null;
      let score: number;
      if (scale === 'binary') {
        const passed = verdict.passed ?? verdict.pass ?? verdict.score;
        if (typeof passed === 'boolean') score = passed ? 1 : 0;
        else if (passed === 0 || passed === 1) score = passed;
        else throw new Error(`${name}: the judge's answer has no boolean "passed"`);
      } else {
        const raw = Number(verdict.score);
        if (!Number.isFinite(raw) || raw < 1 || raw > scale)
          throw new Error(`${name}: the judge's score ${JSON.stringify(verdict.score)} is not within 1-${scale}`);
        score = (raw - 1) / (scale - 1);
      }
      return { passed: score >= threshold, score, reason };
    },
  };
}
