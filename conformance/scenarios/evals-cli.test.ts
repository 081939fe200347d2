/**
 * `agentkit eval run` as a CI gate on real agent targets: every exit code (0 passed, 1 failed, 3 invalid, 2 usage),
 * every threshold rule form, the error-rate guard, replay's regression-test JSONL used as is, CSV datasets, the JSON
 * report, custom and LLM-judge scorers, and the progress bar's silence off a terminal. The stored run and its traces
 * are checked on both engines (ADR 0064); the gate's arithmetic does not depend on the store, so the rest run on SQLite.
 */
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { startFakeProvider } from '../harness/fake-provider.js';
import { EvalStore, TraceStore } from '../../src/index.js';
import { validator } from '../../generated/schemas/resources.js';

const area = conformance('evals: eval run');
const git = async (cwd: string, args: string[]) => (await promisify(execFile)('git', args, { cwd })).stdout;
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/evals/agents.ts');
const target = (attr: string) => `${fixture}:${attr}`;

/** The variant's store: a local.db file, or a Postgres schema (eval runs live in either, ADR 0064). */
function dbOf(t: ScenarioContext): string {
  return t.store!;
}

/** Five answerable questions (one the agent gets wrong when asked for "Capital of Spain?") and `errors` failing ones. */
async function dataset(t: ScenarioContext, name = 'cases.jsonl', errors = 0): Promise<string> {
  const rows = [
    { input: 'What is 2+2?', expected_output: '4' },
    { input: 'What is 3+3?', expected_output: '6' },
    { input: 'Capital of France?', expected_output: 'Paris' },
    { input: 'Capital of Italy?', expected_output: 'Rome' },
    { input: 'Colour of the sky?', expected_output: 'blue', topic: 'nature' },
    ...Array.from({ length: errors }, (_, i) => ({ input: `boom ${i}`, expected_output: 'x' })),
  ];
  const file = path.join(t.cwd, name);
  await writeFile(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

area.scenario(
  'exit 0: the gate passes; the scorecard, the stored run, trace ids and the JSON report',
  { rows: ['cli:eval run', 'error:eval-exit-codes'], storeEnv: true, surfaces: ['cli'] },
  async (t) => {
    const file = await dataset(t);
    const report = path.join(t.cwd, 'report.json');
    const run = await t.cli([
      'eval',
      'run',
      '--agent',
      target('support'),
      '--dataset',
      file,
      '--scorers',
      'exact_match,contains',
      '--fail-under',
      'exact_match.pass_rate=0.8',
      '--fail-under',
      'contains=1',
      '--run-name',
      'nightly',
      '--json',
      report,
    ]);
    assert.is(run.code, 0, run.stderr + run.stdout);
    assert.is(run.stderr, '', 'no progress bar when stderr is not a terminal');
    const evals = new EvalStore({ dbPath: dbOf(t) });
    t.defer(() => evals.close());
    const stored = await evals.resolveRun('nightly');
    const lines = run.stdout.split('\n');
    assert.is(lines[0], `Eval run ${stored.run_id} (nightly): support on cases.jsonl`);
    assert.is(lines[1], `5 cases, 5 scored, 0 errored (error rate 0.000); saved to ${dbOf(t)}`);
    assert.equal(lines.slice(3, 7), [
      'SCORER       PASS RATE  AVG SCORE  N',
      'exact_match  0.800      0.800      5',
      'contains     1.000      1.000      5',
      'overall      0.900',
    ]);
    assert.ok(run.stdout.includes('Gate: PASSED\n  exact_match.pass_rate=0.8 >= 0.8: PASS\n  contains.pass_rate=1 >= 1: PASS\n'), run.stdout);
    assert.ok(run.stdout.endsWith(`Report written to ${report}\n`));

    const body = JSON.parse(await readFile(report, 'utf8'));
    assert.ok(validator('EvalRunReport').Check(body), 'the report matches the EvalRunReport contract');
    assert.is(body.schema_version, 1);
    assert.is(body.run_id, stored.run_id);
    assert.is(body.run_name, 'nightly');
    assert.equal(body.gate, {
      outcome: 'passed',
      checks: ['exact_match.pass_rate=0.8 >= 0.8: PASS', 'contains.pass_rate=1 >= 1: PASS'],
      scored: 5,
      errored: 0,
      error_rate: 0,
      max_error_rate: null,
    });
    assert.equal(
      body.scorecard.metrics.map((m: { name: string; pass_rate: number; n: number }) => [m.name, m.pass_rate, m.n]),
      [
        ['exact_match', 0.8, 5],
        ['contains', 1, 5],
      ],
    );
    assert.equal(body.cases[4].per_scorer.exact_match, { passed: false, score: 0, reason: 'output differs from the expected output' });
    const traces = new TraceStore({ dbPath: dbOf(t) });
    t.defer(() => traces.close());
    const trace = await traces.getTrace(body.cases[0]!.trace_id!);
    assert.is(trace.name, 'agent.support', 'each case records the trace of its agent run, in the eval store');
    assert.is(trace.spans[0]!.attributes['agent.input'], 'What is 2+2?');
    assert.equal(stored.gate, body.gate);
    assert.equal(stored.thresholds, ['exact_match.pass_rate=0.8', 'contains.pass_rate=1']);
    assert.equal(stored.cases[4]!.input, 'Colour of the sky?');
    assert.is(stored.cases[4]!.actual_output, 'Blue');
    assert.equal([stored.git_sha, stored.git_branch], [null, null], 'no git checkout, no provenance');

    await git(t.cwd, ['init', '-q', '-b', 'release-7']);
    await git(t.cwd, ['-c', 'user.email=ci@example.test', '-c', 'user.name=ci', 'commit', '-q', '--allow-empty', '-m', 'x']);
    const sha = (await git(t.cwd, ['rev-parse', 'HEAD'])).trim();
    const again = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', file, '--run-name', 'in-git']);
    assert.is(again.code, 0, again.stderr);
    const inGit = await evals.resolveRun('in-git');
    assert.equal([inGit.git_sha, inGit.git_branch], [sha, 'release-7'], 'git commit and branch of the checkout the eval ran in');
  },
);

area.scenario(
  'exit 1: a rule misses; every rule form is checked and printed',
  { rows: ['cli:eval run', 'error:eval-exit-codes'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const file = await dataset(t);
    const run = await t.cli([
      'eval',
      'run',
      '--agent',
      target('supportV2'),
      '--dataset',
      file,
      '--scorers',
      'exact_match,contains',
      '--fail-under',
      'exact_match.pass_rate=0.5',
      '--fail-under',
      'contains=0.5',
      '--fail-under',
      'overall.pass_rate>=0.5',
      '--fail-under',
      'overall.avg_score=0.2',
      '--fail-under',
      'contains.avg_score=0.9',
    ]);
    assert.is(run.code, 1, run.stderr + run.stdout);
    assert.ok(
      run.stdout.includes(
        [
          'Gate: FAILED',
          '  exact_match.pass_rate=0.4 >= 0.5: FAIL',
          '  contains.pass_rate=0.6 >= 0.5: PASS',
          '  overall.pass_rate=0.5 >= 0.5: PASS',
          '  overall.avg_score=0.5 >= 0.2: PASS',
          '  contains.avg_score=0.6 >= 0.9: FAIL',
        ].join('\n'),
      ),
      run.stdout,
    );
  },
);

area.scenario(
  'exit 3: the error-rate guard, nothing scored, an unknown scorer, an unreadable dataset; invalid beats failed',
  { rows: ['cli:eval run', 'error:eval-exit-codes'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const file = await dataset(t, 'with-errors.jsonl', 2);
    const guarded = await t.cli([
      'eval',
      'run',
      '--agent',
      target('support'),
      '--dataset',
      file,
      '--fail-under',
      'exact_match=0.99',
      '--max-error-rate',
      '0.2',
      '--json',
      '-',
    ]);
    assert.is(guarded.code, 3, guarded.stderr + guarded.stdout);
    const report = JSON.parse(guarded.stdout);
    assert.equal(report.gate, {
      outcome: 'invalid',
      checks: ['exact_match.pass_rate=0.8 >= 0.99: FAIL', 'error_rate=0.2857 <= 0.2: FAIL'],
      scored: 5,
      errored: 2,
      error_rate: 2 / 7,
      max_error_rate: 0.2,
    });
    assert.match(report.cases[5].error, /provider unavailable for 'boom 0'/);
    assert.equal(report.cases[5].per_scorer, {});

    const tolerated = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', file, '--max-error-rate', '0.3']);
    assert.is(tolerated.code, 0, 'within the guard the errored cases do not count against the model');
    assert.ok(tolerated.stdout.includes('Errored cases (2):\n  #5: '), tolerated.stdout);

    const allBroken = path.join(t.cwd, 'broken.jsonl');
    await writeFile(allBroken, '{"input":"boom a"}\n{"input":"boom b"}\n');
    const nothing = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', allBroken]);
    assert.is(nothing.code, 3);
    assert.ok(nothing.stdout.includes('Gate: INVALID\n  scored=0 > 0: FAIL'), nothing.stdout);

    const unknown = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', file, '--scorers', 'exact_match,bleu']);
    assert.equal(unknown, {
      code: 3,
      stdout: '',
      stderr: "error: unknown scorer 'bleu'; available: exact_match, contains, regex_match, json_valid, llm_judge, faithfulness\n",
    });
    const missing = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', 'nope.jsonl']);
    assert.equal(missing, { code: 3, stdout: '', stderr: `error: dataset not found: ${path.join(t.cwd, 'nope.jsonl')}\n` });
    const judgeless = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', file, '--scorers', 'faithfulness']);
    assert.is(judgeless.code, 3);
    assert.match(judgeless.stderr, /scorer 'faithfulness' needs a judge model/);
  },
);

area.scenario(
  'exit 2: usage errors (missing flag, malformed rule, a rule on an unused scorer, bad numbers)',
  { rows: ['cli:eval run', 'error:eval-exit-codes'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const file = await dataset(t);
    const base = ['eval', 'run', '--agent', target('support'), '--dataset', file];
    const noDataset = await t.cli(['eval', 'run', '--agent', target('support')]);
    assert.is(noDataset.code, 2);
    assert.match(noDataset.stderr, /--dataset/);
    const malformed = await t.cli([...base, '--fail-under', 'exact_match>0.5']);
    assert.equal(malformed, {
      code: 2,
      stdout: '',
      stderr: "error: threshold rule 'exact_match>0.5' must read <scorer|overall>.<pass_rate|avg_score>=<value> (e.g. exact_match.pass_rate=0.8)\n",
    });
    const outOfRange = await t.cli([...base, '--fail-under', 'exact_match=80']);
    assert.is(outOfRange.code, 2);
    assert.match(outOfRange.stderr, /the value must be a number from 0 to 1, got '80'/);
    const typo = await t.cli([...base, '--fail-under', 'exact_mach=0.5']);
    assert.is(typo.code, 2);
    assert.match(typo.stderr, /names scorer 'exact_mach', which this run does not use \(scorers: exact_match; or 'overall'\)/);
    const rate = await t.cli([...base, '--max-error-rate', '2']);
    assert.equal(rate, {
      code: 2,
      stdout: '',
      stderr: 'error: --max-error-rate must be between 0 and 1, got 2; usage: agentkit eval run --agent <target> --dataset <file> [options]\n',
    });
    const concurrency = await t.cli([...base, '--concurrency', '0']);
    assert.is(concurrency.code, 2);
    assert.is((await new EvalStore({ dbPath: dbOf(t) }).listRuns()).length, 0, 'nothing ran');
  },
);

area.scenario(
  "datasets: replay's regression-test JSONL as is, CSV, a chain target, a function target, a custom scorer, --no-persist",
  { rows: ['cli:eval run'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    // Exactly the four fields replay's saveAsTest and the UI write.
    const regression = path.join(t.cwd, 'regression_tests.jsonl');
    const record = (input: string, expected: string) => ({
      input,
      expected_output: expected,
      trace_id: 'ab'.repeat(16),
      created_at: '2026-11-23T09:00:00.000000Z',
    });
    await writeFile(regression, `${JSON.stringify(record('Capital of Italy?', 'Rome'))}\n${JSON.stringify(record('What is 3+3?', '6'))}\n`);
    for (const line of (await readFile(regression, 'utf8')).trim().split('\n'))
      assert.ok(validator('RegressionTestRecord').Check(JSON.parse(line)), 'the file holds regression test records');
    const replayed = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', regression, '--fail-under', 'exact_match=1', '--json', '-']);
    assert.is(replayed.code, 0, replayed.stderr);
    assert.is(JSON.parse(replayed.stdout).scorecard.metrics[0].pass_rate, 1);

    const csv = path.join(t.cwd, 'cases.csv');
    await writeFile(csv, 'input,expected_output,topic\n"Capital of France?",Paris,geo\n"What is 2+2?","4",maths\n"Colour of the sky?",green,nature\n');
    const fromCsv = await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', csv, '--fail-under', 'exact_match=0.6']);
    assert.is(fromCsv.code, 0, fromCsv.stderr + fromCsv.stdout);
    assert.ok(fromCsv.stdout.includes('exact_match  0.667'), fromCsv.stdout);

    const chain = await t.cli(['eval', 'run', '--agent', target('deskChain'), '--dataset', csv, '--scorers', 'contains', '--json', '-']);
    assert.is(chain.code, 0, chain.stderr);
    const chainReport = JSON.parse(chain.stdout);
    assert.equal(
      chainReport.cases.map((c: { per_scorer: { contains: { passed: boolean } } }) => c.per_scorer.contains.passed),
      [true, true, false],
    );
    const chainTrace = await new TraceStore({ dbPath: dbOf(t) }).getTrace(chainReport.cases[0].trace_id);
    assert.is(chainTrace.name, 'chain.desk');

    const fn = await t.cli([
      'eval',
      'run',
      '--agent',
      target('shout'),
      '--dataset',
      csv,
      '--scorers',
      `exact_match,${target('polite')}`,
      '--no-persist',
      '--json',
      '-',
    ]);
    assert.is(fn.code, 0, fn.stderr);
    const fnReport = JSON.parse(fn.stdout);
    assert.equal(
      fnReport.scorecard.metrics.map((m: { name: string }) => m.name),
      ['exact_match', 'polite'],
    );
    assert.equal(fnReport.cases[0].per_scorer.polite, { passed: false, score: 0, reason: 'politeness' });
    assert.is(await new EvalStore({ dbPath: dbOf(t) }).getRun(fnReport.run_id), null, '--no-persist stores nothing');
  },
);

area.scenario(
  'llm_judge through a provider model (a local server speaking the OpenAI protocol)',
  { rows: ['cli:eval run'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const server = await startFakeProvider((request) => {
      const messages = (request.body as { messages: Array<{ content: string }> }).messages;
      const answer = messages[1]!.content.split('Answer to evaluate:\n')[1] ?? '';
      const verdict = { passed: answer !== 'I do not know', reason: 'checked against the reference' };
      return {
        json: {
          id: 'c1',
          object: 'chat.completion',
          model: 'judge',
          choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(verdict) }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        },
      };
    });
    t.defer(() => server.close());
    const file = path.join(t.cwd, 'judge.jsonl');
    await writeFile(file, '{"input":"Capital of France?","expected_output":"Paris"}\n{"input":"Who won in 1930?","expected_output":"Uruguay"}\n');
    const run = await t.cli([
      'eval',
      'run',
      '--agent',
      target('support'),
      '--dataset',
      file,
      '--scorers',
      'llm_judge',
      '--judge-model',
      'custom:judge-1',
      '--judge-base-url',
      `${server.url}/v1`,
      '--judge-criteria',
      'correctness',
      '--fail-under',
      'llm_judge=0.5',
      '--json',
      '-',
    ]);
    assert.is(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(
      report.cases.map((c: { per_scorer: { llm_judge: unknown } }) => c.per_scorer.llm_judge),
      [
        { passed: true, score: 1, reason: 'checked against the reference' },
        { passed: false, score: 0, reason: 'checked against the reference' },
      ],
    );
    assert.is(server.requests.length, 2);
    assert.is(server.requests[0]!.path, '/v1/chat/completions');
    assert.is((server.requests[0]!.body as { model: string }).model, 'judge-1');
  },
);

area.scenario(
  'the real binary loads a TypeScript target and gates',
  { rows: ['cli:eval run', 'error:eval-exit-codes'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const file = await dataset(t);
    const run = await t.bin(['eval', 'run', '--agent', target('support'), '--dataset', file, '--fail-under', 'exact_match=0.9', '--run-name', 'bin']);
    assert.is(run.code, 1, run.stderr + run.stdout);
    assert.is(run.stderr, '');
    assert.ok(run.stdout.includes('  exact_match.pass_rate=0.8 >= 0.9: FAIL'), run.stdout);
    assert.is((await new EvalStore({ dbPath: dbOf(t) }).resolveRun('bin')).scorecard.total_cases, 5);
  },
);

area.scenario(
  'a 20%-accurate agent: without a rule exit 0 with a warning that nothing was gated; with one exit 1 listing its failing cases',
  { rows: ['cli:eval run'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const rows = [
      { input: 'What is 2+2?', expected_output: '4' },
      { input: 'Who wrote Hamlet?', expected_output: 'Shakespeare' },
      { input: 'Largest planet?', expected_output: 'Jupiter' },
      { input: 'Boiling point of water?', expected_output: '100' },
      { input: 'Fastest land animal?', expected_output: 'Cheetah' },
    ];
    const file = path.join(t.cwd, 'weak.jsonl');
    await writeFile(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const base = ['eval', 'run', '--agent', target('support'), '--dataset', file, '--scorers', 'exact_match', '--db', dbOf(t)];

    const ungated = await t.cli(base);
    assert.is(ungated.code, 0, ungated.stderr);
    assert.match(ungated.stdout, /Gate: PASSED/);
    assert.match(
      ungated.stderr,
      'warning: no --fail-under rule: nothing was gated, so this run passes whatever its scores; add one, e.g. --fail-under exact_match.pass_rate=0.9',
    );
    assert.not.match(ungated.stdout, /Failing cases/);

    const gated = await t.cli([...base, '--fail-under', 'exact_match.pass_rate=0.9']);
    assert.is(gated.code, 1, gated.stderr);
    assert.not.match(gated.stderr, /warning/);
    const listed = gated.stdout.slice(gated.stdout.indexOf('Failing cases (4):'));
    assert.ok(gated.stdout.indexOf('Failing cases (4):') > gated.stdout.indexOf('Gate: FAILED'), 'listed after the scorecard and gate');
    for (const [ordinal, question] of [
      [1, 'Who wrote Hamlet?'],
      [2, 'Largest planet?'],
      [3, 'Boiling point of water?'],
      [4, 'Fastest land animal?'],
    ] as const) {
      assert.match(listed, new RegExp(`  #${ordinal} \\[exact_match=0\\.000\\] ${question.replace('?', '\\?')}  trace [0-9a-f]{32}`));
    }
    assert.not.match(listed, /#0 /, 'the case that passed is not listed');
  },
);

area.run();
