/**
 * Aggregates of a run, as the report defines them: per scorer `avg_score` and `pass_rate` over the cases it scored;
 * `overall_pass_rate` = passed verdicts over all verdicts across scorers; errored cases are counted, never scored.
 */
import type { Scorecard } from '../../generated/types/resources.js';
import type { ScorerVerdict } from './scorer.js';

/** What aggregation needs of a case. */
export interface ScoredCase {
  error: string | null;
  per_scorer: Record<string, ScorerVerdict>;
}

/** The scorecard of `cases` for `scorerNames` (in that order). Rates of a scorer that scored nothing are 0. */
export function buildScorecard(scorerNames: readonly string[], cases: readonly ScoredCase[]): Scorecard {
  let verdicts = 0;
  let passedVerdicts = 0;
  const metrics = scorerNames.map((name) => {
    let n = 0;
    let passed = 0;
    let total = 0;
    for (const c of cases) {
      if (c.error !== null) continue;
      const v = c.per_scorer[name];
      if (!v) continue;
      n++;
      total += v.score;
      if (v.passed) passed++;
    }
    verdicts += n;
    passedVerdicts += passed;
    return { name, avg_score: n === 0 ? 0 : total / n, pass_rate: n === 0 ? 0 : passed / n, n };
  });
  return {
    metrics,
    overall_pass_rate: verdicts === 0 ? 0 : passedVerdicts / verdicts,
    total_cases: cases.length,
    errored: cases.filter((c) => c.error !== null).length,
  };
}

/** Errored cases over all cases (0 for an empty run). */
export function errorRate(scorecard: Scorecard): number {
  return scorecard.total_cases === 0 ? 0 : scorecard.errored / scorecard.total_cases;
}
