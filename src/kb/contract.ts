/**
 * The knowledge-base store contract suite (issue 39): every case a conformant KbCatalog and its KbStores pass; the
 * SQLite files and the Postgres tables run it unchanged in agentkit's conformance suite
 * (conformance/scenarios/kb-store-contract.test.ts). Framework-free (node:assert), one fresh place per case:
 *
 *   import { kbStoreContract, runKbContractCase } from 'agentkit/testing';
 *   for (const c of kbStoreContract) test(`${c.group}: ${c.name}`, () => runKbContractCase(c, initializer));
 */
import assert from 'node:assert/strict';
import type { EmbedderSpec } from './embedder.js';
import type { KbCatalog, KbChunkInput, KbDocumentInput, KbStore } from './kb-store.js';

/** One fresh, empty place for bases, and a way to open a second catalog on it (as another process would). */
export interface KbContractStore {
  readonly catalog: KbCatalog;
  /** Another independent catalog on the same place. The case closes it. */
  reopen(): Promise<KbCatalog>;
}

/** How the suite gets places: `create` provisions a fresh empty one, `destroy` removes it (and closes its catalog). */
export interface KbContractInitializer {
  readonly name: string;
  create(): Promise<KbContractStore>;
  destroy(store: KbContractStore): Promise<void>;
}

export interface KbContractCase {
  readonly group: string;
  readonly name: string;
  run(store: KbContractStore): Promise<void>;
}

const DEFAULTS = { chunk_size: 1000, overlap: 150 };
const SPEC: EmbedderSpec = { kind: 'hashing', model: 'contract', dimensions: 3 };
const OTHER: EmbedderSpec = { kind: 'hashing', model: 'other', dimensions: 3 };
const SEP = '/';

/** A unit vector along `parts` (the contract's vectors have three dimensions). */
function unit(...parts: number[]): Float32Array {
  const norm = Math.sqrt(parts.reduce((n, p) => n + p * p, 0));
  return Float32Array.from(parts.map((p) => p / norm));
}

function doc(source: string, hash = 'h1'): KbDocumentInput {
  return { source, format: 'markdown', content_hash: hash, size_bytes: 100, chars: 90 };
}

function chunk(ordinal: number, content: string, heading: string | null = null, embedding = unit(1, 0, 0)): KbChunkInput {
  return { ordinal, content, heading, page: null, start_char: ordinal * 10, end_char: ordinal * 10 + content.length, embedding };
}

async function opened(catalog: KbCatalog, name: string): Promise<KbStore> {
  const store = catalog.open(name);
  await store.init(true, DEFAULTS);
  return store;
}

async function rejectsNotFound(promise: Promise<unknown> | unknown, pattern: RegExp): Promise<void> {
  await assert.rejects((async () => promise)(), (error: Error) => {
    assert.equal((error as { code?: string }).code, 'not_found');
    assert.match(error.message, pattern);
    return true;
  });
}

export const kbStoreContract: readonly KbContractCase[] = [
  {
    group: 'bases',
    name: 'an absent base is not found (naming the bases that exist); a created one records its settings once and is listed',
    async run({ catalog }) {
      assert.deepEqual(await catalog.names(), []);
      await rejectsNotFound((async () => catalog.open('docs').init(false, DEFAULTS))(), /^knowledge base 'docs' not found in .* \(bases: none\)$/);
      const created = await catalog.open('docs').init(true, DEFAULTS);
      assert.deepEqual({ ...created, created_at: '' }, { created_at: '', updated_at: null, chunk_size: 1000, overlap: 150, embedder: null });
      assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T/);
      const again = await catalog.open('docs').init(true, { chunk_size: 500, overlap: 10 });
      assert.deepEqual([again.chunk_size, again.overlap, again.created_at], [1000, 150, created.created_at], 'settings are recorded once');
      await catalog.open('b-base').init(true, DEFAULTS);
      assert.deepEqual(await catalog.names(), ['b-base', 'docs']);
      await rejectsNotFound((async () => catalog.open('zzz').init(false, DEFAULTS))(), /\(bases: b-base, docs\)$/);
    },
  },
  {
    group: 'documents',
    name: 'a document and its chunks are written, counted, listed and replaced whole; the first embedder is kept',
    async run({ catalog }) {
      const kb = await opened(catalog, 'docs');
      assert.equal(await kb.document('/d/a.md'), undefined);
      assert.equal(await kb.replaceDocument(doc('/d/a.md'), [chunk(0, 'alpha one'), chunk(1, 'alpha two')], SPEC), false);
      assert.equal(await kb.replaceDocument(doc('/d/b.md'), [chunk(0, 'beta')], OTHER), false);
      assert.deepEqual(await kb.document('/d/a.md'), { content_hash: 'h1', chunk_count: 2 });
      assert.deepEqual(await kb.counts(), { documents: 2, chunks: 3 });
      const meta = await kb.meta();
      assert.deepEqual(meta.embedder, SPEC, 'the embedder of the first write is recorded, not replaced');
      assert.ok(meta.updated_at !== null && meta.updated_at >= meta.created_at);
      const sources = await kb.sources();
      assert.deepEqual(
        sources.map(({ added_at: _, ...s }) => s),
        [
          { source: '/d/a.md', format: 'markdown', chunks: 2, size_bytes: 100 },
          { source: '/d/b.md', format: 'markdown', chunks: 1, size_bytes: 100 },
        ],
      );
      assert.equal(await kb.replaceDocument(doc('/d/a.md', 'h2'), [chunk(0, 'gamma')], SPEC), true);
      assert.deepEqual(await kb.document('/d/a.md'), { content_hash: 'h2', chunk_count: 1 });
      assert.deepEqual(await kb.counts(), { documents: 2, chunks: 2 });
      assert.deepEqual(await kb.keyword('alpha', 10), [], 'the replaced chunks are gone from search');
      assert.equal((await kb.keyword('gamma', 10))[0]!.source, '/d/a.md');
    },
  },
  {
    group: 'documents',
    name: 'a stored document reads back whole: its row, its chunks in order with headings, pages and vectors; NUL-safe',
    async run({ catalog }) {
      const kb = await opened(catalog, 'docs');
      assert.equal(await kb.readDocument('/d/none.md'), undefined);
      const input = { source: '/d/r\u0000.md', format: 'pdf', content_hash: 'h9', size_bytes: 12345, chars: 678 };
      const chunks = [
        { ...chunk(1, 'second \u0000 part', 'Head\u0000'), page: 2, embedding: unit(0, 1, 0) },
        { ...chunk(0, 'first part', null), page: 1, embedding: unit(0.6, 0.8, 0) },
      ];
      await kb.replaceDocument(input, chunks, SPEC);
      const read = await kb.readDocument(input.source);
      assert.ok(read, 'the document is found by its source');
      assert.deepEqual(read.doc, input);
      assert.deepEqual(
        read.chunks.map((c) => ({ ...c, embedding: Array.from(c.embedding) })),
        [chunks[1]!, chunks[0]!].map((c) => ({ ...c, embedding: Array.from(c.embedding) })),
        'chunks in ordinal order, every field as written',
      );
      assert.ok(read.chunks.every((c) => c.embedding instanceof Float32Array));
    },
  },
  {
    group: 'keyword',
    name: 'words are OR-ed and stemmed, more matching words rank higher, the heading weighs more than the text, topK holds',
    async run({ catalog }) {
      const kb = await opened(catalog, 'docs');
      await kb.replaceDocument(
        doc('/d/a.md'),
        [
          chunk(0, 'Refunds are possible within 30 days of delivery.', 'Refunds'),
          chunk(1, 'Gift cards cannot be refunded or exchanged for cash.', 'Gift cards'),
          chunk(2, 'Shipping takes two business days.', 'Shipping'),
          chunk(3, 'Our shipping partner also handles returns.', null),
          chunk(4, 'Ask the front desk about your parcel.', 'Warranty'),
          chunk(5, 'Warranty is handled by the front desk.', null),
        ],
        SPEC,
      );
      const refund = await kb.keyword('refund', 10);
      assert.deepEqual(
        refund.map((h) => h.ordinal),
        [0, 1],
        'stemmed (refund finds Refunds and refunded); the chunk with it in its heading first',
      );
      const either = await kb.keyword('gift zebra shipping', 10);
      assert.deepEqual(new Set(either.map((h) => h.ordinal)), new Set([1, 2, 3]), 'any word matches');
      const shipping = await kb.keyword('shipping', 10);
      assert.deepEqual(
        shipping.map((h) => h.ordinal),
        [2, 3],
        'the heading match ranks above the text-only one',
      );
      assert.deepEqual(
        (await kb.keyword('warranty', 10)).map((h) => h.ordinal),
        [4, 5],
        'a word in the heading only ranks above the same word in the text only',
      );
      const two = await kb.keyword('gift cards cash shipping', 10);
      assert.equal(two[0]!.ordinal, 1, 'the chunk with more of the words ranks first');
      assert.ok(
        two.every((h, i) => i === 0 || h.score <= two[i - 1]!.score),
        'best first',
      );
      assert.equal((await kb.keyword('refund shipping', 1)).length, 1);
      const hit = refund[0]!;
      assert.deepEqual(
        { ...hit, id: 0, score: 0 },
        {
          id: 0,
          score: 0,
          content: 'Refunds are possible within 30 days of delivery.',
          heading: 'Refunds',
          page: null,
          ordinal: 0,
          start_char: 0,
          end_char: 48,
          source: '/d/a.md',
        },
      );
      assert.deepEqual(await kb.keyword('!!! ... ???', 10), [], 'no word: no hit');
      assert.deepEqual(await kb.keyword('zebra', 10), []);
      await kb.keyword(`"refund" OR (gift:* & !cash') | NEAR(a b) \\ -x`, 10);
    },
  },
  {
    group: 'keyword',
    name: "hits are ranked by BM25 as FTS5's bm25(1.0, 2.0): a rare word outweighs a common one, a repeated word counts, a shorter chunk ranks higher",
    async run({ catalog }) {
      const kb = await opened(catalog, 'docs');
      const common = Array.from({ length: 8 }, (_, i) => chunk(i, 'lantern lantern pebble stone river'));
      await kb.replaceDocument(
        doc('/d/rank.md'),
        [
          ...common,
          chunk(8, 'quartz pebble stone river wood'),
          chunk(9, 'meadow meadow meadow river stone'),
          chunk(10, 'meadow river stone wood bark'),
          chunk(11, 'harbor'),
          chunk(12, 'harbor river stone wood bark pebble lake hill'),
        ],
        SPEC,
      );
      assert.equal((await kb.keyword('lantern quartz', 3))[0]!.ordinal, 8, 'the rare word outweighs the common word said twice');
      assert.deepEqual(
        (await kb.keyword('meadow', 10)).map((h) => h.ordinal),
        [9, 10],
        'three times ranks above once',
      );
      const harbor = await kb.keyword('harbor', 10);
      assert.deepEqual(
        harbor.map((h) => h.ordinal),
        [11, 12],
        'the shorter chunk ranks first',
      );
      // 13 chunks of 64 words in all; 'harbor' is in 2 of them; chunk 11 is one word long.
      const idf = Math.log((13 - 2 + 0.5) / (2 + 0.5));
      const expected = (idf * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 1) / (64 / 13)));
      assert.ok(Math.abs(harbor[0]!.score - expected) < 1e-9, `score ${harbor[0]!.score} is BM25's ${expected}`);
    },
  },
  {
    group: 'keyword',
    name: 'text holding NUL and U+E000 round-trips exactly and is found by its words',
    async run({ catalog }) {
      const kb = await opened(catalog, 'docs');
      const content = 'before\u0000after \uE000 private warranty';
      await kb.replaceDocument(doc('/d/nul\u0000.md'), [chunk(0, content, 'Head\u0000ing')], SPEC);
      const [hit] = await kb.keyword('warranty', 5);
      assert.deepEqual([hit!.content, hit!.heading, hit!.source], [content, 'Head\u0000ing', '/d/nul\u0000.md']);
      assert.deepEqual(await kb.document('/d/nul\u0000.md'), { content_hash: 'h1', chunk_count: 1 });
    },
  },
  {
    group: 'vector',
    name: 'hits are ranked by exact cosine, best first; vectors of another length never match',
    async run({ catalog }) {
      const kb = await opened(catalog, 'docs');
      await kb.replaceDocument(
        doc('/d/v.md'),
        [
          chunk(0, 'x axis', null, unit(1, 0, 0)),
          chunk(1, 'diagonal', null, unit(1, 1, 0)),
          chunk(2, 'y axis', null, unit(0, 1, 0)),
          chunk(3, 'away', null, unit(-1, 0.2, 0)),
        ],
        SPEC,
      );
      const hits = await kb.vector(unit(1, 0, 0), 3);
      assert.deepEqual(
        hits.map((h) => h.ordinal),
        [0, 1, 2],
      );
      const expected = [1, Math.SQRT1_2, 0];
      for (const [i, h] of hits.entries()) assert.ok(Math.abs(h.score - expected[i]!) < 1e-5, `score ${h.score} is the cosine ${expected[i]}`);
      assert.equal(hits[0]!.content, 'x axis');
      assert.deepEqual(
        (await kb.vector(unit(0, 1, 0), 10)).map((h) => h.ordinal),
        [2, 1, 3, 0],
      );
      assert.deepEqual(await kb.vector(Float32Array.from([1, 0]), 10), []);
    },
  },
  {
    group: 'delete',
    name: 'a source, or every source under a directory (not its namesakes), is removed with its chunks; clear forgets the embedder',
    async run({ catalog }) {
      const kb = await opened(catalog, 'docs');
      await kb.replaceDocument(doc('/d/a.md'), [chunk(0, 'apple'), chunk(1, 'apricot')], SPEC);
      await kb.replaceDocument(doc('/d/sub/b.md'), [chunk(0, 'banana')], SPEC);
      await kb.replaceDocument(doc('/d/sub/c.md'), [chunk(0, 'cherry')], SPEC);
      await kb.replaceDocument(doc('/d/subway.md'), [chunk(0, 'subway')], SPEC);
      assert.deepEqual(await kb.deleteSources('/d/missing.md', SEP), { documents: 0, chunks: 0 });
      assert.deepEqual(await kb.deleteSources('/d/a.md', SEP), { documents: 1, chunks: 2 });
      assert.deepEqual(await kb.deleteSources('/d/sub', SEP), { documents: 2, chunks: 2 });
      assert.deepEqual(
        (await kb.sources()).map((s) => s.source),
        ['/d/subway.md'],
      );
      assert.deepEqual(await kb.keyword('apple banana cherry subway', 10).then((h) => h.map((x) => x.content)), ['subway']);
      assert.deepEqual(await kb.clear(), { documents: 1, chunks: 1 });
      assert.deepEqual(await kb.counts(), { documents: 0, chunks: 0 });
      assert.equal((await kb.meta()).embedder, null);
      assert.deepEqual(await kb.vector(unit(1, 0, 0), 5), []);
      await kb.replaceDocument(doc('/d/a.md'), [chunk(0, 'apple')], OTHER);
      assert.deepEqual((await kb.meta()).embedder, OTHER, 'after clear the next write records its embedder');
      assert.deepEqual(await catalog.names(), ['docs'], 'a cleared base still exists');
    },
  },
  {
    group: 'bases',
    name: 'two bases in one place never see each other’s documents or chunks',
    async run({ catalog }) {
      const one = await opened(catalog, 'one');
      const two = await opened(catalog, 'two');
      await one.replaceDocument(doc('/d/a.md'), [chunk(0, 'shared word alpha')], SPEC);
      await two.replaceDocument(doc('/d/a.md', 'other'), [chunk(0, 'shared word beta'), chunk(1, 'more')], SPEC);
      assert.deepEqual(
        (await one.keyword('shared', 10)).map((h) => h.content),
        ['shared word alpha'],
      );
      assert.deepEqual((await two.vector(unit(1, 0, 0), 10)).length, 2);
      assert.deepEqual(await one.document('/d/a.md'), { content_hash: 'h1', chunk_count: 1 });
      assert.deepEqual(await two.clear(), { documents: 1, chunks: 2 });
      assert.deepEqual(await one.counts(), { documents: 1, chunks: 1 });
    },
  },
  {
    group: 'processes',
    name: 'a base written through one catalog is listed and searched through another, with the same hits',
    async run({ catalog, reopen }) {
      const kb = await opened(catalog, 'shared');
      await kb.replaceDocument(doc('/d/a.md'), [chunk(0, 'express delivery in two days', 'Shipping', unit(1, 1, 0)), chunk(1, 'refunds in 30 days')], SPEC);
      const other = await reopen();
      try {
        assert.deepEqual(await other.names(), ['shared']);
        const there = other.open('shared');
        const meta = await there.init(false, DEFAULTS);
        assert.deepEqual(meta.embedder, SPEC);
        assert.deepEqual(await there.keyword('delivery days', 5), await kb.keyword('delivery days', 5));
        assert.deepEqual(await there.vector(unit(0, 1, 0), 5), await kb.vector(unit(0, 1, 0), 5));
        await there.deleteSources('/d/a.md', SEP);
        assert.deepEqual(await kb.counts(), { documents: 0, chunks: 0 }, 'a write through one is seen by the other at its next read');
        await there.close();
      } finally {
        await other.close();
      }
    },
  },
];

/** Run one case against a fresh place from `initializer`, destroying it afterwards; rejects on failure. */
export async function runKbContractCase(contractCase: KbContractCase, initializer: KbContractInitializer): Promise<void> {
  const store = await initializer.create();
  try {
    await contractCase.run(store);
  } finally {
    await initializer.destroy(store);
  }
}
