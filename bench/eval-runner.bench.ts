/**
 * Eval throughput, two figures.
 *
 * 1. Concurrency: `evaluate()` over 200 cases against a target that waits 50 ms per case, concurrency 16, scored with
 *    exact_match, each case traced (an `eval.case` span) and the run persisted in a fresh local store. Figure: wall time
 *    over the ideal 200 x 50 ms / 16 = 625 ms (target at most 1.3x), and over a baseline measured in the same run: a
 *    bare pool of 16 promises running the same 200 waits with nothing else.
 * 2. Scoring: the exact_match scorer over 100,000 cases, verdicts aggregated into a scorecard (target over 200,000
 *    cases/s), against a baseline loop that only compares the trimmed strings.
 *
 *   node scripts/bench.mjs eval-runner
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildScorecard, evaluate, exactMatch, flushTraces, type EvalDatasetCase, type ScorerVerdict } from '../src/index.js';

const CASES = 200;
const WAIT_MS = 50;
const CONCURRENCY = 16;
const SCORED = 100_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function barePool(): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CASES) await sleep(WAIT_MS);
    }),
  );
  return performance.now() - started;
}

async function evalRun(dbPath: string): Promise<number> {
  const dataset = Array.from({ length: CASES }, (_, i) => ({ input: `question ${i}`, expected_output: `answer ${i}` }));
  const target = async (input: unknown) => {
    await sleep(WAIT_MS);
    return String(input).replace('question', 'answer');
  };
  const started = performance.now();
  const results = await evaluate(target, dataset, ['exact_match'], { dbPath, concurrency: CONCURRENCY });
  const elapsed = performance.now() - started;
  if (results.scorecard.overall_pass_rate !== 1) throw new Error('the bench target should pass every case');
  return elapsed;
}

async function scoring(): Promise<{ scorer: number; baseline: number }> {
  const cases: EvalDatasetCase[] = Array.from({ length: SCORED }, (_, i) => ({ input: `q${i}`, expected_output: ` answer ${i % 97} ` }));
  const outputs = cases.map((_, i) => `answer ${(i * 7) % 97}`);
  let started = performance.now();
  const verdicts: Array<{ error: null; per_scorer: Record<string, ScorerVerdict> }> = new Array(SCORED);
  for (let i = 0; i < SCORED; i++) {
    const c = cases[i]!;
    verdicts[i] = {
      error: null,
      per_scorer: { exact_match: await exactMatch.score({ input: c.input, output: outputs[i]!, expected: c.expected_output, case: c }) },
    };
  }
  const card = buildScorecard(['exact_match'], verdicts);
  const scorer = performance.now() - started;
  started = performance.now();
  let passed = 0;
  for (let i = 0; i < SCORED; i++) if (outputs[i]!.trim() === cases[i]!.expected_output!.trim()) passed++;
  const baseline = performance.now() - started;
  if (Math.round(card.metrics[0]!.pass_rate * SCORED) !== passed) throw new Error('scorer and baseline disagree');
  return { scorer, baseline };
}

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-eval-'));
try {
  await evalRun(path.join(dir, 'warmup.db'));
  const runs: Array<{ evalMs: number; bareMs: number }> = [];
  for (let i = 0; i < 3; i++) runs.push({ bareMs: await barePool(), evalMs: await evalRun(path.join(dir, `run-${i}.db`)) });
  await flushTraces();
  const ideal = (CASES * WAIT_MS) / CONCURRENCY;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const evalMs = median(runs.map((r) => r.evalMs));
  const bareMs = median(runs.map((r) => r.bareMs));
  console.log(`evaluate(): ${CASES} cases x ${WAIT_MS} ms, concurrency ${CONCURRENCY}: ${evalMs.toFixed(0)} ms (median of 3)`);
  console.log(`  ideal ${ideal.toFixed(0)} ms -> ${(evalMs / ideal).toFixed(2)}x (target <= 1.3x)`);
  console.log(`  bare promise pool ${bareMs.toFixed(0)} ms -> ${(evalMs / bareMs).toFixed(2)}x`);

  await scoring();
  const s = await scoring();
  console.log(`exact_match over ${SCORED.toLocaleString('en')} cases: ${(SCORED / (s.scorer / 1000)).toFixed(0)} cases/s (target > 200000)`);
  console.log(
    `  baseline trimmed compare: ${(SCORED / (s.baseline / 1000)).toFixed(0)} cases/s -> scorer takes ${(s.scorer / s.baseline).toFixed(1)}x its time`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
