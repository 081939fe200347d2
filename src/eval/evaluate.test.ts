import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { TraceStore } from '../tracing/trace-store.js';
import { Agent } from '../agent/agent.js';
import { FunctionModel } from '../testing/function-model.js';
import { compareRuns } from './compare.js';
import { loadDataset } from './dataset.js';
import { EvalError } from './errors.js';
import { evaluate } from './evaluate.js';
import { scorer } from './scorer.js';
import { EvalStore, type EvalRunStore } from './store.js';
import { SqliteEvalRunStore } from './sqlite-eval-store.js';

const test = suite<{ dir: string }>('evaluate', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-eval-'));
});
test.afterEach(async (ctx) => {
  // A WAL keeper may still be adding a WAL file while the folder goes: retry, as rm does on ENOTEMPTY.
  await rm(ctx.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

test('datasets: JSONL (replay records as is), CSV, JSON arrays, in-memory arrays; errors name file and line', async ({ dir }) => {
  const jsonl = path.join(dir, 'regression_tests.jsonl');
  await writeFile(
    jsonl,
    [
      JSON.stringify({ input: 'What is 2+2?', expected_output: '4', trace_id: 'a'.repeat(32), created_at: '2026-11-23T10:00:00.000000Z' }),
      '',
      JSON.stringify({
        input: [
          { type: 'text', text: 'Describe' },
          { type: 'image', path: 'img/cat.png' },
        ],
        expected: 'a cat',
        tag: 'vision',
      }),
    ].join('\n'),
  );
  const loaded = loadDataset(jsonl);
  assert.is(loaded.name, 'regression_tests.jsonl');
  assert.equal(loaded.cases[0], { input: 'What is 2+2?', expected_output: '4', trace_id: 'a'.repeat(32), created_at: '2026-11-23T10:00:00.000000Z' });
  assert.equal(loaded.cases[1], {
    input: [
      { type: 'text', text: 'Describe' },
      { type: 'image', path: path.join(dir, 'img/cat.png') },
    ],
    expected: 'a cat',
    expected_output: 'a cat',
    tag: 'vision',
  });

  const csv = path.join(dir, 'cases.csv');
  await writeFile(csv, 'input,expected_output,topic\n"Hello, world",hi,greeting\nBye,,farewell\n');
  assert.equal(loadDataset(csv).cases, [
    { input: 'Hello, world', expected_output: 'hi', topic: 'greeting' },
    { input: 'Bye', topic: 'farewell' },
  ]);
  const array = path.join(dir, 'cases.json');
  await writeFile(array, JSON.stringify([{ input: { order: 42 }, expected_output: 'ok' }]));
  assert.equal(loadDataset(array).cases, [{ input: { order: 42 }, expected_output: 'ok' }]);
  assert.equal(loadDataset([{ input: 'x', expected: 3 }]), { name: 'inline', cases: [{ input: 'x', expected: 3, expected_output: '3' }] });

  await writeFile(jsonl, '{"input":"a"}\n{not json}\n');
  assert.throws(
    () => loadDataset(jsonl),
    (e: Error) => e instanceof EvalError && e.message.startsWith(`${jsonl} line 2 is not JSON`),
  );
  await writeFile(jsonl, '{"input":"a"}\n{"expected_output":"b"}\n');
  assert.throws(
    () => loadDataset(jsonl),
    (e: Error) => e.message === `${jsonl} line 2: the case has no "input"`,
  );
  assert.throws(
    () => loadDataset(path.join(dir, 'missing.jsonl')),
    (e: Error) => e.message === `dataset not found: ${path.join(dir, 'missing.jsonl')}`,
  );
  await writeFile(array, '{"input":"a"}');
  assert.throws(() => loadDataset(array), /must hold a JSON array of cases/);
});

test('evaluate: errored cases never end the run, scorers see every case, runs persist with their cases', async ({ dir }) => {
  const dbPath = path.join(dir, 'local.db');
  const progress: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const target = async function support(input: unknown) {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 10));
    inFlight--;
    if (input === 'crash') throw new Error('upstream timed out');
    if (input === 'pause')
      return {
        status: 'paused',
        output: '',
        execution_id: 'exec-9',
        pending_interrupt: { reason: 'approval', node_id: 'turn:0/tool:refund', context: {} },
        trace_id: 'f'.repeat(32),
      };
    return { output: String(input).toUpperCase(), trace_id: null };
  };
  const dataset = [
    { input: 'a', expected_output: 'A' },
    { input: 'b', expected_output: 'x' },
    { input: 'crash', expected_output: 'CRASH' },
    { input: 'pause', expected_output: 'PAUSE' },
    { input: 'c', expected_output: 'C', note: 'kept' },
    { input: 'judge-breaks', expected_output: 'JUDGE-BREAKS' },
  ];
  const picky = scorer('picky', (_i, output, _e, testCase) => {
    if (output === 'JUDGE-BREAKS') throw new Error('judge offline');
    return { score: testCase.note === 'kept' ? 1 : 0.5, passed: true };
  });
  const results = await evaluate(target, dataset, ['exact_match', picky], {
    dbPath,
    concurrency: 3,
    runName: 'unit',
    onProgress: (p) => progress.push(p.done),
  });
  assert.is(maxInFlight, 3, 'concurrency bounds cases in flight');
  assert.equal(progress, [1, 2, 3, 4, 5, 6]);
  assert.equal(
    results.cases.map((c) => c.error === null),
    [true, true, false, false, true, false],
  );
  assert.is(results.cases[2]!.error, 'upstream timed out');
  assert.match(results.cases[3]!.error!, /^paused: approval \(tool 'refund'\); execution_id=exec-9\. Nothing after the pause ran\./);
  assert.is(results.cases[3]!.trace_id, 'f'.repeat(32), 'a paused run keeps its trace id');
  assert.is(results.cases[5]!.error, "scorer 'picky' failed: judge offline");
  assert.equal(results.cases[5]!.per_scorer, {}, 'an errored case is unscored');
  assert.equal(results.scorecard, {
    metrics: [
      { name: 'exact_match', avg_score: 2 / 3, pass_rate: 2 / 3, n: 3 },
      { name: 'picky', avg_score: 2 / 3, pass_rate: 1, n: 3 },
    ],
    overall_pass_rate: 5 / 6,
    total_cases: 6,
    errored: 3,
  });
  assert.is(results.error_rate, 0.5);
  assert.is(results.agent_name, 'support');
  assert.is(results.gate, null);
  for (const c of results.cases.filter((x) => x.ordinal !== 3)) assert.match(c.trace_id ?? '', /^[0-9a-f]{32}$/, `case ${c.ordinal} has a trace id`);
  const trace = await new TraceStore({ dbPath }).getTrace(results.cases[0]!.trace_id!);
  assert.is(trace.name, 'eval.case', 'function targets run inside an eval.case root span in the eval store');
  assert.is(trace.spans[0]!.attributes['eval.run_id'], results.run_id);

  const store = new EvalStore({ dbPath });
  const stored = (await store.getRun(results.run_id))!;
  const { error_rate: _e, persisted, db_path: _d, ...record } = results;
  assert.ok(persisted);
  assert.equal(stored, record);
  assert.equal((await store.resolveRun('unit')).run_id, results.run_id);
  assert.equal(
    (await store.listRuns()).map((r) => r.run_id),
    [results.run_id],
  );
  const missing = await store.resolveRun('nope').then(
    () => null,
    (e: Error) => e,
  );
  assert.ok(missing instanceof EvalError);
  assert.is(missing.message, `eval run 'nope' not found in ${dbPath} (neither a run id nor a run name)`);

  const unsaved = await evaluate((input: unknown) => String(input), [{ input: 'z', expected_output: 'z' }], ['exact_match'], { dbPath, persist: false });
  assert.is(unsaved.persisted, false);
  assert.is(await store.getRun(unsaved.run_id), null);
});

test('evaluate: an Agent target that throws is an errored case that still names the trace it left', async ({ dir }) => {
  const dbPath = path.join(dir, 'local.db');
  const llm = new FunctionModel((messages) => {
    const last = String(messages[messages.length - 1]?.content ?? '');
    if (last.includes('boom')) throw new Error('the provider is down');
    return { text: last.toUpperCase() };
  });
  const agent = new Agent({ name: 'echo', llm });
  const results = await evaluate(
    agent,
    [
      { input: 'hi', expected_output: 'HI' },
      { input: 'boom', expected_output: 'BOOM' },
    ],
    ['exact_match'],
    { dbPath, concurrency: 2 },
  );
  const [ok, failed] = results.cases;
  assert.is(ok!.error, null);
  assert.match(failed!.error ?? '', /the provider is down/);
  assert.match(failed!.trace_id ?? '', /^[0-9a-f]{32}$/, 'the errored case keeps the trace id of its failed run');
  assert.is.not(failed!.trace_id, ok!.trace_id);
  const trace = await new TraceStore({ dbPath }).getTrace(failed!.trace_id!);
  assert.is(trace.name, 'agent.echo', 'a runner target keeps its own root span');
  assert.is(trace.spans[0]!.status, 'ERROR');
});

test('evaluate: usage mistakes are thrown before any case runs', async ({ dir }) => {
  let calls = 0;
  const target = () => {
    calls++;
    return 'x';
  };
  const dbPath = path.join(dir, 'local.db');
  await evaluate(target, [{ input: 'a' }], ['nope'], { dbPath }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /^unknown scorer 'nope'; available: exact_match, contains/),
  );
  await evaluate(target, [{ input: 'a' }], ['exact_match'], { dbPath, gate: { failUnder: ['contains=0.5'] } }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /names scorer 'contains'/),
  );
  await evaluate(target, [{ input: 'a' }], ['exact_match'], { dbPath, concurrency: 0 }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /concurrency must be a positive integer/),
  );
  await evaluate({ nothing: true } as never, [{ input: 'a' }], ['exact_match'], { dbPath }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /function or an object with a run\(\) method/),
  );
  assert.is(calls, 0);
});

test('compare: pairs by ordinal then input, excludes errored pairs, flags regressions beyond the tolerance with an interval', async ({ dir }) => {
  const dbPath = path.join(dir, 'local.db');
  const inputs = Array.from({ length: 20 }, (_, i) => ({ input: `q${i}`, expected_output: `a${i}` }));
  const baseline = await evaluate((input: unknown) => `a${String(input).slice(1)}`, inputs, ['exact_match'], { dbPath, runName: 'base' });
  // The candidate's dataset is reordered, gets 4 cases wrong, one errors and one is new.
  const reordered = [...inputs].reverse().concat([{ input: 'q-new', expected_output: 'x' }]);
  const candidate = await evaluate(
    (input: unknown) => {
      const n = Number(String(input).slice(1));
      if (n === 7) throw new Error('flaky tool');
      return n < 4 ? 'wrong' : `a${n}`;
    },
    reordered,
    ['exact_match'],
    { dbPath, runName: 'cand' },
  );
  const store = new EvalStore({ dbPath });
  const c = compareRuns(await store.resolveRun('base'), await store.resolveRun('cand'), { tolerance: 0.1 });
  assert.is(c.compared, 19);
  assert.is(c.excluded_errored, 1);
  assert.equal(c.unmatched, { baseline: 0, candidate: 1 });
  assert.equal([c.overall.baseline, c.overall.candidate], [1, 15 / 19]);
  assert.ok(c.regression, 'a drop of 0.21 is beyond a 0.1 tolerance');
  assert.equal(c.regressed.map((f) => f.input).sort(), ['q0', 'q1', 'q2', 'q3']);
  assert.equal(c.regressed[0]!.scorers, ['exact_match']);
  assert.equal(c.improved, []);
  assert.ok(c.delta_ci95 && c.delta_ci95[0] < c.overall.delta && c.delta_ci95[1] <= 0, JSON.stringify(c.delta_ci95));
  assert.equal(
    compareRuns(await store.resolveRun('base'), await store.resolveRun('cand'), { tolerance: 0.1 }).delta_ci95,
    c.delta_ci95,
    'the interval is reproducible',
  );
  assert.not.ok(compareRuns(await store.resolveRun('base'), await store.resolveRun('cand'), { tolerance: 0.25 }).regression, 'within the tolerance');
  const reverse = compareRuns(await store.resolveRun('cand'), await store.resolveRun('base'));
  assert.is(reverse.improved.length, 4);
  assert.not.ok(reverse.regression);
  assert.is(baseline.scorecard.overall_pass_rate, 1);
  assert.is(candidate.scorecard.errored, 1);
});

test('evaluate({ evalStore }) saves through an EvalRunStore of your own and leaves it open', async ({ dir }) => {
  const saved: string[] = [];
  const inner = new SqliteEvalRunStore(path.join(dir, 'own.db'));
  let closed = 0;
  // A third party's store: here one that records what it is asked to save and delegates the rest.
  const own: EvalRunStore = {
    label: 'my-store',
    saveRun: async (run, project) => {
      saved.push(run.run_id);
      await inner.saveRun(run, project);
    },
    listRuns: (options) => inner.listRuns(options),
    getRun: (id) => inner.getRun(id),
    unsyncedRuns: (limit) => inner.unsyncedRuns(limit),
    localOnlyRuns: (project, since) => inner.localOnlyRuns(project, since),
    markPushed: (ids) => inner.markPushed(ids),
    markSynced: (ids) => inner.markSynced(ids),
    citedTraceIds: () => inner.citedTraceIds(),
    close: async () => {
      closed++;
    },
  };
  const store = new EvalStore({ runStore: own, dbPath: path.join(dir, 'local.db') });
  const results = await evaluate((input: unknown) => String(input), [{ input: 'a', expected_output: 'a' }], ['exact_match'], {
    dbPath: path.join(dir, 'local.db'),
    evalStore: store,
    runName: 'own',
  });
  assert.equal(saved, [results.run_id]);
  assert.is(closed, 0, 'a given store is not closed by evaluate');
  assert.is((await store.resolveRun('own')).run_id, results.run_id);
  assert.is(store.label, 'my-store');
  const missing = await store.resolveRun('nope').then(
    () => null,
    (e: Error) => e.message,
  );
  assert.is(missing, "eval run 'nope' not found in my-store (neither a run id nor a run name)");
  await store.close();
  assert.is(closed, 1);
});

test.run();
