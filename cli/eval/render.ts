/** Plain-text rendering of eval results: the scorecard with the gate's checks, and a comparison of two runs. */
import type { EvalComparison, EvalRunRecord, GateResult } from '../../src/index.js';
import { table } from '../durability/render.js';

const rate = (value: number) => value.toFixed(3);
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;

/** The scorecard of a run: header, per-scorer table, errored cases (first 10), the gate and its checks. */
export function scorecardText(run: EvalRunRecord, gate: GateResult, where: string | null): string[] {
  const { scorecard } = run;
  const scored = scorecard.total_cases - scorecard.errored;
  const lines = [
    `Eval run ${run.run_id}${run.run_name ? ` (${run.run_name})` : ''}: ${run.agent_name} on ${run.dataset_name}`,
    `${scorecard.total_cases} cases, ${scored} scored, ${scorecard.errored} errored (error rate ${rate(gate.error_rate)})${where ? `; saved to ${where}` : '; not saved'}`,
    '',
    table(
      ['SCORER', 'PASS RATE', 'AVG SCORE', 'N'],
      [...scorecard.metrics.map((m) => [m.name, rate(m.pass_rate), rate(m.avg_score), String(m.n)]), ['overall', rate(scorecard.overall_pass_rate), '', '']],
    ),
  ];
  const errored = run.cases.filter((c) => c.error !== null);
  if (errored.length > 0) {
    lines.push('', `Errored cases (${errored.length}):`);
    for (const c of errored.slice(0, 10)) lines.push(`  #${c.ordinal}: ${oneLine(c.error!, 90)}`);
    if (errored.length > 10) lines.push(`  ... and ${errored.length - 10} more`);
  }
  lines.push('', `Gate: ${gate.outcome.toUpperCase()}`);
  for (const check of gate.checks) lines.push(`  ${check}`);
  if (gate.checks.length === 0) lines.push('  (no thresholds)');
  if (gate.outcome === 'failed') lines.push(...failingCasesText(run));
  return lines;
}

/** Most failing cases a failed gate lists (the rest are in `--json` and the UI). */
const FAILING_SHOWN = 10;

/**
 * The cases a failed gate is about: scored cases with a scorer that did not pass, first 10, each with an excerpt of
 * its input, the scorers that failed with their scores, and its trace id (for `replay show`).
 */
export function failingCasesText(run: EvalRunRecord): string[] {
  const failing = run.cases.filter((c) => c.error === null && Object.values(c.per_scorer).some((v) => !v.passed));
  if (failing.length === 0) return [];
  const lines = ['', `Failing cases (${failing.length}):`];
  for (const c of failing.slice(0, FAILING_SHOWN)) {
    const missed = Object.entries(c.per_scorer)
      .filter(([, v]) => !v.passed)
      .map(([name, v]) => `${name}=${rate(v.score)}`)
      .join(', ');
    const input = typeof c.input === 'string' ? c.input : JSON.stringify(c.input);
    lines.push(`  #${c.ordinal} [${missed}] ${oneLine(input, 70)}${c.trace_id ? `  trace ${c.trace_id}` : ''}`);
  }
  if (failing.length > FAILING_SHOWN) lines.push(`  ... and ${failing.length - FAILING_SHOWN} more (--json <path> has every case)`);
  return lines;
}

/** A comparison: runs, the per-scorer deltas, the interval, the flipped cases and the verdict. */
export function comparisonText(c: EvalComparison, baseline: EvalRunRecord, candidate: EvalRunRecord): string[] {
  const label = (r: EvalRunRecord) => `${r.run_id}${r.run_name ? ` (${r.run_name})` : ''}`;
  const lines = [
    `Baseline:  ${label(baseline)}`,
    `Candidate: ${label(candidate)}`,
    `Compared ${c.compared} case(s); left out ${c.excluded_errored} with an errored side; unmatched: ${c.unmatched.baseline} baseline, ${c.unmatched.candidate} candidate`,
    ...notCompared(c),
    '',
    table(
      ['SCORER', 'BASELINE', 'CANDIDATE', 'DELTA'],
      [
        ...c.metrics.pass_rate.map((m) => [`${m.name}.pass_rate`, rate(m.baseline), rate(m.candidate), signed(m.delta)]),
        ['overall.pass_rate', rate(c.overall.baseline), rate(c.overall.candidate), signed(c.overall.delta)],
      ],
    ),
    '',
    c.delta_ci95
      ? `95% bootstrap interval of the pass-rate delta: [${signed(c.delta_ci95[0])}, ${signed(c.delta_ci95[1])}]${c.significant ? '' : ' (includes 0: could be noise)'}`
      : '95% bootstrap interval: needs at least 2 compared cases',
  ];
  for (const [title, list] of [
    ['Regressed', c.regressed],
    ['Improved', c.improved],
  ] as const) {
    lines.push('', `${title} (${list.length}):`);
    for (const f of list)
      lines.push(`  #${f.candidate_ordinal} [${f.scorers.join(', ')}] ${oneLine(f.input, 80)}${f.candidate_trace_id ? `  trace ${f.candidate_trace_id}` : ''}`);
  }
  const drop = c.overall.baseline - c.overall.candidate;
  lines.push(
    '',
    c.regression
      ? `REGRESSION: overall pass rate fell by ${rate(drop)}, more than the tolerance ${c.tolerance}`
      : `OK: overall pass rate ${drop > 0 ? `fell by ${rate(drop)}, within` : 'did not fall beyond'} the tolerance ${c.tolerance}`,
  );
  return lines;
}

/** The scorers only one run used, named so a changed scorer set never silently moves the overall rate. */
function notCompared(c: EvalComparison): string[] {
  if (c.baseline_only_scorers.length === 0 && c.candidate_only_scorers.length === 0) return [];
  const side = (name: string, list: readonly string[]) => (list.length > 0 ? [`only the ${name} used [${list.join(', ')}]`] : []);
  return [
    `Scorers compared: [${c.scorers.join(', ')}]; not compared: ${[...side('baseline', c.baseline_only_scorers), ...side('candidate', c.candidate_only_scorers)].join('; ')}`,
    "The overall pass rates below are over the compared scorers, not the runs' stored overall scores.",
  ];
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}
