/**
 * The UI's eval routes over HTTP, read from the eval store of the store it serves (a local.db file or a Postgres
 * schema): runs newest first (run name
 * filter, limit), one run with its cases in ordinal order (404 unknown), two runs compared exactly as the SDK's
 * `compareRuns` (and `agentkit eval compare`) compares them (references by id or name; 404 unknown; 400 missing),
 * `eval_runs_last_7d` on the overview, and 401 without a session.
 */
import * as assert from 'uvu/assert';
import { checkpointerFor, conformance } from '../harness/index.js';
import { support, supportV2 } from '../fixtures/evals/agents.js';
import { compareRuns } from '../../src/eval/compare.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { EvalStore } from '../../src/eval/store.js';
import { TraceStore } from '../../src/tracing/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { newAuthFile } from '../../src/ui/auth-file.js';

const area = conformance('local UI evals over HTTP');

const QUESTIONS = [
  { input: 'What is 2+2?', expected_output: '4' },
  { input: 'What is 3+3?', expected_output: '6' },
  { input: 'Capital of France?', expected_output: 'Paris' },
  { input: 'Capital of Italy?', expected_output: 'Rome' },
  { input: 'Colour of the sky?', expected_output: 'Blue' },
  { input: 'boom once', expected_output: 'x' },
];

async function session(url: string): Promise<(route: string) => Promise<{ status: number; body: Record<string, any> }>> {
  const status = await fetch(`${url}/api/auth/status`);
  const csrf = status.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: csrf.join('; ') },
    body: JSON.stringify({ username: 'admin', password: 'correct horse' }),
  });
  assert.is(login.status, 200);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  return async (route) => {
    const response = await fetch(`${url}${route}`, { headers: { cookie, accept: 'application/json' } });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
}

area.scenario(
  'eval runs: list, one run with its cases, compare two runs, overview count; 404, 400, 401',
  { rows: ['route:GET /api/overview'], surfaces: ['http'], timeoutMs: 40_000 },
  async (t) => {
    // A local.db file or a Postgres schema: the UI reads eval runs from either (ADR 0064).
    const db = t.store!;
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const traceStore = new TraceStore({ dbPath: db });
    t.defer(() => traceStore.close());
    const store = new EvalStore({ dbPath: db });
    t.defer(() => store.close());
    const app = createUiApp({
      checkpointer,
      traceStore,
      evalStore: store,
      auth: { mode: 'password', file: await newAuthFile('admin', 'correct horse') },
    });
    const server = await t.serve(app);
    for (const route of ['/api/eval-runs', '/api/eval-runs/x', '/api/eval-compare?baseline=a&candidate=b']) {
      const anonymous = await fetch(`${server.url}${route}`);
      assert.is(anonymous.status, 401, route);
    }
    const get = await session(server.url);
    assert.equal((await get('/api/eval-runs')).body, { count: 0, items: [] }, 'an empty store lists nothing');
    assert.is((await get('/api/overview')).body.eval_runs_last_7d, 0);

    const gate = { failUnder: ['exact_match.pass_rate=0.8'] };
    await evaluate(support, QUESTIONS, ['exact_match'], { runName: 'base', dbPath: db, cwd: t.cwd, gate });
    await evaluate(supportV2, QUESTIONS, ['exact_match'], { runName: 'cand', dbPath: db, cwd: t.cwd, gate });
    const base = await store.resolveRun('base');
    const cand = await store.resolveRun('cand');

    const list = await get('/api/eval-runs');
    assert.is(list.status, 200);
    assert.is(list.body.count, 2);
    assert.equal(
      list.body.items.map((r: { run_name: string }) => r.run_name),
      ['cand', 'base'],
      'newest first',
    );
    const listed = list.body.items[1];
    assert.equal({ ...listed }, JSON.parse(JSON.stringify((await store.listRuns({ runName: 'base' }))[0])));
    assert.is(listed.gate.outcome, 'passed');
    assert.is(list.body.items[0].gate.outcome, 'failed');
    assert.equal(
      (await get('/api/eval-runs?run_name=base')).body.items.map((r: { run_id: string }) => r.run_id),
      [base.run_id],
    );
    assert.is((await get('/api/eval-runs?limit=1')).body.count, 1);
    assert.is((await get('/api/eval-runs?limit=0')).status, 400);

    const one = await get(`/api/eval-runs/${cand.run_id}`);
    assert.is(one.status, 200);
    assert.is(one.body.cases.length, 6);
    assert.equal(
      one.body.cases.map((c: { ordinal: number }) => c.ordinal),
      [0, 1, 2, 3, 4, 5],
    );
    assert.is(one.body.cases[0].actual_output, 'I am not sure');
    assert.is(one.body.cases[0].per_scorer.exact_match.passed, false);
    assert.is(one.body.cases[2].per_scorer.exact_match.passed, true);
    assert.match(one.body.cases[5].error, /provider unavailable/);
    const missing = await get('/api/eval-runs/no-such-run');
    assert.is(missing.status, 404);
    assert.equal(missing.body, { detail: "Eval run 'no-such-run' not found: no stored run has this id.", code: 'not_found' });

    const compared = await get('/api/eval-compare?baseline=base&candidate=cand');
    assert.is(compared.status, 200);
    assert.equal(compared.body, JSON.parse(JSON.stringify(compareRuns(base, cand))), 'the same comparison as eval compare');
    assert.is(compared.body.regression, true);
    assert.equal(
      compared.body.regressed.map((c: { baseline_ordinal: number }) => c.baseline_ordinal),
      [0, 1],
    );
    const byId = await get(`/api/eval-compare?baseline=${base.run_id}&candidate=${cand.run_id}&tolerance=0.5`);
    assert.is(byId.body.regression, false, 'within the tolerance');
    const unknown = await get('/api/eval-compare?baseline=base&candidate=nope');
    assert.is(unknown.status, 404);
    assert.match(unknown.body.detail, /'nope' not found/);
    assert.is((await get('/api/eval-compare?baseline=base')).status, 400);
    await evaluate(support, QUESTIONS, ['contains'], { runName: 'other-scorer', dbPath: db, cwd: t.cwd });
    const disjoint = await get('/api/eval-compare?baseline=base&candidate=other-scorer');
    assert.is(disjoint.status, 400, 'runs that share no scorer cannot be compared');
    assert.is(disjoint.body.code, 'eval_error');
    assert.match(disjoint.body.detail, /^runs share no scorer, nothing to compare: baseline \S+ used \[exact_match\], candidate \S+ used \[contains\]$/);

    assert.is((await get('/api/overview')).body.eval_runs_last_7d, 3);
  },
);

area.run();
