/**
 * The scorer contract: a named check of one case's output that returns a verdict `{ passed, score, reason }`.
 * Built-in scorers, LLM judges and custom functions all implement it. A scorer that throws (or returns something that
 * is not a verdict) does not fail the case: it errors it, because a broken check says nothing about the model.
 */
import type { EvalDatasetCase, EvalInput } from './dataset.js';

/** The verdict of one scorer on one case (the report's `ScorerVerdict`). */
export interface ScorerVerdict {
  passed: boolean;
  score: number;
  reason: string | null;
}

/** What a scorer sees of a case. */
export interface ScoreInput {
  input: EvalInput;
  /** The target's output as text. */
  output: string;
  /** `expected_output` (or `expected`) of the case; undefined when the case has none. */
  expected: string | undefined;
  /** The whole case, extra keys included (`context`, `contexts`, `pattern`, ...). */
  case: EvalDatasetCase;
}

export interface Scorer {
  /** The name the scorecard, the gate rules and the store use. */
  readonly name: string;
  score(input: ScoreInput): ScorerVerdict | Promise<ScorerVerdict>;
}

/** What a custom scorer function may return: a verdict (passed defaults to score >= 0.5), a boolean, or a score. */
export type CustomScore =
  | { score: number; passed?: boolean; reason?: string | null }
  | { passed: boolean; score?: number; reason?: string | null }
  | boolean
  | number;

/** A custom scorer as a plain function, sync or async. */
export type ScorerFunction = (input: EvalInput, output: string, expected: string | undefined, testCase: EvalDatasetCase) => CustomScore | Promise<CustomScore>;

/** A scorer named `name` from a function `(input, output, expected, case) => { score, passed, reason }`. */
export function scorer(name: string, fn: ScorerFunction): Scorer {
  if (typeof name !== 'string' || !/^[A-Za-z_][\w-]*$/.test(name))
    throw new TypeError(`scorer name ${JSON.stringify(name)} must be a word (letters, digits, _ and -)`);
  return {
    name,
    async score({ input, output, expected, case: testCase }) {
      return toVerdict(await fn(input, output, expected, testCase), name);
    },
  };
}

/** Normalise what a custom scorer returned; throws TypeError naming the scorer for anything else. */
export function toVerdict(value: unknown, name: string): ScorerVerdict {
  if (typeof value === 'boolean') return { passed: value, score: value ? 1 : 0, reason: null };
  if (typeof value === 'number' && Number.isFinite(value)) return { passed: value >= 0.5, score: value, reason: null };
  if (value !== null && typeof value === 'object') {
    const v = value as { score?: unknown; passed?: unknown; reason?: unknown };
    const score =
      typeof v.score === 'number' && Number.isFinite(v.score)
        ? v.score
        : typeof v.passed === 'boolean' && v.score === undefined
          ? v.passed
            ? 1
            : 0
          : undefined;
    const passed = typeof v.passed === 'boolean' ? v.passed : score !== undefined ? score >= 0.5 : undefined;
    if (score !== undefined && passed !== undefined) return { passed, score, reason: v.reason === undefined || v.reason === null ? null : String(v.reason) };
  }
  throw new TypeError(`scorer '${name}' returned ${describe(value)}; expected { score, passed, reason }, a boolean or a number`);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
