/**
 * The CI gate. Rules read `<scorer|overall>.<pass_rate|avg_score>=<v>` (`>=` also accepted); a bare scorer name means
 * its pass_rate. The outcome takes the first that applies of: invalid (nothing scored, or the error rate above
 * `maxErrorRate`), failed (a rule missed), passed. Invalid means "the run was broken", failed "the model got worse".
 */
import type { GateResult, Scorecard } from '../../generated/types/resources.js';
import { EvalUsageError } from './errors.js';
import { errorRate } from './scorecard.js';

/** One parsed threshold rule. */
export interface GateRule {
  /** `overall` or a scorer name. */
  scorer: string;
  field: 'pass_rate' | 'avg_score';
  minimum: number;
  /** The rule as written. */
  text: string;
}

const FIELDS = new Set(['pass_rate', 'avg_score']);

/** Parse a rule. Throws EvalUsageError (exit 2) naming the rule for any malformed one. */
export function parseRule(text: string): GateRule {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new EvalUsageError(`threshold rule '${text}' must read <scorer|overall>.<pass_rate|avg_score>=<value> (e.g. exact_match.pass_rate=0.8)`);
  const metric = text.slice(0, eq).replace(/>$/, '').trim();
  const valueText = text.slice(eq + 1).trim();
  const minimum = valueText === '' ? Number.NaN : Number(valueText);
  const dot = metric.lastIndexOf('.');
  const field = dot > 0 ? metric.slice(dot + 1) : '';
  // Only a known field splits the metric: a scorer name may itself contain dots.
  const [scorer, which] = FIELDS.has(field) ? [metric.slice(0, dot), field as GateRule['field']] : [metric, 'pass_rate' as const];
  if (!Number.isFinite(minimum) || (which === 'pass_rate' && (minimum < 0 || minimum > 1))) {
    throw new EvalUsageError(`threshold rule '${text}': the value must be a number${which === 'pass_rate' ? ' from 0 to 1' : ''}, got '${valueText}'`);
  }
  if (!/^[A-Za-z_][\w.-]*$/.test(scorer)) throw new EvalUsageError(`threshold rule '${text}': '${scorer}' is not a scorer name`);
  return { scorer, field: which, minimum, text };
}

/** Check every rule names `overall` or one of `scorerNames`; throws EvalUsageError listing the names otherwise. */
export function checkRuleNames(rules: readonly GateRule[], scorerNames: readonly string[]): void {
  for (const rule of rules) {
    if (rule.scorer !== 'overall' && !scorerNames.includes(rule.scorer)) {
      throw new EvalUsageError(
        `threshold rule '${rule.text}' names scorer '${rule.scorer}', which this run does not use (scorers: ${scorerNames.join(', ')}; or 'overall')`,
      );
    }
  }
}

/** Decide the gate for a scorecard. `maxErrorRate` null means no error-rate guard (nothing scored stays invalid). */
export function decideGate(scorecard: Scorecard, rules: readonly GateRule[], maxErrorRate: number | null): GateResult {
  const rate = errorRate(scorecard);
  const scored = scorecard.total_cases - scorecard.errored;
  const checks: string[] = [];
  let missed = false;
  for (const rule of rules) {
    const actual =
      rule.scorer === 'overall'
        ? rule.field === 'pass_rate'
          ? scorecard.overall_pass_rate
          : overallAverage(scorecard)
        : scorecard.metrics.find((m) => m.name === rule.scorer)?.[rule.field];
    const ok = actual !== undefined && actual >= rule.minimum - 1e-12;
    if (!ok) missed = true;
    checks.push(`${rule.scorer}.${rule.field}=${actual === undefined ? 'missing' : round(actual)} >= ${round(rule.minimum)}: ${ok ? 'PASS' : 'FAIL'}`);
  }
  if (maxErrorRate !== null) checks.push(`error_rate=${round(rate)} <= ${round(maxErrorRate)}: ${rate <= maxErrorRate + 1e-12 ? 'PASS' : 'FAIL'}`);
  if (scored === 0) checks.push(`scored=0 > 0: FAIL`);
  const invalid = scored === 0 || (maxErrorRate !== null && rate > maxErrorRate + 1e-12);
  return {
    outcome: invalid ? 'invalid' : missed ? 'failed' : 'passed',
    checks,
    scored,
    errored: scorecard.errored,
    error_rate: rate,
    max_error_rate: maxErrorRate,
  };
}

/** The exit code of a gate outcome: 0 passed, 1 failed, 3 invalid. */
export function gateExitCode(outcome: GateResult['outcome']): number {
  return outcome === 'passed' ? 0 : outcome === 'failed' ? 1 : 3;
}

/** Mean of the scorers' average scores, weighted by how many cases each scored. */
function overallAverage(scorecard: Scorecard): number {
  const n = scorecard.metrics.reduce((sum, m) => sum + m.n, 0);
  return n === 0 ? 0 : scorecard.metrics.reduce((sum, m) => sum + m.avg_score * m.n, 0) / n;
}

/** A rate for a check line: at most 4 decimals, no trailing zeros. */
export function round(value: number): string {
  return String(Math.round(value * 10_000) / 10_000);
}
