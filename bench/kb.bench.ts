/**
 * Knowledge base: ingestion throughput and keyword search latency, each next to a floor measured in the same run.
 *
 * 1. Ingest 2,000 Markdown files (about 10 MB, headings and paragraphs) with `kb.add(dir)` on the local embedder:
 *    files/s and chunks/s. Floor: reading the same files and inserting their text cut every 1000 characters into a
 *    bare FTS5 table, one transaction per file (no structure, no overlap, no hashing, no vectors).
 * 2. Keyword search over 100,000 chunks (synthetic text from a Zipf-distributed vocabulary of 20,000 words, written
 *    straight into a base's tables): `kb.search(query, { mode: 'keyword', topK: 4 })` p50 and p99 over 500 queries
 *    of 1-3 words, next to the raw FTS5 query on the same table (`... MATCH ? ORDER BY rank LIMIT 4`), the floor.
 *    Target: p99 under 20 ms.
 * 3. The same base on both engines (issue 39): 100,000 chunks written through the owner (`KbStore.replaceDocument`,
 *    2,000 documents of 50 chunks, the local embedder's 256-dim vectors) into a SQLite file and a Postgres schema,
 *    then the 30 committed queries of bench/kb-queries.json, 10 rounds each after a warm-up round: keyword p50/p99 on
 *    both (target on Postgres: p99 at most 30 ms), the mean overlap of Postgres's top 5 with SQLite's (same source and
 *    ordinal; target at least 3), and vector search latency on both (exact cosine; no target). Postgres uses
 *    AGENTKIT_TEST_PG_URL (default the local test server) in a scratch schema dropped afterwards.
 *
 *   node scripts/bench.mjs kb              (node scripts/bench.mjs kb --engines: part 3 only)
 */
import Database from 'better-sqlite3';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ftsQuery, HashingEmbedder, kbCatalogOf, KnowledgeBase, type SearchResult } from '../src/index.js';
import { withScratchSchema } from './lib/pg-scratch.js';
import { prng as random } from '../src/prng.js';

const FILES = 2000;
const CHUNKS = 100_000;
const QUERIES = 500;

const VOCAB = Array.from({ length: 20_000 }, (_, i) => {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let word = '';
  let n = i + 1;
  while (n > 0) {
    word += letters[n % 26];
    n = Math.floor(n / 26);
  }
  return `${word}${'aeiou'[i % 5]}`;
});

/** A Zipf-ish word: low indexes are much more frequent. */
function word(rand: () => number): string {
  return VOCAB[Math.min(VOCAB.length - 1, Math.floor(rand() ** 3 * VOCAB.length))]!;
}

function sentence(rand: () => number): string {
  const n = 8 + Math.floor(rand() * 12);
  const words = Array.from({ length: n }, () => word(rand));
  return `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`;
}

function markdownFile(rand: () => number, index: number): string {
  const parts = [`# Document ${index}`];
  for (let s = 0; s < 6; s++) {
    parts.push(`## Section ${s} ${word(rand)}`);
    for (let p = 0; p < 3; p++) parts.push(Array.from({ length: 4 }, () => sentence(rand)).join(' '));
  }
  return `${parts.join('\n\n')}\n`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function ingest(dir: string): Promise<void> {
  const docs = path.join(dir, 'docs');
  await mkdir(docs);
  const rand = random(7);
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const text = markdownFile(rand, i);
    bytes += Buffer.byteLength(text);
    await writeFile(path.join(docs, `doc-${String(i).padStart(4, '0')}.md`), text);
  }

  const kb = new KnowledgeBase('ingest', { root: path.join(dir, 'kb'), env: {} });
  const start = performance.now();
  const report = await kb.add(docs);
  const seconds = (performance.now() - start) / 1000;
  kb.close();

  const floorDb = new Database(path.join(dir, 'floor.sqlite'));
  floorDb.pragma('journal_mode = WAL');
  floorDb.pragma('synchronous = NORMAL');
  floorDb.exec('CREATE VIRTUAL TABLE t USING fts5(content)');
  const insert = floorDb.prepare('INSERT INTO t (content) VALUES (?)');
  const floorStart = performance.now();
  let floorChunks = 0;
  for (const name of (await readdir(docs)).sort()) {
    const text = await readFile(path.join(docs, name), 'utf8');
    floorDb.transaction(() => {
      for (let at = 0; at < text.length; at += 1000) {
        insert.run(text.slice(at, at + 1000));
        floorChunks++;
      }
    })();
  }
  const floorSeconds = (performance.now() - floorStart) / 1000;
  floorDb.close();

  console.log(`ingest: ${FILES} Markdown files, ${(bytes / 1e6).toFixed(1)} MB, ${report.chunks} chunks (${report.failed} failed)`);
  console.log(
    `  kb.add:  ${(FILES / seconds).toFixed(0)} files/s, ${(report.chunks / seconds).toFixed(0)} chunks/s, ${(bytes / 1e6 / seconds).toFixed(2)} MB/s (${seconds.toFixed(2)} s)`,
  );
  console.log(
    `  floor:   ${(FILES / floorSeconds).toFixed(0)} files/s, ${(floorChunks / floorSeconds).toFixed(0)} chunks/s (read + fixed cut + bare FTS5 insert, ${floorSeconds.toFixed(2)} s)`,
  );
  console.log(`  ratio:   ${(seconds / floorSeconds).toFixed(2)}x the floor's time per file`);
}

async function search(dir: string): Promise<void> {
  const root = path.join(dir, 'kb');
  new KnowledgeBase('search', { root, env: {} }).close();
  const db = new Database(path.join(root, 'search', 'kb.sqlite'));
  const rand = random(11);
  const buildStart = performance.now();
  db.transaction(() => {
    const insertDoc = db.prepare(
      "INSERT INTO documents (source, format, content_hash, size_bytes, chars, chunk_count, added_at) VALUES (?, 'markdown', ?, 0, 0, ?, '2026-01-01T00:00:00Z')",
    );
    const insertChunk = db.prepare('INSERT INTO chunks (document_id, ordinal, content, heading, page, start_char, end_char) VALUES (?, ?, ?, ?, NULL, 0, 0)');
    const perDoc = 50;
    for (let d = 0; d < CHUNKS / perDoc; d++) {
      const doc = insertDoc.run(`/bench/doc-${d}.md`, `hash-${d}`, perDoc);
      for (let c = 0; c < perDoc; c++) {
        const content = Array.from({ length: 3 + Math.floor(rand() * 4) }, () => sentence(rand)).join(' ');
        insertChunk.run(doc.lastInsertRowid, c, content, `Section ${word(rand)}`);
      }
    }
  })();
  db.close();
  const buildSeconds = (performance.now() - buildStart) / 1000;

  const queries = Array.from({ length: QUERIES }, () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => VOCAB[Math.floor(rand() * 2000)]!).join(' '));
  const kb = new KnowledgeBase('search', { root, env: {} });
  const raw = new Database(path.join(root, 'search', 'kb.sqlite'), { readonly: true });
  const rawQuery = raw.prepare('SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 4');
  // Warm both paths (page cache, statement caches).
  for (const q of queries.slice(0, 50)) {
    await kb.search(q, { mode: 'keyword', topK: 4 });
    rawQuery.all(ftsQuery(q)!);
  }
  const ours: number[] = [];
  const floor: number[] = [];
  let hits = 0;
  for (const q of queries) {
    let t = performance.now();
    hits += (await kb.search(q, { mode: 'keyword', topK: 4 })).length;
    ours.push(performance.now() - t);
    t = performance.now();
    rawQuery.all(ftsQuery(q)!);
    floor.push(performance.now() - t);
  }
  kb.close();
  raw.close();
  ours.sort((a, b) => a - b);
  floor.sort((a, b) => a - b);
  console.log(
    `keyword search: ${CHUNKS} chunks (built in ${buildSeconds.toFixed(1)} s), ${QUERIES} queries of 1-3 words, top 4, ${(hits / QUERIES).toFixed(1)} hits per query`,
  );
  console.log(`  kb.search: p50 ${percentile(ours, 50).toFixed(2)} ms, p99 ${percentile(ours, 99).toFixed(2)} ms (target p99 < 20 ms)`);
  console.log(`  raw FTS5:  p50 ${percentile(floor, 50).toFixed(2)} ms, p99 ${percentile(floor, 99).toFixed(2)} ms`);
  console.log(
    `  ratio:     p50 ${(percentile(ours, 50) / percentile(floor, 50)).toFixed(2)}x, p99 ${(percentile(ours, 99) / percentile(floor, 99)).toFixed(2)}x the raw query`,
  );
}

/** Write the same 100,000 chunks into the base `engines` through the owner. */
async function fillBase(where: { root?: string; dbPath?: string }): Promise<number> {
  const catalog = kbCatalogOf({ ...where, env: {} });
  const store = catalog.open('engines');
  await store.init(true, { chunk_size: 1000, overlap: 150 });
  const embedder = new HashingEmbedder();
  const rand = random(23);
  const start = performance.now();
  const perDoc = 50;
  for (let d = 0; d < CHUNKS / perDoc; d++) {
    const texts = Array.from({ length: perDoc }, () => Array.from({ length: 3 + Math.floor(rand() * 4) }, () => sentence(rand)).join(' '));
    const headings = texts.map(() => `Section ${word(rand)}`);
    const vectors = await embedder.embed(texts.map((t, i) => `${headings[i]}\n${t}`));
    await store.replaceDocument(
      { source: `/bench/doc-${d}.md`, format: 'markdown', content_hash: `hash-${d}`, size_bytes: 0, chars: 0 },
      texts.map((content, c) => ({ ordinal: c, content, heading: headings[c]!, page: null, start_char: 0, end_char: content.length, embedding: vectors[c]! })),
      embedder.spec,
    );
  }
  await catalog.close();
  return (performance.now() - start) / 1000;
}

interface EngineRun {
  keyword: number[];
  vector: number[];
  top5: string[][];
}

async function measure(where: { root?: string; dbPath?: string }, queries: readonly string[]): Promise<EngineRun> {
  const kb = new KnowledgeBase('engines', { ...where, env: {}, create: false });
  await kb.ready();
  const key = (h: SearchResult) => `${h.source}#${h.ordinal}`;
  const top5: string[][] = [];
  for (const q of queries) top5.push((await kb.search(q, { mode: 'keyword', topK: 5 })).map(key));
  const keyword: number[] = [];
  for (let round = 0; round < 10; round++) {
    for (const q of queries) {
      const t = performance.now();
      await kb.search(q, { mode: 'keyword', topK: 4 });
      keyword.push(performance.now() - t);
    }
  }
  const vector: number[] = [];
  for (const q of queries.slice(0, 10)) {
    const t = performance.now();
    await kb.search(q, { mode: 'vector', topK: 4 });
    vector.push(performance.now() - t);
  }
  await kb.close();
  return { keyword: keyword.sort((a, b) => a - b), vector: vector.sort((a, b) => a - b), top5 };
}

async function engines(dir: string): Promise<void> {
  const { queries } = JSON.parse(await readFile(new URL('./kb-queries.json', import.meta.url), 'utf8')) as { queries: string[] };
  const root = path.join(dir, 'engines');
  const sqliteBuild = await fillBase({ root });
  const sqlite = await measure({ root }, queries);
  const outcome = await withScratchSchema(async (url, schema, admin) => {
    const dbPath = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
    const build = await fillBase({ dbPath });
    // Statistics for the planner, as autovacuum's analyze gives a table soon after a bulk load: without them it scans
    // the (project, kb) index instead of the GIN index.
    await admin.query(`ANALYZE "${schema}".kb_chunks, "${schema}".kb_documents`);
    return { build, run: await measure({ dbPath }, queries) };
  });
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  console.log(`same base on both engines: ${CHUNKS} chunks, ${queries.length} committed queries x 10 rounds, top 4 (overlap: top 5)`);
  console.log(
    `  SQLite:   built in ${sqliteBuild.toFixed(1)} s; keyword p50 ${ms(percentile(sqlite.keyword, 50))}, p99 ${ms(percentile(sqlite.keyword, 99))}; vector p50 ${ms(percentile(sqlite.vector, 50))} (first call loads the vectors)`,
  );
  if (typeof outcome === 'string') {
    console.log(`  Postgres: ${outcome}`);
    return;
  }
  const pgRun = outcome.run;
  const overlap = pgRun.top5.reduce((n, top, i) => n + top.filter((k) => sqlite.top5[i]!.includes(k)).length, 0) / queries.length;
  console.log(
    `  Postgres: built in ${outcome.build.toFixed(1)} s; keyword p50 ${ms(percentile(pgRun.keyword, 50))}, p99 ${ms(percentile(pgRun.keyword, 99))} (target p99 <= 30 ms); vector p50 ${ms(percentile(pgRun.vector, 50))}, max ${ms(pgRun.vector.at(-1)!)} (exact cosine in SQL, no target)`,
  );
  console.log(`  overlap:  mean ${overlap.toFixed(2)} of Postgres's top 5 in SQLite's top 5 (target >= 3)`);
}

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-kb-bench-'));
const only = process.argv.includes('--engines');
try {
  if (!only) {
    await ingest(dir);
    await search(dir);
  }
  await engines(dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
