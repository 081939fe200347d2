/**
 * The fork-store contract suite (issue 39): every case a conformant ForkStore passes; local.db's and Postgres's run
 * it unchanged in agentkit's conformance suite (conformance/scenarios/forks-store-contract.test.ts). Framework-free
 * (node:assert), one fresh store per case. Register the cases with any test runner:
 *
 *   import { forkStoreContract, runForkContractCase } from 'agentkit/testing';
 *   for (const c of forkStoreContract) test(`${c.group}: ${c.name}`, () => runForkContractCase(c, initializer));
 */
import assert from 'node:assert/strict';
import type { ForkStore, StoredFork, StoredRerun } from './types.js';

/** One fresh, empty store for one case, and a way to open a second handle on it (as another process would). */
export interface ForkContractStore {
  readonly store: ForkStore;
  /** Another independent handle on the same store. The case closes it. */
  reopen(): Promise<ForkStore>;
}

/** How the suite gets stores: `create` provisions a fresh empty one, `destroy` removes it (and closes its handle). */
export interface ForkContractInitializer {
  readonly name: string;
  create(): Promise<ForkContractStore>;
  destroy(store: ForkContractStore): Promise<void>;
}

export interface ForkContractCase {
  readonly group: string;
  readonly name: string;
  run(store: ForkContractStore): Promise<void>;
}

const UNCHANGED: StoredFork['modifications'] = { prompt: null, input: null, tool_responses: [], llm_params: null, mode: 'recorded', allow_side_effects: false };
const CHANGED: StoredFork['modifications'] = {
  prompt: 'Answer in French. \u0000 and émoji 🙂 survive',
  input: 'where is order 42?',
  tool_responses: [{ tool_name: 'lookup_order', response: { status: 'shipped', nested: [1, 2, { deep: null }] } }],
  llm_params: { temperature: 0.2 },
  mode: 'live',
  allow_side_effects: true,
};
const RERUN: StoredRerun = {
  result: { original_output: 'old answer', new_output: { text: 'nouvelle réponse' }, steps_executed: 3, trace_id: 'f'.repeat(32) },
  input: 'where is order 42?',
  comparison: { diverged_at: 1, changes: [] } as unknown as StoredRerun['comparison'],
};
const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const fork = (id: string) => ({ fork_id: id, trace_id: 'a'.repeat(32), step: 2, modifications: UNCHANGED });

export const forkStoreContract: readonly ForkContractCase[] = [
  {
    group: 'create',
    name: 'a created fork reads back as written, with no rerun and one UTC microsecond time for both stamps',
    async run({ store }) {
      const created = await store.create(fork('fork-1'));
      const read = await store.get('fork-1');
      assert.deepEqual(read, created);
      assert.deepEqual({ ...read!, created_at: '', updated_at: '' }, { ...fork('fork-1'), rerun: null, created_at: '', updated_at: '' });
      assert.match(read!.created_at, ISO_MICROS);
      assert.equal(read!.updated_at, read!.created_at);
    },
  },
  {
    group: 'create',
    name: 'a second fork with the same id is refused and the first is kept',
    async run({ store }) {
      await store.create(fork('fork-dup'));
      await assert.rejects(store.create({ ...fork('fork-dup'), step: 9 }));
      assert.equal((await store.get('fork-dup'))!.step, 2);
    },
  },
  {
    group: 'get',
    name: 'an unknown id reads as null, and updating it changes nothing',
    async run({ store }) {
      assert.equal(await store.get('missing'), null);
      assert.equal(await store.update('missing', { modifications: CHANGED }), null);
      assert.equal(await store.get('missing'), null);
    },
  },
  {
    group: 'update',
    name: 'modifications and rerun are replaced independently; JSON (NUL, non-ASCII, nesting) round-trips exactly',
    async run({ store }) {
      const created = await store.create(fork('fork-2'));
      const modified = await store.update('fork-2', { modifications: CHANGED });
      assert.deepEqual(modified!.modifications, CHANGED);
      assert.equal(modified!.rerun, null);
      assert.ok(modified!.updated_at >= created.updated_at, 'updated_at moves forward');
      const rerun = await store.update('fork-2', { rerun: RERUN });
      assert.deepEqual([rerun!.modifications, rerun!.rerun], [CHANGED, RERUN]);
      assert.deepEqual(await store.get('fork-2'), rerun);
      const again = await store.update('fork-2', { modifications: UNCHANGED });
      assert.deepEqual([again!.modifications, again!.rerun], [UNCHANGED, RERUN], 'changing modifications keeps the rerun');
      await store.update('fork-2', { modifications: CHANGED });
      const cleared = await store.update('fork-2', { rerun: null });
      assert.deepEqual([cleared!.modifications, cleared!.rerun], [CHANGED, null]);
      assert.equal(cleared!.created_at, created.created_at, 'created_at never changes');
    },
  },
  {
    group: 'processes',
    name: 'a fork made through one handle is read, changed and rerun through another; each sees the other at its next read',
    async run({ store, reopen }) {
      await store.create(fork('fork-shared'));
      const other = await reopen();
      try {
        assert.equal((await other.get('fork-shared'))!.trace_id, 'a'.repeat(32));
        await other.update('fork-shared', { modifications: CHANGED });
        assert.deepEqual((await store.get('fork-shared'))!.modifications, CHANGED);
        await store.update('fork-shared', { rerun: RERUN });
        assert.deepEqual((await other.get('fork-shared'))!.rerun, RERUN);
      } finally {
        await other.close();
      }
    },
  },
  {
    group: 'import',
    name: 'all() lists every fork; importRows adds the missing ones as they are (times kept), never overwrites, and counts what it added',
    async run({ store, reopen }) {
      const mine = await store.create(fork('fork-mine'));
      const copied: StoredFork[] = [
        { ...fork('fork-mine'), step: 9, rerun: null, created_at: '2026-01-01T00:00:00.000001Z', updated_at: '2026-01-01T00:00:00.000001Z' },
        { ...fork('fork-copied'), modifications: CHANGED, rerun: RERUN, created_at: '2026-01-01T00:00:00.000002Z', updated_at: '2026-01-01T00:00:00.000003Z' },
      ];
      assert.equal(await store.importRows(copied), 1);
      assert.equal(await store.importRows(copied), 0, 'a second import adds nothing');
      const other = await reopen();
      try {
        assert.deepEqual(await other.all(), [copied[1], mine], 'oldest first; the existing fork is kept as it was');
      } finally {
        await other.close();
      }
    },
  },
];

/** Run one case against a fresh store from `initializer`, destroying the store afterwards; rejects on failure. */
export async function runForkContractCase(contractCase: ForkContractCase, initializer: ForkContractInitializer): Promise<void> {
  const store = await initializer.create();
  try {
    await contractCase.run(store);
  } finally {
    await initializer.destroy(store);
  }
}
