/**
 * The annotation-store contract suite (issue 39): every case a conformant AnnotationStore passes; local.db's and
 * Postgres's run it unchanged (conformance/scenarios/annotations-store-contract.test.ts). Framework-free
 * (node:assert), one fresh store per case:
 *
 *   import { annotationStoreContract, runAnnotationContractCase } from 'agentkit/testing';
 *   for (const c of annotationStoreContract) test(`${c.group}: ${c.name}`, () => runAnnotationContractCase(c, initializer));
 */
import assert from 'node:assert/strict';
import type { AnnotationStore } from './types.js';

/** One fresh, empty store for one case, and a way to open a second handle on it (as another process would). */
export interface AnnotationContractStore {
  readonly store: AnnotationStore;
  /** Another independent handle on the same store. The case closes it. */
  reopen(): Promise<AnnotationStore>;
}

export interface AnnotationContractInitializer {
  readonly name: string;
  create(): Promise<AnnotationContractStore>;
  destroy(store: AnnotationContractStore): Promise<void>;
}

export interface AnnotationContractCase {
  readonly group: string;
  readonly name: string;
  run(store: AnnotationContractStore): Promise<void>;
}

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const T1 = '1'.repeat(32);
const T2 = '2'.repeat(32);
const T3 = '3'.repeat(32);

export const annotationStoreContract: readonly AnnotationContractCase[] = [
  {
    group: 'read',
    name: 'a fresh store has no annotation, favorite, note or mark',
    async run({ store }) {
      assert.equal(await store.get(T1), null);
      assert.deepEqual([await store.favorites(), await store.marked(), await store.noted()], [new Set(), new Set(), new Set()]);
    },
  },
  {
    group: 'set',
    name: 'a favorite is created with no note and one UTC microsecond timestamp, and is listed as favorite and marked',
    async run({ store }) {
      const set = await store.set(T1, { favorite: true });
      assert.deepEqual({ ...set, updated_at: '' }, { trace_id: T1, favorite: true, note: null, updated_at: '' });
      assert.match(set.updated_at, ISO_MICROS);
      assert.deepEqual(await store.get(T1), set);
      assert.deepEqual([await store.favorites(), await store.marked(), await store.noted()], [new Set([T1]), new Set([T1]), new Set()]);
    },
  },
  {
    group: 'set',
    name: 'each field replaces its own value only; a note alone marks a trace; clearing both unmarks it',
    async run({ store }) {
      await store.set(T2, { note: 'wrong refund amount \u0000 — check' });
      assert.deepEqual(
        { ...(await store.get(T2))!, updated_at: '' },
        { trace_id: T2, favorite: false, note: 'wrong refund amount \u0000 — check', updated_at: '' },
      );
      await store.set(T2, { favorite: true });
      assert.equal((await store.get(T2))!.note, 'wrong refund amount \u0000 — check', 'setting the favorite keeps the note');
      await store.set(T2, { favorite: false });
      assert.deepEqual([await store.favorites(), await store.marked(), await store.noted()], [new Set(), new Set([T2]), new Set([T2])]);
      await store.set(T2, { note: null });
      assert.deepEqual([(await store.get(T2))!.favorite, (await store.get(T2))!.note], [false, null]);
      assert.deepEqual(await store.marked(), new Set());
      await store.set(T3, { note: '' });
      assert.deepEqual(await store.marked(), new Set(), 'an empty note marks nothing');
    },
  },
  {
    group: 'processes',
    name: 'two handles writing different fields of one trace at once both land, 20 times; each sees the other at its next read',
    async run({ store, reopen }) {
      const other = await reopen();
      try {
        for (let i = 0; i < 20; i++) {
          const favorite = i % 2 === 0;
          await Promise.all([store.set(T1, { favorite }), other.set(T1, { note: `note ${i}` })]);
          const seen = await store.get(T1);
          assert.deepEqual([seen!.favorite, seen!.note], [favorite, `note ${i}`], `round ${i}`);
        }
        await other.set(T3, { favorite: true });
        assert.ok((await store.favorites()).has(T3));
      } finally {
        await other.close();
      }
    },
  },
  {
    group: 'import',
    name: 'all() lists every annotation; importRows adds the missing ones as they are (updated_at kept), never overwrites, and counts what it added',
    async run({ store, reopen }) {
      await store.set(T1, { favorite: true, note: 'kept' });
      const rows = [
        { trace_id: T1, favorite: false, note: 'would overwrite', updated_at: '2026-01-02T03:04:05.000006Z' },
        { trace_id: T2, favorite: true, note: 'copied \u0000 note', updated_at: '2026-01-02T03:04:05.000007Z' },
        { trace_id: T3, favorite: false, note: null, updated_at: '2026-01-02T03:04:05.000008Z' },
      ];
      assert.equal(await store.importRows(rows), 2);
      assert.equal(await store.importRows(rows), 0, 'a second import adds nothing');
      const other = await reopen();
      try {
        const all = await other.all();
        assert.deepEqual(
          all.map((a) => [a.trace_id, a.favorite, a.note]),
          [
            [T1, true, 'kept'],
            [T2, true, 'copied \u0000 note'],
            [T3, false, null],
          ],
        );
        assert.deepEqual(
          all.slice(1).map((a) => a.updated_at),
          ['2026-01-02T03:04:05.000007Z', '2026-01-02T03:04:05.000008Z'],
        );
      } finally {
        await other.close();
      }
    },
  },
];

/** Run one case against a fresh store from `initializer`, destroying the store afterwards; rejects on failure. */
export async function runAnnotationContractCase(contractCase: AnnotationContractCase, initializer: AnnotationContractInitializer): Promise<void> {
  const store = await initializer.create();
  try {
    await contractCase.run(store);
  } finally {
    await initializer.destroy(store);
  }
}
