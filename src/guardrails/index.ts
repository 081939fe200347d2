/** Guardrails: input, output and tool-call checks, code or model judged, every outcome recorded. */
export {
  Guardrail,
  GUARDRAIL_POSITIONS,
  type GuardrailContext,
  type GuardrailDict,
  type GuardrailOptions,
  type GuardrailPosition,
  type GuardrailVerdict,
} from './guardrail.js';
export { CodeGuardrail, guardrail, type CodeGuardrailOptions, type GuardrailCheck } from './code-guardrail.js';
export { LLMJudgeGuardrail, parseJudgement, type LLMJudgeOptions } from './llm-judge.js';
export { GuardrailBlockedError } from './errors.js';
export { GuardrailRegistry, currentGuardrailRegistry, defaultGuardrailRegistry, withGuardrailRegistry } from './registry.js';
export { runGuardrails, type GuardrailOutcome, type GuardrailResult, type GuardrailRunContext } from './run.js';
