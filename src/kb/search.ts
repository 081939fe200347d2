/**
 * Search over one base's SQLite file (the Postgres base's search is in ./pg-kb-store.ts). Keyword: SQLite FTS5 with BM25 (the heading weighs twice the text; Porter stemming,
 * so `refund` finds `refunds`), query words OR-ed so a chunk with more of them ranks higher. Vector: cosine
 * similarity (vectors are unit length, so a dot product) over every stored vector, held in one Float32Array reloaded
 * when the base's generation changes. Hybrid: 3 x topK candidates from each, scores min-max normalised per list, then
 * `alpha * vector + (1 - alpha) * keyword`.
 */
import type Database from 'better-sqlite3';
import { getMeta } from './store.js';

export type SearchMode = 'keyword' | 'vector' | 'hybrid';
export const SEARCH_MODES: readonly SearchMode[] = ['keyword', 'vector', 'hybrid'];

/** One search hit. */
export interface SearchResult {
  /** The chunk's id (stable until its source is re-ingested). */
  id: number;
  content: string;
  /** Higher is better; comparable within one search only. */
  score: number;
  /** The source file (absolute path). */
  source: string;
  heading: string | null;
  page: number | null;
  /** Position of the chunk in its document, from 0. */
  ordinal: number;
  /** Offsets of the chunk in the document's extracted text. */
  start_char: number;
  end_char: number;
}

interface Row {
  id: number;
  content: string;
  heading: string | null;
  page: number | null;
  ordinal: number;
  start_char: number;
  end_char: number;
  source: string;
}

const COLUMNS = 'c.id, c.content, c.heading, c.page, c.ordinal, c.start_char, c.end_char, d.source';
const WORD = /[\p{L}\p{N}]+/gu;

/** The distinct words of a free-text query, lower-cased (letters and digits only: nothing a query syntax reads). */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().match(WORD) ?? [])];
}

/**
 * How many words `text` holds, as FTS5's unicode61 tokenizer counts them: a chunk's length in BM25 (the Postgres
 * engine stores it per chunk; SQLite's FTS5 counts its own).
 */
export function tokenCount(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/** The FTS5 expression for a free-text query (each word quoted, OR-ed), or null when it has no word. */
export function ftsQuery(query: string): string | null {
  const words = queryWords(query);
  return words.length === 0 ? null : words.map((w) => `"${w}"`).join(' OR ');
}

/** Keyword hits, best first. */
export function keywordSearch(db: Database.Database, query: string, topK: number): SearchResult[] {
  const match = ftsQuery(query);
  if (match === null) return [];
  // The best rowids first (FTS5 sorts by its configured rank without touching other tables), then their rows.
  const rows = db
    .prepare(
      `SELECT ${COLUMNS}, f.rank AS rank FROM (SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id ORDER BY f.rank`,
    )
    .all(match, topK) as Array<Row & { rank: number }>;
  return rows.map(({ rank, ...row }) => ({ ...row, score: -rank }));
}

/** Every vector of a base, in one matrix, for one generation. */
export class VectorCache {
  private generation: string | undefined;
  private ids = new Float64Array(0);
  private matrix = new Float32Array(0);
  private dims = 0;

  /** Vector hits for a unit-length `query` vector, best first. */
  search(db: Database.Database, query: Float32Array, topK: number): SearchResult[] {
    this.load(db);
    if (this.ids.length === 0 || query.length !== this.dims) return [];
    const best: Array<{ index: number; score: number }> = [];
    const d = this.dims;
    for (let row = 0; row < this.ids.length; row++) {
      let dot = 0;
      const base = row * d;
      for (let i = 0; i < d; i++) dot += this.matrix[base + i]! * query[i]!;
      if (best.length < topK) {
        best.push({ index: row, score: dot });
        if (best.length === topK) best.sort((a, b) => b.score - a.score);
      } else if (dot > best[topK - 1]!.score) {
        let at = topK - 1;
        while (at > 0 && best[at - 1]!.score < dot) at--;
        best.splice(at, 0, { index: row, score: dot });
        best.pop();
      }
    }
    best.sort((a, b) => b.score - a.score);
    const byId = new Map(best.map((b) => [this.ids[b.index]!, b.score]));
    const rows = fetchRows(db, [...byId.keys()]);
    return rows.map((row) => ({ ...row, score: byId.get(row.id)! })).sort((a, b) => b.score - a.score);
  }

  /** Forget the loaded vectors (the next search reloads). */
  reset(): void {
    this.generation = undefined;
    this.ids = new Float64Array(0);
    this.matrix = new Float32Array(0);
  }

  private load(db: Database.Database): void {
    const generation = getMeta(db, 'generation') ?? '0';
    if (generation === this.generation) return;
    const rows = db.prepare('SELECT id, embedding FROM chunks WHERE embedding IS NOT NULL ORDER BY id').all() as Array<{ id: number; embedding: Buffer }>;
    this.dims = rows.length > 0 ? rows[0]!.embedding.byteLength / 4 : 0;
    this.ids = new Float64Array(rows.length);
    this.matrix = new Float32Array(rows.length * this.dims);
    rows.forEach((row, i) => {
      this.ids[i] = row.id;
      this.matrix.set(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, this.dims), i * this.dims);
    });
    this.generation = generation;
  }
}

/** Combine keyword and vector hits (each list min-max normalised to 0..1). */
export function fuse(keyword: SearchResult[], vector: SearchResult[], alpha: number, topK: number): SearchResult[] {
  const kw = normalised(keyword);
  const vec = normalised(vector);
  const merged = new Map<number, SearchResult>();
  for (const hit of [...keyword, ...vector]) merged.set(hit.id, hit);
  return [...merged.values()]
    .map((hit) => ({ ...hit, score: alpha * (vec.get(hit.id) ?? 0) + (1 - alpha) * (kw.get(hit.id) ?? 0) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, topK);
}

function normalised(hits: SearchResult[]): Map<number, number> {
  if (hits.length === 0) return new Map();
  const scores = hits.map((h) => h.score);
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  return new Map(hits.map((h) => [h.id, max === min ? 1 : (h.score - min) / (max - min)]));
}

function fetchRows(db: Database.Database, ids: number[]): Row[] {
  if (ids.length === 0) return [];
  return db
    .prepare(`SELECT ${COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN (${ids.map(() => '?').join(',')})`)
    .all(...ids) as Row[];
}
