/**
 * The eval commands that read the store: `eval compare` (regression beyond the tolerance, named cases, interval, run
 * not found), `eval curate` (cases from root and chain-hosted agent spans, favorites, failures for review, window,
 * append), `eval export --status | --dry-run` (posture, never a case's input or output). Compare runs on both engines
 * (AGENTKIT_LOCAL_DB naming the file or the Postgres schema); curate and export on SQLite.
 */
import * as assert from 'uvu/assert';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { EvalStore, exportPosture, markFavorite, withTraceDestination } from '../../src/index.js';
import { openLocalStore } from '../../src/store/index.js';
import { validator } from '../../generated/schemas/resources.js';
import { deskChain, support, supportV2 } from '../fixtures/evals/agents.js';

const area = conformance('evals: compare, curate, export');
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/evals/agents.ts');
const target = (attr: string) => `${fixture}:${attr}`;

/** The variant's store: a local.db file, or a Postgres schema (eval runs live in either, ADR 0064). */
function dbOf(t: ScenarioContext): string {
  return t.store!;
}

async function writeDataset(t: ScenarioContext, rows: object[], name = 'cases.jsonl'): Promise<string> {
  const file = path.join(t.cwd, name);
  await writeFile(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

const QUESTIONS = [
  { input: 'What is 2+2?', expected_output: '4' },
  { input: 'What is 3+3?', expected_output: '6' },
  { input: 'Capital of France?', expected_output: 'Paris' },
  { input: 'Capital of Italy?', expected_output: 'Rome' },
  { input: 'Colour of the sky?', expected_output: 'Blue' },
  { input: 'boom once', expected_output: 'x' },
];

area.scenario(
  'eval compare: a regression beyond the tolerance exits 1 and names the regressed cases; within it exits 0',
  { rows: ['cli:eval compare'], storeEnv: true, surfaces: ['cli'] },
  async (t) => {
    const file = await writeDataset(t, QUESTIONS);
    assert.is((await t.cli(['eval', 'run', '--agent', target('support'), '--dataset', file, '--run-name', 'base'])).code, 0);
    assert.is((await t.cli(['eval', 'run', '--agent', target('supportV2'), '--dataset', file, '--run-name', 'cand'])).code, 0);
    const store = new EvalStore({ dbPath: dbOf(t) });
    t.defer(() => store.close());
    const base = await store.resolveRun('base');
    const cand = await store.resolveRun('cand');

    const regressed = await t.cli(['eval', 'compare', 'base', 'cand']);
    assert.is(regressed.code, 1, regressed.stderr + regressed.stdout);
    assert.is(regressed.stderr, '');
    const lines = regressed.stdout.split('\n');
    assert.equal(lines.slice(0, 3), [
      `Baseline:  ${base.run_id} (base)`,
      `Candidate: ${cand.run_id} (cand)`,
      'Compared 5 case(s); left out 1 with an errored side; unmatched: 0 baseline, 0 candidate',
    ]);
    assert.ok(regressed.stdout.includes('exact_match.pass_rate  1.000     0.600      -0.400'), regressed.stdout);
    assert.ok(
      regressed.stdout.includes(
        `Regressed (2):\n  #0 [exact_match] What is 2+2?  trace ${cand.cases[0]!.trace_id}\n  #1 [exact_match] What is 3+3?  trace ${cand.cases[1]!.trace_id}\n`,
      ),
      regressed.stdout,
    );
    assert.ok(regressed.stdout.includes('Improved (0):'));
    assert.match(regressed.stdout, /95% bootstrap interval of the pass-rate delta: \[-0\.\d{3}, [-+]0\.\d{3}\]/);
    assert.ok(regressed.stdout.endsWith('REGRESSION: overall pass rate fell by 0.400, more than the tolerance 0\n'), regressed.stdout);

    const tolerated = await t.cli(['eval', 'compare', base.run_id, cand.run_id, '--tolerance', '0.5', '--json']);
    assert.is(tolerated.code, 0, tolerated.stderr);
    const body = JSON.parse(tolerated.stdout);
    assert.ok(validator('EvalComparison').Check(body), 'compare --json matches the EvalComparison contract');
    assert.equal(
      [body.baseline_run_id, body.candidate_run_id, body.tolerance, body.regression, body.compared, body.excluded_errored],
      [base.run_id, cand.run_id, 0.5, false, 5, 1],
    );
    assert.equal(
      body.regressed.map((r: { input: string }) => r.input),
      ['What is 2+2?', 'What is 3+3?'],
    );
    assert.is(body.overall.delta, -0.4);
    assert.equal(body.delta_ci95?.length, 2);

    const improved = await t.cli(['eval', 'compare', 'cand', 'base']);
    assert.is(improved.code, 0);
    assert.ok(improved.stdout.includes('Improved (2):'));

    const missing = await t.cli(['eval', 'compare', 'base', 'nightly-404']);
    assert.equal(missing, { code: 3, stdout: '', stderr: `error: eval run 'nightly-404' not found in ${dbOf(t)} (neither a run id nor a run name)\n` });
    const badTolerance = await t.cli(['eval', 'compare', 'base', 'cand', '--tolerance', '-1']);
    assert.is(badTolerance.code, 2);
  },
);

area.scenario(
  'eval compare: only shared scorers are compared and the others named; no shared scorer exits 3 naming both sets',
  { rows: ['cli:eval compare'], storeEnv: true, surfaces: ['cli'] },
  async (t) => {
    const file = await writeDataset(t, QUESTIONS.slice(0, 5));
    const run = (agent: string, scorers: string, name: string) =>
      t.cli(['eval', 'run', '--agent', target(agent), '--dataset', file, '--scorers', scorers, '--run-name', name]);
    assert.is((await run('support', 'exact_match,contains', 'both')).code, 0);
    assert.is((await run('support', 'exact_match', 'exact')).code, 0);
    assert.is((await run('support', 'contains', 'contains')).code, 0);
    const store = new EvalStore({ dbPath: dbOf(t) });
    t.defer(() => store.close());
    const [both, exact, contains] = await Promise.all(['both', 'exact', 'contains'].map((n) => store.resolveRun(n)));

    const partial = await t.cli(['eval', 'compare', 'both', 'exact']);
    assert.is(partial.code, 0, partial.stderr);
    assert.ok(
      partial.stdout.includes(
        "Scorers compared: [exact_match]; not compared: only the baseline used [contains]\nThe overall pass rates below are over the compared scorers, not the runs' stored overall scores.\n",
      ),
      partial.stdout,
    );
    assert.not.ok(partial.stdout.includes('contains.pass_rate'), 'a scorer one run lacks gets no row');
    const json = JSON.parse((await t.cli(['eval', 'compare', 'both', 'exact', '--json'])).stdout);
    assert.ok(validator('EvalComparison').Check(json));
    assert.equal([json.scorers, json.baseline_only_scorers, json.candidate_only_scorers], [['exact_match'], ['contains'], []]);

    const disjoint = await t.cli(['eval', 'compare', 'exact', 'contains']);
    assert.equal(disjoint, {
      code: 3,
      stdout: '',
      stderr: `error: runs share no scorer, nothing to compare: baseline ${exact!.run_id} used [exact_match], candidate ${contains!.run_id} used [contains]\n`,
    });
    const disjointJson = await t.cli(['eval', 'compare', 'exact', 'contains', '--json']);
    assert.is(disjointJson.code, 3);
    assert.is(disjointJson.stdout, '');
    assert.ok(both);
  },
);

area.scenario(
  'eval curate: root and chain-hosted agent spans become cases; favorites; failures marked for review; window and append',
  { rows: ['cli:eval curate'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const db = dbOf(t);
    const root = await withTraceDestination(db, () => support.run('Capital of Italy?'));
    const hosted = await withTraceDestination(db, () => deskChain.run('Capital of France?'));
    await withTraceDestination(db, () => support.run('boom now')).then(
      () => assert.unreachable(),
      () => undefined,
    );
    await withTraceDestination(db, () => supportV2.run('What is 2+2?'));

    const out = path.join(t.cwd, 'curated.jsonl');
    const all = await t.cli(['eval', 'curate', '--out', out]);
    assert.is(all.code, 0, all.stderr);
    assert.is(all.stdout, `Wrote 3 case(s) to ${out} (1 matching span(s) skipped: no captured input or output)\n`);
    const cases = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(
      cases.map((c) => [c.input, c.expected_output, c.agent_name, c.source]),
      [
        ['Capital of Italy?', 'Rome', 'support', 'curated:all'],
        ['Capital of France?', 'Paris', 'desk_agent', 'curated:all'],
        ['What is 2+2?', 'I am not sure', 'support', 'curated:all'],
      ],
    );
    assert.is(cases[0].trace_id, root.trace_id);
    assert.is(cases[1].trace_id, hosted.trace_id, 'the nested agent span of a chain run is a case of its own');
    assert.match(cases[1].span_id, /^[0-9a-f]{16}$/);
    assert.is((await stat(out)).mode & 0o777, 0o600);

    const onlyDesk = await t.cli(['eval', 'curate', '--agent', 'desk_agent', '--out', out, '--json']);
    assert.equal(JSON.parse(onlyDesk.stdout), { file: out, written: 1, skipped: 0 });

    await markFavorite(root.trace_id!, { dbPath: db });
    const favorites = await t.cli(['eval', 'curate', '--filter', 'favorites', '--out', out]);
    assert.is(favorites.stdout, `Wrote 1 case(s) to ${out}\n`);
    const favorite = JSON.parse((await readFile(out, 'utf8')).trim());
    assert.equal(
      [favorite.input, favorite.expected_output, favorite.trace_id, favorite.source],
      ['Capital of Italy?', 'Rome', root.trace_id, 'curated:favorites'],
    );
    await markFavorite('0'.repeat(32), { dbPath: db }).then(
      () => assert.unreachable('an unknown trace is refused'),
      (error: Error) => assert.match(error.message, /trace '0{32}' not found/),
    );

    const failed = await t.cli(['eval', 'curate', '--filter', 'failed', '--out', out, '--append']);
    assert.is(failed.stdout, `Wrote 1 case(s) to ${out} (appended)\n`);
    const lines = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.is(lines.length, 2, 'appended after the favorite');
    assert.equal(
      [lines[1].input, lines[1].expected_output, lines[1].needs_review, lines[1].actual_output, lines[1].source],
      ['boom now', '', true, '', 'curated:failed'],
    );
    assert.match(lines[1].reason, /^failed spans: .*agent\.support/);

    // A guardrail that blocked a run marks its trace for review.
    const store = openLocalStore(db);
    store
      .prepare(
        "INSERT INTO guardrail_events (event_id, trace_id, span_id, agent_name, guardrail_name, position, outcome, blocking, message, created_at) VALUES ('g1', ?, NULL, 'support', 'no_pii', 'output', 'blocked', 1, 'card number', '2026-11-23T00:00:00Z')",
      )
      .run(root.trace_id);
    store.close();
    const guardrail = await t.cli(['eval', 'curate', '--filter', 'guardrail', '--out', path.join(t.cwd, 'review.jsonl')]);
    assert.is(guardrail.code, 0);
    const review = JSON.parse((await readFile(path.join(t.cwd, 'review.jsonl'), 'utf8')).trim());
    assert.equal(
      [review.input, review.needs_review, review.actual_output, review.reason],
      ['Capital of Italy?', true, 'Rome', 'guardrail no_pii blocked: card number'],
    );

    const handWritten = path.join(t.cwd, 'hand.jsonl');
    await writeFile(handWritten, '{"input":"typed by hand","expected_output":"ok"}');
    assert.is((await t.cli(['eval', 'curate', '--agent', 'desk_agent', '--out', handWritten, '--append'])).code, 0);
    assert.equal(
      (await readFile(handWritten, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).input),
      ['typed by hand', 'Capital of France?'],
      'appending after a last line without its newline',
    );

    const recent = await t.cli(['eval', 'curate', '--since', '0.5', '--out', out, '--json']);
    assert.is(JSON.parse(recent.stdout).written, 3, '--since is in hours: the last half hour holds every run');
    const none = await t.cli(['eval', 'curate', '--agent', 'nobody', '--out', path.join(t.cwd, 'none.jsonl')]);
    assert.equal(none, { code: 0, stdout: "No matching agent runs for filter 'all'; nothing written\n", stderr: '' });
    const badFilter = await t.cli(['eval', 'curate', '--filter', 'bogus', '--out', out]);
    assert.equal(badFilter, {
      code: 2,
      stdout: '',
      stderr: "error: unknown --filter 'bogus'; filters: all, favorites, noted, guardrail, failed; usage: agentkit eval curate --out <file> [options]\n",
    });
    assert.is((await t.cli(['eval', 'curate', '--since', '0', '--out', out])).code, 2);
    assert.is((await t.cli(['eval', 'curate'])).code, 2, '--out is required');
  },
);

area.scenario(
  'eval export: --status shows the posture and the queue; --dry-run prints the payload without any case input or output',
  { rows: ['cli:eval export'], storeEnv: true, surfaces: ['cli'] },
  async (t) => {
    const distinctive = 'zebra-quartz-7781 what is my account number';
    const file = await writeDataset(t, [
      { input: distinctive, expected_output: 'EXPECTED-okapi-4410' },
      { input: 'plain', expected_output: 'PLAIN' },
    ]);
    const run = await t.cli(['eval', 'run', '--agent', target('shout'), '--dataset', file, '--fail-under', 'exact_match=0.5', '--run-name', 'exported']);
    assert.is(run.code, 0, run.stderr);
    const evals = new EvalStore({ dbPath: dbOf(t) });
    t.defer(() => evals.close());
    const stored = await evals.resolveRun('exported');
    assert.is(stored.cases[0]!.actual_output, distinctive.toUpperCase(), 'the store keeps the output locally');

    const home = path.join(t.cwd, 'home');
    await mkdir(home);
    const env = { HOME: home, AGENTKIT_API_KEY: '', AGENTKIT_EXPORT_EVALS: '' };
    // Stored while not connected: local-only, so nothing is queued (docs/adr/0054); `--run` previews it all the same.
    const queue = await t.cli(['eval', 'export', '--dry-run'], { env });
    assert.is(queue.code, 0, queue.stderr);
    assert.equal(JSON.parse(queue.stdout).runs, [], 'a run stored offline is never queued');
    const dry = await t.cli(['eval', 'export', '--dry-run', '--run', 'exported'], { env });
    assert.is(dry.code, 0, dry.stderr);
    for (const secret of [distinctive, distinctive.toUpperCase(), 'zebra', 'ZEBRA', 'EXPECTED-okapi-4410', 'okapi', 'PLAIN', 'plain']) {
      assert.not.ok(dry.stdout.includes(secret), `the payload holds no case text (${secret})`);
    }
    const payload = JSON.parse(dry.stdout);
    assert.ok(validator('EvalExportPreview').Check(payload), 'the dry run matches the EvalExportPreview contract');
    assert.is(payload.runs.length, 1);
    const sent = payload.runs[0];
    assert.equal(
      [sent.run_id, sent.run_name, sent.gate_outcome, sent.gate_checks, sent.thresholds, sent.overall_pass_rate, sent.errored_count],
      [stored.run_id, 'exported', 'passed', ['exact_match.pass_rate=0.5 >= 0.5: PASS'], ['exact_match.pass_rate=0.5'], 0.5, 0],
    );
    assert.equal(
      sent.cases.map((c) => [c.trace_id, c.per_scorer, c.errored]),
      [
        [stored.cases[0]!.trace_id, { exact_match: { passed: false, score: 0 } }, false],
        [stored.cases[1]!.trace_id, { exact_match: { passed: true, score: 1 } }, false],
      ],
    );
    assert.equal(
      Object.keys(sent).filter((k) => /input|output|expected/.test(k)),
      [],
    );
    assert.ok('git_sha' in sent && 'git_branch' in sent && 'sdk_version' in sent);

    const offline = await t.cli(['eval', 'export', '--status'], { env });
    assert.equal(offline, {
      code: 0,
      stdout: [
        `Connected: no (no AGENTKIT_API_KEY and no credentials file at ${path.join(home, '.agentkit', 'credentials.toml')})`,
        'Eval export: disabled (not connected)',
        'Queued runs: 0',
        'Nothing was sent: this command only inspects.',
        '',
      ].join('\n'),
      stderr: '',
    });
    const viaEnv = await t.cli(['eval', 'export', '--status'], { env: { ...env, AGENTKIT_API_KEY: 'ak_live_x' } });
    assert.ok(viaEnv.stdout.startsWith('Connected: yes (source: env)\nEval export: enabled\n'), viaEnv.stdout);
    assert.not.ok(viaEnv.stdout.includes('ak_live_x'), 'the key is never printed');
    const optedOut = await t.cli(['eval', 'export', '--status', '--json'], { env: { ...env, AGENTKIT_API_KEY: 'ak_live_x', AGENTKIT_EXPORT_EVALS: '0' } });
    assert.ok(validator('EvalExportPosture').Check(JSON.parse(optedOut.stdout)));
    assert.equal(JSON.parse(optedOut.stdout), {
      connected: true,
      source: 'env',
      credentials_file: path.join(home, '.agentkit', 'credentials.toml'),
      enabled: false,
      disabled_by: 'AGENTKIT_EXPORT_EVALS=0',
      queued_runs: 0,
    });
    await mkdir(path.join(home, '.agentkit'));
    await writeFile(path.join(home, '.agentkit', 'credentials.toml'), 'api_key = "k"\n', { mode: 0o600 });
    const fromFile = await t.cli(['eval', 'export', '--status'], { env });
    assert.ok(fromFile.stdout.startsWith('Connected: yes (source: file)\nEval export: enabled\n'), fromFile.stdout);
    const byConnect = await exportPosture(evals, { env: { HOME: home }, exportEvals: false });
    assert.equal([byConnect.enabled, byConnect.disabled_by], [false, 'connect({ exportEvals: false })']);

    const neither = await t.cli(['eval', 'export'], { env });
    assert.equal(neither, { code: 2, stdout: '', stderr: 'error: give exactly one of --status and --dry-run; usage: agentkit eval export [options]\n' });
    assert.is((await t.cli(['eval', 'export', '--status', '--dry-run'], { env })).code, 2);
  },
);

area.run();
