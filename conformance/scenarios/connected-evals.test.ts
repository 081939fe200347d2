/**
 * Connected mode, eval export: a run made while connected reaches the local Platform with its aggregates, gate,
 * thresholds, git provenance and per-case verdicts with trace ids, exactly the `eval export --dry-run` payload, and
 * no case text (asserted on the Platform's own store); with export disabled (`connect({ exportEvals: false })` or
 * AGENTKIT_EXPORT_EVALS=0) nothing is sent and the run is never queued; a run persisted before connecting is never
 * sent by the connection.
 */
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, disconnect, evaluate, EvalStore, exportPayload } from '../../src/index.js';
import { conformance, startPlatform } from '../harness/index.js';

const area = conformance('connected: eval export');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY = 'ak_evals_0123456789abcdef';
const BETA_KEY = 'ak_evals_beta_0123456789';
const SECRET_INPUT = 'INPUT-narwhal-7731';
const SECRET_EXPECTED = 'EXPECTED-axolotl-5120';

const dataset = [
  { input: `${SECRET_INPUT} one`, expected_output: SECRET_EXPECTED },
  { input: `${SECRET_INPUT} two`, expected_output: `${SECRET_INPUT} TWO`.toUpperCase() },
];
const shout = (input: unknown) => String(input).toUpperCase();

area.scenario(
  'a connected run is exported with verdicts and no case text; disabled export sends nothing',
  { backends: ['sqlite'], timeoutMs: 40_000 },
  async (t) => {
    if (t.backend.kind !== 'sqlite') throw new Error('sqlite only');
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [{ key: KEY, project: 'evals-demo' }] });
    t.defer(() => platform.stop());
    t.defer(() => disconnect());
    const dbPath = t.backend.dbPath;
    const options = { dbPath, cwd: t.cwd, env: { ...process.env, AGENTKIT_EXPORT_EVALS: '' }, gate: { failUnder: ['exact_match.pass_rate=0.5'] } };

    // Persisted while not connected: local-only, never sent by a later connection (docs/adr/0054).
    disconnect();
    const before = await evaluate(shout, dataset, ['exact_match'], { ...options, runName: 'offline' });
    assert.is(before.synced, true, 'local-only: stored as never to be sent');
    assert.is((await new EvalStore({ dbPath }).unsyncedRuns()).total, 0, 'nothing queued');

    const result = await connect({ apiKey: KEY, target: platform.url, project: 'evals-demo' });
    assert.is(result.verified, true);
    const run = await evaluate(shout, dataset, ['exact_match'], { ...options, runName: 'nightly' });
    assert.is(run.synced, false, 'queued while connected');

    const stored = await platform.read((s) => s.evalRuns());
    assert.is(stored.length, 1, 'only the run persisted while connected');
    assert.is(stored[0]!.project, 'evals-demo');
    const body = stored[0]!.body;
    const local = new EvalStore({ dbPath });
    assert.equal(body, JSON.parse(JSON.stringify(exportPayload(await local.resolveRun(run.run_id)))), 'the same payload --dry-run prints');
    assert.equal([body.run_name, body.gate_outcome, body.thresholds, body.total_cases], ['nightly', 'passed', ['exact_match.pass_rate=0.5'], 2]);
    const cases = body.cases as Array<{ trace_id: string | null; per_scorer: unknown }>;
    assert.equal(
      cases.map((c) => c.per_scorer),
      [{ exact_match: { passed: false, score: 0 } }, { exact_match: { passed: true, score: 1 } }],
    );
    assert.equal(
      cases.map((c) => c.trace_id),
      run.cases.map((c) => c.trace_id),
    );
    assert.ok(cases.every((c) => typeof c.trace_id === 'string'));
    const raw = await platform.read((s) => JSON.stringify(s.evalRuns()));
    for (const text of [SECRET_INPUT, SECRET_INPUT.toUpperCase(), SECRET_EXPECTED, 'narwhal', 'NARWHAL', 'axolotl']) {
      assert.not.ok(raw.includes(text), `no case text on the Platform (${text})`);
    }
    assert.is((await local.unsyncedRuns()).total, 0, 'marked synced after the 2xx');

    // Disabled by connect({ exportEvals: false }): stored synced, nothing sent.
    await connect({ apiKey: KEY, target: platform.url, exportEvals: false });
    const off = await evaluate(shout, dataset, ['exact_match'], options);
    assert.is(off.synced, true, 'never queued');
    // Disabled by AGENTKIT_EXPORT_EVALS=0.
    await connect({ apiKey: KEY, target: platform.url });
    const envOff = await evaluate(shout, dataset, ['exact_match'], { ...options, env: { ...process.env, AGENTKIT_EXPORT_EVALS: '0' } });
    assert.is(envOff.synced, true);
    assert.is(await platform.read((s) => s.evalRuns().length), 1, 'nothing more reached the Platform');
    assert.is((await local.unsyncedRuns()).total, 0);
  },
);

area.scenario('an unreachable Platform keeps the run queued; the next run sends both', { backends: ['sqlite'], timeoutMs: 40_000 }, async (t) => {
  if (t.backend.kind !== 'sqlite') throw new Error('sqlite only');
  const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
  t.defer(() => platform.stop());
  t.defer(() => disconnect());
  const port = platform.port;
  await platform.kill();
  const options = { dbPath: t.backend.dbPath, cwd: t.cwd, env: { ...process.env, AGENTKIT_EXPORT_EVALS: '' } };
  const connected = await connect({ apiKey: KEY, target: `http://127.0.0.1:${port}` });
  assert.is(connected.verified, false, 'unreachable: connected, unverified');
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  t.defer(() => process.off('warning', onWarning));
  const first = await evaluate(shout, dataset, ['exact_match'], options);
  assert.is((await new EvalStore({ dbPath: t.backend.dbPath }).unsyncedRuns()).total, 1, 'kept');
  const back = await startPlatform({ dir: t.cwd, apiKeys: [KEY], port, dbName: 'platform2.db' });
  t.defer(() => back.stop());
  const second = await evaluate(shout, dataset, ['exact_match'], options);
  assert.equal((await back.read((s) => s.evalRuns().map((r) => r.body.run_id))).sort(), [first.run_id, second.run_id].sort());
  assert.ok(
    warnings.some((w) => /eval export: Platform at .* is unreachable/.test(w)),
    warnings.join('\n'),
  );
});

area.scenario(
  '`agentkit eval run` with saved credentials exports the run; AGENTKIT_EXPORT_EVALS=0 sends nothing',
  { backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [{ key: KEY, project: 'ci' }] });
    t.defer(() => platform.stop());
    const env = { HOME: path.join(t.cwd, 'home'), AGENTKIT_EXPORT_EVALS: '' };
    assert.is((await t.cli(['connect', '--api-key-stdin', '--target', platform.url, '--project', 'ci'], { env, stdin: KEY })).code, 0);
    const file = path.join(t.cwd, 'cases.jsonl');
    await writeFile(file, `${dataset.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const agent = `${path.join(root, 'conformance/fixtures/evals/agents.ts')}:shout`;
    const run = await t.cli(['eval', 'run', '--agent', agent, '--dataset', file, '--run-name', 'from-cli'], { env });
    assert.is(run.code, 0, run.stderr);
    const stored = await platform.read((s) => s.evalRuns());
    assert.equal(
      stored.map((r) => [r.body.run_name, r.project]),
      [['from-cli', 'ci']],
    );
    const status = await t.cli(['eval', 'export', '--status', '--json'], { env });
    assert.is(JSON.parse(status.stdout).queued_runs, 0, 'sent and marked synced');

    const off = await t.cli(['eval', 'run', '--agent', agent, '--dataset', file, '--run-name', 'opted-out'], { env: { ...env, AGENTKIT_EXPORT_EVALS: '0' } });
    assert.is(off.code, 0, off.stderr);
    assert.is(await platform.read((s) => s.evalRuns().length), 1, 'nothing sent with export disabled');
    assert.is(JSON.parse((await t.cli(['eval', 'export', '--status', '--json'], { env })).stdout).queued_runs, 0, 'and never queued');
  },
);

area.scenario(
  'an eval run keeps the project it was written under; `platform push --evals` sends local-only runs on request, once',
  { surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    // A local.db file or a Postgres schema: eval runs, their export state and the push live in either (ADR 0064).
    const dbPath = t.store!;
    // A key names its project (issue 42): one key per project.
    const keys = [
      { key: KEY, project: 'alpha' },
      { key: BETA_KEY, project: 'beta' },
    ];
    const platform = await startPlatform({ dir: t.cwd, apiKeys: keys });
    t.defer(() => platform.stop());
    t.defer(() => disconnect());
    const options = { dbPath, cwd: t.cwd, env: { ...process.env, AGENTKIT_EXPORT_EVALS: '', AGENTKIT_PROJECT: '' } };

    // Written while connected to project "alpha" with the Platform down: queued, stamped alpha.
    const port = platform.port;
    await platform.stop();
    await connect({ apiKey: KEY, target: `http://127.0.0.1:${port}`, project: 'alpha' });
    const queued = await evaluate(shout, dataset, ['exact_match'], { ...options, runName: 'queued-alpha' });
    assert.is(queued.synced, false);
    // Later under project "beta": beta's key may not write alpha's run (403), so it stays queued while beta's run
    // goes; under alpha again, it goes to alpha.
    const back = await startPlatform({ dir: t.cwd, apiKeys: keys, port, dbName: 'platform2.db' });
    t.defer(() => back.stop());
    await connect({ apiKey: BETA_KEY, target: back.url, project: 'beta' });
    const underBeta = await evaluate(shout, dataset, ['exact_match'], { ...options, runName: 'beta-run' });
    const stored = async () =>
      (await back.read((s) => s.evalRuns().map((r) => [r.body.run_name, r.project]))).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.equal(await stored(), [['beta-run', 'beta']]);
    assert.is(underBeta.synced, false);
    await connect({ apiKey: KEY, target: back.url, project: 'alpha' });
    await evaluate(shout, dataset, ['exact_match'], { ...options, runName: 'alpha-2' });
    assert.equal(await stored(), [
      ['alpha-2', 'alpha'],
      ['beta-run', 'beta'],
      ['queued-alpha', 'alpha'],
    ]);

    // Persisted while not connected: local-only; only a push sends it, to the current project's runs.
    disconnect();
    const offline = await evaluate(shout, dataset, ['exact_match'], { ...options, runName: 'offline' });
    assert.is(offline.synced, true);
    const env = { HOME: path.join(t.cwd, 'home'), AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: back.url };
    const dry = await t.cli(['platform', 'push', '--evals', '--dry-run', '--db', dbPath, '--json'], { env });
    assert.is(dry.code, 0, dry.stderr);
    const listed = JSON.parse(dry.stdout);
    assert.equal(
      listed.eval_runs.runs.map((r: { run_id: string; run_name: string }) => [r.run_id, r.run_name]),
      [[offline.run_id, 'offline']],
    );
    assert.is(listed.eval_runs.sent, 0);
    assert.is(await back.read((s) => s.evalRuns().length), 3, 'a dry run sends nothing');

    const text = await t.cli(['platform', 'push', '--evals', '--dry-run', '--db', dbPath], { env });
    assert.ok(text.stdout.includes(`would send 1 eval run(s) of project (default) from ${dbPath}\n  ${offline.run_id}  offline  `), text.stdout);

    const push = await t.cli(['platform', 'push', '--evals', '--db', dbPath], { env });
    assert.is(push.code, 0, push.stderr);
    assert.ok(push.stdout.includes(`sent 1 eval run(s) of project (default) from ${dbPath}`), push.stdout);
    const sent = await back.read((s) => s.evalRuns().find((r) => r.body.run_id === offline.run_id));
    assert.ok(sent, 'the pushed run reached the Platform');
    const evals = new EvalStore({ dbPath });
    t.defer(() => evals.close());
    assert.equal(sent!.body, JSON.parse(JSON.stringify(exportPayload(await evals.resolveRun(offline.run_id)))), 'the export payload');
    const again = JSON.parse((await t.cli(['platform', 'push', '--evals', '--db', dbPath, '--json'], { env })).stdout);
    assert.equal([again.eval_runs.sent, again.eval_runs.runs], [0, []], 'a second push sends nothing new');
    const without = JSON.parse((await t.cli(['platform', 'push', '--db', dbPath, '--json'], { env })).stdout);
    assert.is(without.eval_runs, undefined, 'without --evals no eval run is considered');
  },
);

area.run();
