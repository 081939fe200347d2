/**
 * The built-in deterministic scorers. Reasons never quote the output or the expected text: they travel with verdicts
 * (into reports and stores), and what a case said belongs only in the case.
 */
import type { Scorer, ScorerVerdict } from './scorer.js';

const NO_EXPECTED: ScorerVerdict = { passed: false, score: 0, reason: 'No expected output' };
const PASS: ScorerVerdict = { passed: true, score: 1, reason: null };

/** `exact_match`: the output equals the expected output, surrounding whitespace ignored. */
export const exactMatch: Scorer = {
  name: 'exact_match',
  score({ output, expected }) {
    if (expected === undefined) return NO_EXPECTED;
    return output.trim() === expected.trim() ? PASS : { passed: false, score: 0, reason: 'output differs from the expected output' };
  },
};

/** `contains`: the expected output occurs in the output, case-insensitively. */
export const contains: Scorer = {
  name: 'contains',
  score({ output, expected }) {
    if (expected === undefined) return NO_EXPECTED;
    return output.toLowerCase().includes(expected.toLowerCase()) ? PASS : { passed: false, score: 0, reason: 'expected output not found in the output' };
  },
};

/** `json_valid`: the output parses as JSON. */
export const jsonValid: Scorer = {
  name: 'json_valid',
  score({ output }) {
    try {
      JSON.parse(output);
      return PASS;
    } catch (error) {
      return { passed: false, score: 0, reason: `not JSON: ${(error as Error).message.split(/\r?\n/)[0]!.slice(0, 80)}` };
    }
  },
};

/**
 * `regex_match`: the output matches a regular expression: `pattern` given here, else the case's `pattern` key,
 * else its expected output read as a pattern. An invalid pattern throws (the case errors: the check is broken).
 */
export function regexMatch(options: { pattern?: string; flags?: string } = {}): Scorer {
  const fixed = options.pattern === undefined ? undefined : compile(options.pattern, options.flags);
  return {
    name: 'regex_match',
    score({ output, expected, case: testCase }) {
      const own = typeof testCase.pattern === 'string' ? testCase.pattern : expected;
      const regex = fixed ?? (own === undefined ? undefined : compile(own, options.flags));
      if (!regex) return { passed: false, score: 0, reason: 'No pattern (give one, a case "pattern", or an expected output)' };
      regex.lastIndex = 0;
      return regex.test(output) ? PASS : { passed: false, score: 0, reason: 'output does not match the pattern' };
    },
  };
}

function compile(pattern: string, flags = ''): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new TypeError(`regex_match: invalid pattern: ${(error as Error).message}`);
  }
}
