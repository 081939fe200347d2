/**
 * Comparing two stored runs, baseline first. Cases are paired by ordinal when both sides hold the same input there,
 * then by input among the rest; a pair with an errored case on either side is left out. Rates are computed over the
 * pairs on the scorers both runs used; scorers only one run used are named and left out, and two runs that share no
 * scorer cannot be compared (EvalError, exit 3). The candidate regressed when its overall pass rate falls below the
 * baseline's by more than `tolerance`. A 95% paired-bootstrap confidence interval of the pass-rate delta says
 * whether that delta could be noise.
 */
import type { EvalComparison, FlippedCase, MetricDelta } from '../../generated/types/resources.js';
import type { EvalCaseRecord, EvalRunRecord } from './records.js';
import { prng } from '../prng.js';
import { EvalError } from './errors.js';

export interface CompareOptions {
  /** Largest drop in overall pass rate still accepted (default 0). */
  tolerance?: number;
  /** Bootstrap resamples (default 2000). */
  resamples?: number;
  /** Seed of the resampling, so a comparison prints the same interval every time (default 1). */
  seed?: number;
}

/** Contract shapes (spec/evals): a metric side by side, a flipped case, the comparison. */
export type { EvalComparison, FlippedCase, MetricDelta };

/** Compare `baseline` and `candidate`; throws EvalError when they share no scorer. */
export function compareRuns(baseline: EvalRunRecord, candidate: EvalRunRecord, options: CompareOptions = {}): EvalComparison {
  const tolerance = options.tolerance ?? 0;
  const scorers = baseline.scorers.filter((s) => candidate.scorers.includes(s));
  const baselineOnly = baseline.scorers.filter((s) => !candidate.scorers.includes(s));
  const candidateOnly = candidate.scorers.filter((s) => !baseline.scorers.includes(s));
  if (scorers.length === 0)
    throw new EvalError(
      `runs share no scorer, nothing to compare: baseline ${baseline.run_id} used ${listOf(baselineOnly)}, candidate ${candidate.run_id} used ${listOf(candidateOnly)}`,
    );
  const { pairs, unmatched } = pairCases(baseline.cases, candidate.cases);
  const scored = pairs.filter(([b, c]) => b.error === null && c.error === null);
  const rate = (side: 0 | 1, name: string, field: 'passed' | 'score') => {
    if (scored.length === 0) return 0;
    let sum = 0;
    for (const pair of scored) {
      const v = pair[side].per_scorer[name];
      sum += v === undefined ? 0 : field === 'passed' ? (v.passed ? 1 : 0) : v.score;
    }
    return sum / scored.length;
  };
  const delta = (name: string, field: 'passed' | 'score'): MetricDelta => {
    const b = rate(0, name, field);
    const c = rate(1, name, field);
    return { name, baseline: b, candidate: c, delta: c - b };
  };
  // Per pair: passed verdicts on each side, so overall = sum(passed) / (pairs x scorers) and resampling is paired.
  const perPair = scored.map(([b, c]) => [passedCount(b, scorers), passedCount(c, scorers)] as const);
  const overallOf = (rows: ReadonlyArray<readonly [number, number]>) => {
    const verdicts = rows.length * scorers.length;
    if (verdicts === 0) return { b: 0, c: 0 };
    return { b: rows.reduce((s, r) => s + r[0], 0) / verdicts, c: rows.reduce((s, r) => s + r[1], 0) / verdicts };
  };
  const overall = overallOf(perPair);
  const ci = bootstrap(perPair, overallOf, options.resamples ?? 2000, options.seed ?? 1);
  const flipped = (from: boolean): FlippedCase[] =>
    scored.flatMap(([b, c]) => {
      const names = scorers.filter((s) => b.per_scorer[s]?.passed === from && c.per_scorer[s]?.passed === !from);
      return names.length === 0
        ? []
        : [
            {
              baseline_ordinal: b.ordinal,
              candidate_ordinal: c.ordinal,
              input: inputPreview(c.input),
              scorers: names,
              baseline_trace_id: b.trace_id,
              candidate_trace_id: c.trace_id,
            },
          ];
    });
  return {
    baseline_run_id: baseline.run_id,
    candidate_run_id: candidate.run_id,
    tolerance,
    scorers,
    baseline_only_scorers: baselineOnly,
    candidate_only_scorers: candidateOnly,
    compared: scored.length,
    excluded_errored: pairs.length - scored.length,
    unmatched,
    metrics: { pass_rate: scorers.map((s) => delta(s, 'passed')), avg_score: scorers.map((s) => delta(s, 'score')) },
    overall: { name: 'overall', baseline: overall.b, candidate: overall.c, delta: overall.c - overall.b },
    delta_ci95: ci,
    significant: ci !== null && (ci[0] > 0 || ci[1] < 0),
    regressed: flipped(true),
    improved: flipped(false),
    regression: overall.b - overall.c > tolerance + 1e-12,
  };
}

function listOf(scorers: readonly string[]): string {
  return scorers.length === 0 ? 'no scorer' : `[${scorers.join(', ')}]`;
}

function pairCases(baseline: readonly EvalCaseRecord[], candidate: readonly EvalCaseRecord[]) {
  const key = (c: EvalCaseRecord) => JSON.stringify(c.input);
  const pairs: Array<[EvalCaseRecord, EvalCaseRecord]> = [];
  const usedB = new Set<EvalCaseRecord>();
  const byOrdinal = new Map(baseline.map((c) => [c.ordinal, c]));
  const rest: EvalCaseRecord[] = [];
  for (const c of candidate) {
    const b = byOrdinal.get(c.ordinal);
    if (b && key(b) === key(c)) {
      pairs.push([b, c]);
      usedB.add(b);
    } else rest.push(c);
  }
  const byInput = new Map<string, EvalCaseRecord[]>();
  for (const b of baseline) if (!usedB.has(b)) byInput.set(key(b), [...(byInput.get(key(b)) ?? []), b]);
  let unmatchedCandidate = 0;
  for (const c of rest) {
    const b = byInput.get(key(c))?.shift();
    if (b) {
      pairs.push([b, c]);
      usedB.add(b);
    } else unmatchedCandidate++;
  }
  pairs.sort((x, y) => x[1].ordinal - y[1].ordinal);
  return { pairs, unmatched: { baseline: baseline.length - usedB.size, candidate: unmatchedCandidate } };
}

function passedCount(c: EvalCaseRecord, scorers: readonly string[]): number {
  return scorers.reduce((n, s) => n + (c.per_scorer[s]?.passed ? 1 : 0), 0);
}

function bootstrap(
  rows: ReadonlyArray<readonly [number, number]>,
  overallOf: (rows: ReadonlyArray<readonly [number, number]>) => { b: number; c: number },
  resamples: number,
  seed: number,
): [number, number] | null {
  if (rows.length < 2) return null;
  // Seeded: the interval must not change between two prints of the same comparison.
  const random = prng(seed);
  const deltas = new Float64Array(resamples);
  const sample: Array<readonly [number, number]> = new Array(rows.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < rows.length; i++) sample[i] = rows[Math.floor(random() * rows.length)]!;
    const o = overallOf(sample);
    deltas[r] = o.c - o.b;
  }
  deltas.sort();
  return [deltas[Math.floor(0.025 * (resamples - 1))]!, deltas[Math.ceil(0.975 * (resamples - 1))]!];
}

function inputPreview(input: EvalCaseRecord['input']): string {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
