/**
 * The eval-store contract suite (issue 39): every case a conformant EvalRunStore passes; local.db's and Postgres's
 * run it unchanged in agentkit's conformance suite (conformance/scenarios/evals-store-contract.test.ts).
 * Framework-free (node:assert), one fresh store per case. Register the cases with any test runner:
 *
 *   import { evalStoreContract, runEvalContractCase } from 'agentkit/testing';
 *   for (const c of evalStoreContract) test(`${c.group}: ${c.name}`, () => runEvalContractCase(c, initializer));
 */
import assert from 'node:assert/strict';
import type { EvalCaseRecord, EvalRunRecord } from './records.js';
import type { EvalRunStore } from './store-types.js';

/** One fresh, empty store for one case, and a way to open a second handle on it (as another process would). */
export interface EvalContractStore {
  readonly store: EvalRunStore;
  /** Another independent handle on the same store. The case closes it. */
  reopen(): Promise<EvalRunStore>;
}

/** How the suite gets stores: `create` provisions a fresh empty one, `destroy` removes it (and closes its handle). */
export interface EvalContractInitializer {
  readonly name: string;
  create(): Promise<EvalContractStore>;
  destroy(store: EvalContractStore): Promise<void>;
}

export interface EvalContractCase {
  readonly group: string;
  readonly name: string;
  run(store: EvalContractStore): Promise<void>;
}

const verdict = (passed: boolean, score = passed ? 1 : 0) => ({ passed, score, reason: passed ? null : 'différent \u0000 🙂' });

function evalCase(runId: string, ordinal: number, options: { error?: string; passed?: boolean } = {}): EvalCaseRecord {
  return {
    case_id: `${runId}-case-${ordinal}`,
    ordinal,
    input: ordinal % 2 === 0 ? `question ${ordinal} \u0000 é` : { messages: [{ role: 'user', content: `q${ordinal}` }], nested: [1, { deep: null }] },
    expected_output: ordinal === 1 ? null : `answer ${ordinal} with NUL \u0000, private-use \uE000 and 🙂`,
    actual_output: options.error ? null : `answer ${ordinal}`,
    trace_id: options.error ? null : `${'a'.repeat(30)}${String(ordinal).padStart(2, '0')}`,
    per_scorer: options.error ? {} : { exact_match: verdict(options.passed ?? true), contains: verdict(true, 0.75) },
    error: options.error ?? null,
    latency_ms: options.error ? null : 12.5 + ordinal,
  };
}

const CLOCK = Date.parse('2026-11-01T00:00:00.000Z');
/** Distinct, increasing ISO times with microseconds, as utcNow writes them. */
function at(offsetSeconds: number): string {
  return `${new Date(CLOCK + offsetSeconds * 1000).toISOString().slice(0, -1)}123Z`;
}

/** A run of three cases (one errored), started `offsetSeconds` after the suite's epoch. */
function run(runId: string, options: { name?: string | null; offsetSeconds?: number; synced?: boolean; gate?: boolean } = {}): EvalRunRecord {
  const offset = options.offsetSeconds ?? 0;
  return {
    run_id: runId,
    run_name: options.name === undefined ? 'nightly' : options.name,
    dataset_name: 'support.jsonl',
    agent_name: 'support_agent',
    scorers: ['exact_match', 'contains'],
    started_at: at(offset),
    finished_at: at(offset + 5),
    scorecard: {
      total_cases: 3,
      errored: 1,
      overall_pass_rate: 0.75,
      metrics: [
        { name: 'exact_match', n: 2, pass_rate: 0.5, avg_score: 0.5 },
        { name: 'contains', n: 2, pass_rate: 1, avg_score: 0.75 },
      ],
    },
    gate:
      options.gate === false
        ? null
        : { outcome: 'fail', checks: ['exact_match.pass_rate=0.5 >= 0.8: FAIL'], error_rate: 1 / 3, errored: 1, scored: 2, max_error_rate: null },
    thresholds: ['exact_match.pass_rate=0.8'],
    git_sha: 'abc123',
    git_branch: 'main',
    metadata: { agent: 'agents.ts:support', concurrency: 4, nested: { list: [1, 'two', null] } },
    synced: options.synced ?? true,
    cases: [evalCase(runId, 0), evalCase(runId, 1, { passed: false }), evalCase(runId, 2, { error: 'target threw: boom \u0000' })],
  } as EvalRunRecord;
}

/** The run as `getRun` answers it: no `project_id` (the UI's run detail has no such field). */
function stored(record: EvalRunRecord): EvalRunRecord {
  const { project_id: _project, ...rest } = record;
  return rest;
}

export const evalStoreContract: readonly EvalContractCase[] = [
  {
    group: 'save',
    name: 'a saved run reads back exactly, its cases in ordinal order (NUL, non-ASCII, nested JSON, nulls survive)',
    async run({ store }) {
      const written = run('run-1');
      const shuffled = { ...written, cases: [written.cases[2]!, written.cases[0]!, written.cases[1]!] };
      await store.saveRun(shuffled);
      assert.deepEqual(await store.getRun('run-1'), stored(written));
      const noGate = run('run-2', { gate: false, name: null, offsetSeconds: 10 });
      await store.saveRun(noGate);
      assert.deepEqual(await store.getRun('run-2'), stored(noGate));
    },
  },
  {
    group: 'save',
    name: 'a second run with the same id is refused and the first is kept whole',
    async run({ store }) {
      await store.saveRun(run('dup'));
      await assert.rejects(store.saveRun({ ...run('dup', { name: 'other' }), cases: [evalCase('dup-2', 0)] }));
      const kept = await store.getRun('dup');
      assert.equal(kept!.run_name, 'nightly');
      assert.equal(kept!.cases.length, 3);
    },
  },
  {
    group: 'save',
    name: 'a run whose cases cannot be written is not stored at all (one transaction)',
    async run({ store }) {
      const broken = run('broken');
      broken.cases = [evalCase('broken', 0), { ...evalCase('broken', 1), ordinal: 0 }];
      await assert.rejects(store.saveRun(broken));
      assert.equal(await store.getRun('broken'), null);
      assert.deepEqual(await store.listRuns(), []);
    },
  },
  {
    group: 'list',
    name: 'runs list newest first without their cases, filtered by name, limited; a tie is broken by write order',
    async run({ store }) {
      await store.saveRun(run('old', { offsetSeconds: 0 }));
      await store.saveRun(run('new', { offsetSeconds: 60 }));
      await store.saveRun(run('other', { name: 'release', offsetSeconds: 30 }));
      await store.saveRun(run('tie', { offsetSeconds: 60 }));
      const all = await store.listRuns();
      assert.deepEqual(
        all.map((r) => r.run_id),
        ['tie', 'new', 'other', 'old'],
      );
      assert.ok(
        all.every((r) => !('cases' in r)),
        'a listing holds no cases',
      );
      const { cases: _cases, ...summary } = stored(run('other', { name: 'release', offsetSeconds: 30 }));
      assert.deepEqual(
        all.find((r) => r.run_id === 'other'),
        summary,
      );
      assert.deepEqual(
        (await store.listRuns({ runName: 'nightly' })).map((r) => r.run_id),
        ['tie', 'new', 'old'],
      );
      assert.deepEqual(
        (await store.listRuns({ runName: 'nightly', limit: 1 })).map((r) => r.run_id),
        ['tie'],
      );
      assert.deepEqual(await store.listRuns({ runName: 'none' }), []);
    },
  },
  {
    group: 'get',
    name: 'an unknown run id reads as null; an empty store lists nothing and queues nothing',
    async run({ store }) {
      assert.equal(await store.getRun('missing'), null);
      assert.deepEqual(await store.listRuns(), []);
      assert.deepEqual(await store.unsyncedRuns(), { runs: [], total: 0 });
      assert.deepEqual(await store.localOnlyRuns(''), []);
      await store.markSynced(['missing']);
      await store.markPushed(['missing']);
    },
  },
  {
    group: 'export',
    name: 'unsynced runs come oldest first with their project and cases, limited but counted in full; marked ones leave the queue',
    async run({ store }) {
      await store.saveRun(run('q2', { synced: false, offsetSeconds: 20 }), 'team-b');
      await store.saveRun(run('q1', { synced: false, offsetSeconds: 10 }));
      await store.saveRun(run('done', { synced: true, offsetSeconds: 5 }));
      const first = await store.unsyncedRuns(1);
      assert.equal(first.total, 2);
      assert.deepEqual(first.runs, [{ ...stored(run('q1', { synced: false, offsetSeconds: 10 })), project_id: '' }]);
      const both = await store.unsyncedRuns();
      assert.deepEqual(
        both.runs.map((r) => [r.run_id, r.project_id]),
        [
          ['q1', ''],
          ['q2', 'team-b'],
        ],
      );
      assert.equal((await store.unsyncedRuns(0)).total, 2);
      await store.markSynced(['q1']);
      assert.deepEqual(
        (await store.unsyncedRuns()).runs.map((r) => r.run_id),
        ['q2'],
      );
      assert.equal((await store.getRun('q1'))!.synced, true);
    },
  },
  {
    group: 'push',
    name: 'local-only runs are those stored synced, of one project, since a time; pushed ones are never listed again',
    async run({ store }) {
      await store.saveRun(run('l1', { offsetSeconds: 10 }));
      await store.saveRun(run('l2', { offsetSeconds: 20 }));
      await store.saveRun(run('l3', { offsetSeconds: 30 }), 'team-b');
      await store.saveRun(run('queued', { synced: false, offsetSeconds: 40 }));
      assert.deepEqual(
        (await store.localOnlyRuns('')).map((r) => [r.run_id, r.project_id, r.cases.length]),
        [
          ['l1', '', 3],
          ['l2', '', 3],
        ],
      );
      assert.deepEqual(
        (await store.localOnlyRuns('', at(20))).map((r) => r.run_id),
        ['l2'],
      );
      assert.deepEqual(
        (await store.localOnlyRuns('team-b')).map((r) => r.run_id),
        ['l3'],
      );
      await store.markPushed(['l1']);
      assert.deepEqual(
        (await store.localOnlyRuns('')).map((r) => r.run_id),
        ['l2'],
      );
      await store.markPushed(['queued']);
      assert.equal((await store.unsyncedRuns()).total, 0, 'a pushed run is synced too');
    },
  },
  {
    group: 'traces',
    name: 'the trace ids the cases cite are listed once each; an errored case without a trace cites none',
    async run({ store }) {
      assert.deepEqual(await store.citedTraceIds(), []);
      await store.saveRun(run('t1'));
      const again = run('t2', { offsetSeconds: 10 });
      await store.saveRun(again);
      const expected = [...new Set([...run('t1').cases, ...again.cases].map((c) => c.trace_id).filter((id) => id !== null))].sort();
      assert.equal(expected.length, 2);
      assert.deepEqual((await store.citedTraceIds()).sort(), expected);
    },
  },
  {
    group: 'shared',
    name: 'a run saved through one handle is listed, read and marked through another (another process)',
    async run({ store, reopen }) {
      const other = await reopen();
      try {
        await store.saveRun(run('shared', { synced: false }));
        assert.deepEqual(
          (await other.listRuns()).map((r) => r.run_id),
          ['shared'],
        );
        assert.deepEqual(await other.getRun('shared'), stored(run('shared', { synced: false })));
        await other.markSynced(['shared']);
        assert.equal((await store.unsyncedRuns()).total, 0);
      } finally {
        await other.close();
      }
    },
  },
];

/** Run one case against a fresh store from `initializer`, destroying the store afterwards; rejects on failure. */
export async function runEvalContractCase(contractCase: EvalContractCase, initializer: EvalContractInitializer): Promise<void> {
  const store = await initializer.create();
  try {
    await contractCase.run(store);
  } finally {
    await initializer.destroy(store);
  }
}
