/**
 * Eval runs on the shared store (issue 39, ADR 0064), on both engines: CI (the real built binary, its own process)
 * runs `agentkit eval run --db <store>`; a UI process started on the same store lists that run over its HTTP API,
 * sees a second run `evaluate()` writes while it is serving, and compares the two; `agentkit eval compare` from a
 * third process prints the same comparison. The cases' traces are in the same store, so the UI opens them too.
 */
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareRuns, EvalStore, evaluate, flushTraces } from '../../src/index.js';
import { supportV2 } from '../fixtures/evals/agents.js';
import { startCli } from '../harness/cli-process.js';
import { conformance } from '../harness/index.js';

const area = conformance('evals: runs shared through the store');
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/evals/agents.ts');

const QUESTIONS = [
  { input: 'What is 2+2?', expected_output: '4' },
  { input: 'What is 3+3?', expected_output: '6' },
  { input: 'Capital of France?', expected_output: 'Paris' },
  { input: 'Capital of Italy?', expected_output: 'Rome' },
];

area.scenario(
  'a run CI wrote with eval run --db is listed and compared by a UI process on the store and by eval compare in a third process',
  { rows: ['cli:eval run', 'cli:eval compare'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    // On Postgres the URL carries a password (the test server trusts loopback): no output may show it.
    const store = t.store!.replace(/^postgres:\/\/postgres@/, 'postgres://postgres:s3cr3t-pw@');
    const dataset = path.join(t.cwd, 'cases.jsonl');
    await writeFile(dataset, `${QUESTIONS.map((q) => JSON.stringify(q)).join('\n')}\n`);

    // Process 1, CI: the built binary writes the baseline run into the store.
    const ci = await t.bin([
      'eval',
      'run',
      '--agent',
      `${fixture}:support`,
      '--dataset',
      dataset,
      '--run-name',
      'baseline',
      '--db',
      store,
      '--fail-under',
      'exact_match=0.75',
    ]);
    assert.is(ci.code, 0, ci.stderr + ci.stdout);
    assert.match(ci.stdout, /exact_match\.pass_rate=1 >= 0\.75: PASS/);
    assert.match(ci.stdout, /; saved to /);

    // Process 2, the UI on the same store: it lists CI's run.
    const ui = startCli(['ui', '--db', store, '--no-auth', '--no-open', '--port', '0'], { cwd: t.cwd, env: t.env });
    t.defer(() => ui.kill());
    const [, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)/, 30_000);
    const get = async (route: string) => {
      const response = await fetch(`${url}${route}`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const listed = await get('/api/eval-runs');
    assert.is(listed.status, 200, JSON.stringify(listed.body));
    const items = listed.body.items as Array<{ run_id: string; run_name: string; scorecard: { overall_pass_rate: number } }>;
    assert.equal(
      items.map((run) => [run.run_name, run.scorecard.overall_pass_rate]),
      [['baseline', 1]],
    );
    const baselineId = items[0]!.run_id;
    const detail = await get(`/api/eval-runs/${baselineId}`);
    assert.is(detail.status, 200);
    const cases = detail.body.cases as Array<{ ordinal: number; actual_output: string; trace_id: string }>;
    assert.equal(
      cases.map((c) => [c.ordinal, c.actual_output]),
      [
        [0, '4'],
        [1, '6'],
        [2, 'Paris'],
        [3, 'Rome'],
      ],
    );
    const trace = await get(`/api/traces/${cases[0]!.trace_id}`);
    assert.is(trace.status, 200, "the case's trace is in the same store");

    // The SDK writes a second, worse run while the UI serves; the UI's next read lists it and compares the two.
    const candidate = await evaluate(supportV2, dataset, ['exact_match'], { dbPath: store, runName: 'candidate', cwd: t.cwd });
    await flushTraces();
    assert.ok(candidate.persisted);
    const both = await get('/api/eval-runs');
    assert.equal(
      (both.body.items as Array<{ run_name: string }>).map((run) => run.run_name),
      ['candidate', 'baseline'],
    );
    const compared = await get('/api/eval-compare?baseline=baseline&candidate=candidate');
    assert.is(compared.status, 200, JSON.stringify(compared.body));
    const sdk = new EvalStore({ dbPath: store });
    t.defer(() => sdk.close());
    const expected = compareRuns(await sdk.resolveRun('baseline'), await sdk.resolveRun('candidate'));
    assert.equal(compared.body, JSON.parse(JSON.stringify(expected)));
    assert.is(compared.body.regression, true);

    // Process 3: eval compare prints the same comparison and exits 1 on the regression.
    // The store named by AGENTKIT_LOCAL_DB instead of --db, as a fleet host's environment names it.
    const json = await t.bin(['eval', 'compare', 'baseline', 'candidate', '--json'], { env: { ...t.env, AGENTKIT_LOCAL_DB: store } });
    assert.is(json.code, 1, json.stderr);
    assert.equal(JSON.parse(json.stdout), compared.body);
    const text = await t.bin(['eval', 'compare', 'baseline', candidate.run_id, '--db', store]);
    assert.is(text.code, 1, text.stderr);
    assert.ok(text.stdout.includes(`Baseline:  ${baselineId} (baseline)\nCandidate: ${candidate.run_id} (candidate)\n`), text.stdout);
    assert.match(text.stdout, /\nREGRESSION: overall pass rate fell by /);
    for (const output of [ci.stdout, ci.stderr, json.stdout, json.stderr, text.stdout, text.stderr, ui.stderr(), ui.stdout()])
      assert.not.ok(output.includes('s3cr3t-pw'), `no password printed: ${output}`);

    const missing = await t.bin(['eval', 'compare', 'baseline', 'no-such-run', '--db', store]);
    assert.is(missing.code, 3);
    assert.match(missing.stderr, /^error: eval run 'no-such-run' not found in /);
    assert.not.ok(missing.stderr.includes('s3cr3t-pw'), missing.stderr);
  },
);

area.run();
