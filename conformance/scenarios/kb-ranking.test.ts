/**
 * Keyword ranking on both engines (issue 39, docs/adr/0072): the same base written through the owner into a SQLite
 * file and a Postgres schema answers every query with the same hits in the same order and the same BM25 scores; a
 * Postgres base written by the v1 schema (no chunk lengths) is migrated in place and ranks the same afterwards.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import pg from 'pg';
import { kbCatalogOf } from '../../src/kb/index.js';
import type { EmbedderSpec } from '../../src/kb/embedder.js';
import type { KbCatalog, KbChunkInput } from '../../src/kb/kb-store.js';
import { PG_KB_FAMILY } from '../../src/kb/pg-kb-store.js';
import { migrateFamily } from '../../src/store/pg-family-schema.js';
import { prng } from '../../src/prng.js';
import { conformance } from '../harness/index.js';

const area = conformance('knowledge bases: keyword ranking alike on both engines');

const WORDS = [
  'harbor',
  'lantern',
  'meadow',
  'pebble',
  'quartz',
  'river',
  'stone',
  'willow',
  'copper',
  'falcon',
  'garden',
  'marble',
  'canyon',
  'thunder',
  'saddle',
  'walnut',
  'island',
  'forest',
  'candle',
  'velvet',
  'pillow',
  'rocket',
  'basket',
  'mirror',
  'ladder',
  'orchid',
  'tunnel',
  'violin',
  'anchor',
  'beacon',
];
const QUERIES = ['harbor', 'lantern quartz', 'meadow falcon copper', 'willow', 'garden marble river', 'pebble stone', 'violin anchor beacon'];
const SPEC: EmbedderSpec = { kind: 'hashing', model: 'ranking', dimensions: 3 };

/** 12 documents of 10 chunks: words drawn unevenly (rarer further down the list), some headings, varied lengths. */
function corpus(): Array<{ source: string; chunks: KbChunkInput[] }> {
  const rand = prng(5);
  const pick = () => WORDS[Math.min(WORDS.length - 1, Math.floor(rand() ** 1.5 * WORDS.length))]!;
  return Array.from({ length: 12 }, (_, d) => ({
    source: `/d/doc-${d}.md`,
    chunks: Array.from({ length: 10 }, (_, c) => {
      const content = Array.from({ length: 2 + Math.floor(rand() * 7) }, pick).join(' ');
      const heading = rand() < 0.3 ? `Section ${pick()}` : null;
      return { ordinal: c, content, heading, page: null, start_char: 0, end_char: content.length, embedding: new Float32Array([1, 0, 0]) };
    }),
  }));
}

async function fill(catalog: KbCatalog): Promise<void> {
  const kb = catalog.open('rank');
  await kb.init(true, { chunk_size: 1000, overlap: 150 });
  for (const doc of corpus()) {
    await kb.replaceDocument({ source: doc.source, format: 'markdown', content_hash: 'h', size_bytes: 1, chars: 1 }, doc.chunks, SPEC);
  }
}

async function answers(catalog: KbCatalog): Promise<Array<Array<[string, number]>>> {
  const kb = catalog.open('rank');
  await kb.init(false, { chunk_size: 1000, overlap: 150 });
  const out: Array<Array<[string, number]>> = [];
  for (const q of QUERIES) out.push((await kb.keyword(q, 1000)).map((h) => [`${h.source}#${h.ordinal}`, h.score]));
  return out;
}

/**
 * Same hits with the same scores, best first. Chunks of equal score may come in either order (FTS5 leaves ties
 * unordered), so each run of equal scores is compared as a set.
 */
function assertSame(actual: Array<Array<[string, number]>>, expected: Array<Array<[string, number]>>, what: string): void {
  const close = (a: number, b: number) => Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(b));
  QUERIES.forEach((q, i) => {
    const got = actual[i]!;
    const want = expected[i]!;
    assert.equal(got.length, want.length, `${what}: '${q}' has as many hits as on SQLite`);
    for (const [j, [, score]] of want.entries()) {
      assert.ok(close(got[j]![1], score), `${what}: '${q}' hit ${j} scores ${got[j]![1]}, SQLite ${score}`);
    }
    const groups = (hits: Array<[string, number]>) => {
      const out: string[][] = [];
      hits.forEach(([key, score], j) => {
        if (j > 0 && close(score, hits[j - 1]![1])) out.at(-1)!.push(key);
        else out.push([key]);
      });
      return out.map((g) => g.sort());
    };
    assert.equal(groups(got), groups(want), `${what}: '${q}' ranks the same chunks in the same order`);
  });
}

area.scenario(
  'the same base on SQLite and on Postgres: same hits, same order, same BM25 scores; a v1 Postgres base is migrated and ranks the same',
  { backends: ['postgres'], timeoutMs: 60_000 },
  async (t) => {
    const sqlite = kbCatalogOf({ root: path.join(t.cwd, 'kb'), env: {} });
    await fill(sqlite);
    const expected = await answers(sqlite);
    await sqlite.close();
    assert.ok(
      expected.every((hits) => hits.length > 0),
      'every query has hits',
    );

    const postgres = kbCatalogOf({ dbPath: t.store!, env: {} });
    await fill(postgres);
    assertSame(await answers(postgres), expected, 'Postgres');
    await postgres.close();

    // A base written by the v1 schema: its chunks have no lengths until the v2 step counts them.
    const oldUrl = new URL(t.store!);
    const schema = `${oldUrl.searchParams.get('schema')}v1`;
    oldUrl.searchParams.set('schema', schema);
    const old = oldUrl.toString();
    if (t.backend.kind !== 'postgres') throw new Error('a Postgres-only scenario');
    const admin = new pg.Pool({ connectionString: t.backend.url });
    try {
      await migrateFamily(admin, schema, { ...PG_KB_FAMILY, migrations: PG_KB_FAMILY.migrations.slice(0, 1) });
      const s = `"${schema}"`;
      await admin.query(`INSERT INTO ${s}.kb_bases (project, kb, chunk_size, overlap, created_at) VALUES ('', 'rank', 1000, 150, now())`);
      for (const doc of corpus()) {
        const { rows } = await admin.query<{ id: string }>(
          `INSERT INTO ${s}.kb_documents (project, kb, source, format, content_hash, size_bytes, chars, chunk_count, added_at)
           VALUES ('', 'rank', $1, 'markdown', 'h', 1, 1, $2, now()) RETURNING id`,
          [doc.source, doc.chunks.length],
        );
        for (const c of doc.chunks) {
          await admin.query(
            `INSERT INTO ${s}.kb_chunks (project, kb, document_id, ordinal, content, heading, start_char, end_char, embedding)
             VALUES ('', 'rank', $1, $2, $3, $4, 0, $5, '{1,0,0}')`,
            [rows[0]!.id, c.ordinal, c.content, c.heading, c.end_char],
          );
        }
      }
      const migrated = kbCatalogOf({ dbPath: old, env: {} });
      assertSame(await answers(migrated), expected, 'Postgres migrated from v1');
      await migrated.close();
      const versions = await admin.query<{ version: number }>(`SELECT version FROM ${s}.kb_schema_version ORDER BY version`);
      assert.equal(
        versions.rows.map((r) => r.version),
        [1, 2],
      );
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  },
);

area.run();
