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
 *
 *   node scripts/bench.mjs kb
 */
import Database from 'better-sqlite3';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ftsQuery, KnowledgeBase } from '../src/index.js';
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

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-kb-bench-'));
try {
  await ingest(dir);
  await search(dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
