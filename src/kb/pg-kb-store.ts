/**
 * Knowledge bases in a Postgres store: one table family in the store's schema (`kb_bases`, `kb_documents`,
 * `kb_chunks`), every row keyed by project and base name, with its own migration list (store/pg-family-schema.ts).
 *
 * Keyword search: a stored `tsvector` (english: stemmed, so `refund` finds `refunds`; the heading weighted A, the text
 * B) under a GIN index, the query's words OR-ed as in the SQLite base's FTS5 search (./search.ts `queryWords`), ranked
 * by BM25 as FTS5 computes it (`bm25(1.0, 2.0)`: k1 1.2, b 0.75, a heading occurrence weighing twice a text one, each
 * chunk's length its `tokens`), so both engines rank alike (docs/adr/0072-kb-ranking-bm25-on-postgres.md). Vector search: exact cosine in SQL over each chunk's `real[]` vector (no
 * extension). Text is NUL-safe (store/pg-text.ts). Writes to one base lock its `kb_bases` row, so processes ingesting
 * into one base at once take turns and never interleave a document's chunks.
 */
import type pg from 'pg';
import { NotFoundError } from '../errors.js';
import type { PgFamily } from '../store/pg-family-schema.js';
import { PgFamilyTables } from '../store/pg-family-tables.js';
import { decodePgString, encodePgString, pgIsoText } from '../store/pg-text.js';
import type { Store } from '../store/store-handle.js';
import { utcNow } from '../store/time.js';
import type { EmbedderSpec } from './embedder.js';
import type { KbCatalog, KbChunkInput, KbCounts, KbDocumentInput, KbDocumentRef, KbMeta, KbSourceRow, KbStore, KbStoredDocument } from './kb-store.js';
import { queryWords, tokenCount, type SearchResult } from './search.js';
import { inPgTransaction } from '../store/pg-transaction.js';

/** The knowledge-base family's tables on a Postgres store. */
export const PG_KB_FAMILY: PgFamily = {
  name: 'kb',
  versionTable: 'kb_schema_version',
  tables: 'knowledge base tables',
  migrations: [
    {
      description: 'v1 kb_bases, kb_documents, kb_chunks: knowledge bases keyed by project and name; tsvector (GIN) and real[] vectors',
      sql: (s) => `
        CREATE TABLE ${s}.kb_bases (
          project TEXT NOT NULL DEFAULT '',
          kb TEXT NOT NULL,
          chunk_size INTEGER NOT NULL,
          overlap INTEGER NOT NULL,
          embedder TEXT,
          created_at TIMESTAMPTZ NOT NULL,
          updated_at TIMESTAMPTZ,
          PRIMARY KEY (project, kb)
        );
        CREATE TABLE ${s}.kb_documents (
          project TEXT NOT NULL,
          kb TEXT NOT NULL,
          id BIGINT GENERATED ALWAYS AS IDENTITY,
          source TEXT NOT NULL,
          format TEXT NOT NULL,
          content_hash TEXT NOT NULL,
          size_bytes BIGINT NOT NULL,
          chars BIGINT NOT NULL,
          chunk_count INTEGER NOT NULL,
          added_at TIMESTAMPTZ NOT NULL,
          PRIMARY KEY (project, kb, id),
          UNIQUE (project, kb, source),
          FOREIGN KEY (project, kb) REFERENCES ${s}.kb_bases (project, kb) ON DELETE CASCADE
        );
        CREATE TABLE ${s}.kb_chunks (
          project TEXT NOT NULL,
          kb TEXT NOT NULL,
          id BIGINT GENERATED ALWAYS AS IDENTITY,
          document_id BIGINT NOT NULL,
          ordinal INTEGER NOT NULL,
          content TEXT NOT NULL,
          heading TEXT,
          page INTEGER,
          start_char INTEGER NOT NULL,
          end_char INTEGER NOT NULL,
          embedding REAL[],
          tsv TSVECTOR GENERATED ALWAYS AS (
            setweight(to_tsvector('english'::regconfig, coalesce(heading, '')), 'A') || setweight(to_tsvector('english'::regconfig, content), 'B')
          ) STORED,
          PRIMARY KEY (project, kb, id),
          FOREIGN KEY (project, kb, document_id) REFERENCES ${s}.kb_documents (project, kb, id) ON DELETE CASCADE
        );
        CREATE INDEX kb_chunks_document ON ${s}.kb_chunks (project, kb, document_id, ordinal);
        CREATE INDEX kb_chunks_tsv ON ${s}.kb_chunks USING GIN (tsv);`,
    },
    {
      description: 'v2 tokens on kb_chunks and kb_documents: chunk lengths for BM25 ranking (counted for rows already stored)',
      sql: (s) => `
        ALTER TABLE ${s}.kb_chunks ADD COLUMN tokens INTEGER;
        UPDATE ${s}.kb_chunks SET tokens = (SELECT count(*) FROM regexp_matches(coalesce(heading, '') || ' ' || content, '[[:alnum:]]+', 'g'));
        ALTER TABLE ${s}.kb_chunks ALTER COLUMN tokens SET NOT NULL;
        ALTER TABLE ${s}.kb_documents ADD COLUMN tokens BIGINT;
        UPDATE ${s}.kb_documents d SET tokens = coalesce((SELECT sum(c.tokens) FROM ${s}.kb_chunks c
          WHERE c.project = d.project AND c.kb = d.kb AND c.document_id = d.id), 0);
        ALTER TABLE ${s}.kb_documents ALTER COLUMN tokens SET NOT NULL;`,
    },
  ],
};

/**
 * Keyword hits ranked by BM25 as SQLite's FTS5 computes `bm25(1.0, 2.0)` (k1 1.2, b 0.75; a term's weighted frequency
 * counts a heading occurrence twice; IDF `ln((N - n + 0.5) / (n + 0.5))`, at least 1e-6). `$3` the OR-ed tsquery
 * text, `$5` the query words, `$4` topK, `$6` how many candidates the exact pass rescores.
 *
 * Two passes, because per-row work is what costs here (every matched chunk is read): the first reads each term's
 * matches once through the GIN index, noting only whether the term is in the heading and the text (one `@@` each);
 * that gives every term's document frequency (all chunks holding a term are matched) and a presence score, which
 * ranks like BM25 except where a term repeats in a chunk. The second rescores the best `$6` by their true weighted
 * frequencies from the tsvector's positions, and orders them exactly. Numbers are float8 throughout (numeric
 * arithmetic over thousands of rows costs milliseconds).
 */
function keywordSql(s: string): string {
  const bm25 = (w: string, tokens: string) => `i.idf * (${w} * 2.2::float8) / (${w} + 1.2::float8 * (0.25::float8 + 0.75::float8 * ${tokens} / b.avgdl))`;
  return `
    WITH terms AS MATERIALIZED (
      SELECT DISTINCT l.lexeme AS lex FROM unnest($5::text[]) AS w(word), unnest(to_tsvector('english'::regconfig, w.word)) AS l
    ), tq AS MATERIALIZED (
      SELECT lex, quote_literal(lex)::tsquery AS q, (quote_literal(lex) || ':A')::tsquery AS qa, (quote_literal(lex) || ':B')::tsquery AS qb FROM terms
    ), base AS MATERIALIZED (
      SELECT sum(d.chunk_count)::float8 AS n, sum(d.tokens)::float8 / nullif(sum(d.chunk_count), 0) AS avgdl
      FROM ${s}.kb_documents d WHERE d.project = $1 AND d.kb = $2
    ), matched AS MATERIALIZED (
      SELECT c.id, c.tokens, tq.lex, CASE WHEN c.tsv @@ tq.qa THEN 2 + (c.tsv @@ tq.qb)::int ELSE 1 END AS w
      FROM tq CROSS JOIN LATERAL (
        SELECT c.id, c.tokens, c.tsv FROM ${s}.kb_chunks c WHERE c.project = $1 AND c.kb = $2 AND c.tsv @@ tq.q) c
      WHERE $3::text IS NOT NULL
    ), idf AS MATERIALIZED (
      SELECT m.lex, greatest(1e-6::float8, ln((b.n - count(*) + 0.5::float8) / (count(*) + 0.5::float8))) AS idf
      FROM matched m, base b GROUP BY m.lex, b.n
    ), rough AS (
      SELECT m.id FROM matched m JOIN idf i USING (lex), base b
      GROUP BY m.id ORDER BY sum(${bm25('m.w', 'm.tokens')}) DESC, m.id LIMIT $6
    ), exact AS (
      SELECT c.id, sum(${bm25('t.wtf', 'c.tokens')}) AS score
      FROM rough r JOIN ${s}.kb_chunks c ON c.project = $1 AND c.kb = $2 AND c.id = r.id
      CROSS JOIN LATERAL (
        SELECT u.lexeme, (SELECT sum(CASE x WHEN 'A' THEN 2 ELSE 1 END) FROM unnest(u.weights) AS x)::float8 AS wtf FROM unnest(c.tsv) AS u) t
      JOIN idf i ON i.lex = t.lexeme, base b
      GROUP BY c.id ORDER BY score DESC, c.id LIMIT $4
    )
    SELECT ${COLUMNS}, h.score FROM exact h
    JOIN ${s}.kb_chunks c ON c.project = $1 AND c.kb = $2 AND c.id = h.id
    JOIN ${s}.kb_documents d ON d.project = $1 AND d.kb = $2 AND d.id = c.document_id
    ORDER BY h.score DESC, c.id`;
}
const COLUMNS = 'c.id, c.content, c.heading, c.page, c.ordinal, c.start_char, c.end_char, d.source';

interface HitRow {
  id: string;
  content: string;
  heading: string | null;
  page: number | null;
  ordinal: number;
  start_char: number;
  end_char: number;
  source: string;
  score: number;
}

/** The bases of one project of a Postgres store. */
export class PgKbCatalog implements KbCatalog {
  readonly engine = 'postgres' as const;
  readonly where: string;
  readonly #tables: PgFamilyTables;

  /** `store` is a Postgres store this catalog closes; `project` '' for a store of one project. */
  constructor(store: Store, project = '') {
    this.#tables = new PgFamilyTables(store, PG_KB_FAMILY, project);
    this.where = store.label;
  }

  async names(): Promise<string[]> {
    const pool = await this.#tables.readable();
    if (!pool) return [];
    const rows = await pool.query<{ kb: string }>(`SELECT kb FROM ${this.#tables.s}.kb_bases WHERE project = $1 ORDER BY kb COLLATE "C"`, [
      this.#tables.project,
    ]);
    return rows.rows.map((r) => r.kb);
  }

  open(name: string): PgKbStore {
    return new PgKbStore(this.#tables, name, this);
  }

  async close(): Promise<void> {
    await this.#tables.close();
  }
}

/** One base's rows. Closing it leaves the catalog's pool open. */
export class PgKbStore implements KbStore {
  readonly location: string;
  readonly #t: PgFamilyTables;
  readonly #name: string;
  readonly #catalog: PgKbCatalog;

  constructor(tables: PgFamilyTables, name: string, catalog: PgKbCatalog) {
    this.#t = tables;
    this.#name = name;
    this.#catalog = catalog;
    this.location = `${tables.label} kb ${name}`;
  }

  /** `project = $1 AND kb = $2` for table alias `a`. */
  #key(a: string): string {
    return `${a}.project = $1 AND ${a}.kb = $2`;
  }

  get #params(): [string, string] {
    return [this.#t.project, this.#name];
  }

  async init(create: boolean, defaults: { chunk_size: number; overlap: number }): Promise<KbMeta> {
    if (create) {
      const pool = await this.#t.writable();
      await pool.query(
        `INSERT INTO ${this.#t.s}.kb_bases (project, kb, chunk_size, overlap, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project, kb) DO NOTHING`,
        [...this.#params, defaults.chunk_size, defaults.overlap, utcNow()],
      );
    }
    const meta = (await this.#t.readable()) ? await this.#readMeta() : undefined;
    if (meta) return meta;
    const known = await this.#catalog.names();
    throw new NotFoundError('not_found', `knowledge base '${this.#name}' not found in ${this.#catalog.where} (bases: ${known.join(', ') || 'none'})`);
  }

  async meta(): Promise<KbMeta> {
    const meta = await this.#readMeta();
    if (!meta) throw new NotFoundError('not_found', `knowledge base '${this.#name}' no longer exists in ${this.#catalog.where}`);
    return meta;
  }

  async document(source: string): Promise<KbDocumentRef | undefined> {
    const pool = await this.#t.writable();
    const result = await pool.query<KbDocumentRef>(
      `SELECT content_hash, chunk_count FROM ${this.#t.s}.kb_documents d WHERE ${this.#key('d')} AND source = $3`,
      [...this.#params, encodePgString(source)],
    );
    return result.rows[0];
  }

  async replaceDocument(doc: KbDocumentInput, chunks: readonly KbChunkInput[], embedder: EmbedderSpec): Promise<boolean> {
    return this.#write(async (client) => {
      const s = this.#t.s;
      await client.query(`UPDATE ${s}.kb_bases b SET embedder = $3 WHERE ${this.#key('b')} AND embedder IS NULL`, [...this.#params, JSON.stringify(embedder)]);
      const source = encodePgString(doc.source);
      const removed = await client.query(`DELETE FROM ${s}.kb_documents d WHERE ${this.#key('d')} AND source = $3`, [...this.#params, source]);
      const tokens = chunks.map((c) => tokenCount(`${c.heading ?? ''} ${c.content}`));
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO ${s}.kb_documents (project, kb, source, format, content_hash, size_bytes, chars, chunk_count, tokens, added_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
        [...this.#params, source, doc.format, doc.content_hash, doc.size_bytes, doc.chars, chunks.length, tokens.reduce((n, t) => n + t, 0), utcNow()],
      );
      const id = inserted.rows[0]!.id;
      // One statement per batch of chunks: arrays of columns unnested row by row (embeddings as one JSON array).
      for (let at = 0; at < chunks.length; at += 500) {
        const batch = chunks.slice(at, at + 500);
        await client.query(
          `INSERT INTO ${s}.kb_chunks (project, kb, document_id, ordinal, content, heading, page, start_char, end_char, tokens, embedding)
           SELECT $1, $2, $3, u.ordinal, u.content, u.heading, u.page, u.start_char, u.end_char, u.tokens,
                  ARRAY(SELECT jsonb_array_elements_text(u.embedding)::real)
           FROM unnest($4::int[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[], $10::int[], $11::jsonb[])
             AS u(ordinal, content, heading, page, start_char, end_char, tokens, embedding)`,
          [
            ...this.#params,
            id,
            batch.map((c) => c.ordinal),
            batch.map((c) => encodePgString(c.content)),
            batch.map((c) => (c.heading === null ? null : encodePgString(c.heading))),
            batch.map((c) => c.page),
            batch.map((c) => c.start_char),
            batch.map((c) => c.end_char),
            tokens.slice(at, at + 500),
            batch.map((c) => JSON.stringify(Array.from(c.embedding))),
          ],
        );
      }
      return (removed.rowCount ?? 0) > 0;
    });
  }

  async readDocument(source: string): Promise<KbStoredDocument | undefined> {
    const pool = await this.#t.writable();
    // One snapshot: the document and its chunks as one write left them.
    return inPgTransaction(pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const found = await client.query<KbDocumentInput & { id: string; size_bytes: string; chars: string }>(
        `SELECT id, source, format, content_hash, size_bytes, chars FROM ${this.#t.s}.kb_documents d WHERE ${this.#key('d')} AND source = $3`,
        [...this.#params, encodePgString(source)],
      );
      const row = found.rows[0];
      if (!row) return undefined;
      const chunks = await client.query<Omit<KbChunkInput, 'embedding'> & { embedding: number[] | null }>(
        `SELECT ordinal, content, heading, page, start_char, end_char, embedding FROM ${this.#t.s}.kb_chunks c
         WHERE ${this.#key('c')} AND document_id = $3 ORDER BY ordinal`,
        [...this.#params, row.id],
      );
      return {
        doc: { source, format: row.format, content_hash: row.content_hash, size_bytes: Number(row.size_bytes), chars: Number(row.chars) },
        chunks: chunks.rows.map((c) => ({
          ...c,
          content: decodePgString(c.content),
          heading: c.heading === null ? null : decodePgString(c.heading),
          embedding: Float32Array.from(c.embedding ?? []),
        })),
      };
    });
  }

  async deleteSources(source: string, sep: string): Promise<KbCounts> {
    return this.#write(
      async (client) => {
        const full = encodePgString(source);
        const removed = await client.query<{ chunk_count: number }>(
          `DELETE FROM ${this.#t.s}.kb_documents d WHERE ${this.#key('d')} AND (source = $3 OR left(source, length($3) + 1) = $3 || $4) RETURNING chunk_count`,
          [...this.#params, full, sep],
        );
        return { documents: removed.rows.length, chunks: removed.rows.reduce((n, r) => n + r.chunk_count, 0) };
      },
      (counts) => counts.documents > 0,
    );
  }

  async clear(): Promise<KbCounts> {
    return this.#write(async (client) => {
      const removed = await client.query<{ chunk_count: number }>(
        `DELETE FROM ${this.#t.s}.kb_documents d WHERE ${this.#key('d')} RETURNING chunk_count`,
        this.#params,
      );
      await client.query(`UPDATE ${this.#t.s}.kb_bases b SET embedder = NULL WHERE ${this.#key('b')}`, this.#params);
      return { documents: removed.rows.length, chunks: removed.rows.reduce((n, r) => n + r.chunk_count, 0) };
    });
  }

  async counts(): Promise<KbCounts> {
    const pool = await this.#t.writable();
    const result = await pool.query<{ documents: number; chunks: number }>(
      `SELECT (SELECT count(*)::int FROM ${this.#t.s}.kb_documents d WHERE ${this.#key('d')}) AS documents,
              (SELECT count(*)::int FROM ${this.#t.s}.kb_chunks c WHERE ${this.#key('c')}) AS chunks`,
      this.#params,
    );
    return result.rows[0]!;
  }

  async sources(): Promise<KbSourceRow[]> {
    const pool = await this.#t.writable();
    const result = await pool.query<KbSourceRow & { size_bytes: string }>(
      `SELECT source, format, chunk_count AS chunks, size_bytes, ${pgIsoText('added_at')} AS added_at FROM ${this.#t.s}.kb_documents d WHERE ${this.#key('d')}`,
      this.#params,
    );
    return result.rows
      .map((r) => ({ ...r, source: decodePgString(r.source), size_bytes: Number(r.size_bytes) }))
      .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  }

  async keyword(query: string, topK: number): Promise<SearchResult[]> {
    const words = queryWords(query);
    if (words.length === 0) return [];
    const pool = await this.#t.writable();
    // Each word a quoted tsquery term (words hold letters and digits only), OR-ed; the english config stems them.
    const result = await pool.query<HitRow>(keywordSql(this.#t.s), [
      ...this.#params,
      words.map((w) => `'${w}'`).join(' | '),
      topK,
      words,
      Math.max(50, topK * 4),
    ]);
    return result.rows.map(toResult);
  }

  async vector(query: Float32Array, topK: number): Promise<SearchResult[]> {
    const pool = await this.#t.writable();
    const result = await pool.query<HitRow>(
      `SELECT ${COLUMNS}, h.score FROM (
         SELECT c.id, (SELECT sum(a * b) / nullif(sqrt(sum(a * a)) * sqrt(sum(b * b)), 0)
                       FROM unnest(c.embedding::float8[], $3::float8[]) AS v(a, b)) AS score
         FROM ${this.#t.s}.kb_chunks c
         WHERE ${this.#key('c')} AND cardinality(c.embedding) = $4
         ORDER BY score DESC NULLS LAST, c.id LIMIT $5) h
       JOIN ${this.#t.s}.kb_chunks c ON ${this.#key('c')} AND c.id = h.id
       JOIN ${this.#t.s}.kb_documents d ON ${this.#key('d')} AND d.id = c.document_id
       ORDER BY h.score DESC NULLS LAST, c.id`,
      [...this.#params, Array.from(query), query.length, topK],
    );
    return result.rows.map(toResult);
  }

  async sizeBytes(): Promise<number> {
    const pool = await this.#t.writable();
    const result = await pool.query<{ n: string }>(
      `SELECT (SELECT coalesce(sum(pg_column_size(d.*)), 0) FROM ${this.#t.s}.kb_documents d WHERE ${this.#key('d')})
            + (SELECT coalesce(sum(pg_column_size(c.*)), 0) FROM ${this.#t.s}.kb_chunks c WHERE ${this.#key('c')}) AS n`,
      this.#params,
    );
    return Number(result.rows[0]!.n);
  }

  async close(): Promise<void> {}

  async #readMeta(): Promise<KbMeta | undefined> {
    const pool = await this.#t.writable();
    const result = await pool.query<{ chunk_size: number; overlap: number; embedder: string | null; created_at: string; updated_at: string | null }>(
      `SELECT chunk_size, overlap, embedder, ${pgIsoText('created_at')} AS created_at, ${pgIsoText('updated_at')} AS updated_at
       FROM ${this.#t.s}.kb_bases b WHERE ${this.#key('b')}`,
      this.#params,
    );
    const row = result.rows[0];
    if (!row) return undefined;
    return { ...row, embedder: row.embedder === null ? null : (JSON.parse(row.embedder) as EmbedderSpec) };
  }

  /**
   * One write transaction on this base: its `kb_bases` row locked first (writers of one base take turns), then
   * `work`, then `updated_at` set when `changed` says the work changed something.
   */
  async #write<T>(work: (client: pg.PoolClient) => Promise<T>, changed: (result: T) => boolean = () => true): Promise<T> {
    const pool = await this.#t.writable();
    return inPgTransaction(pool, async (client) => {
      const base = await client.query(`SELECT 1 FROM ${this.#t.s}.kb_bases b WHERE ${this.#key('b')} FOR UPDATE`, this.#params);
      if (base.rowCount === 0) throw new NotFoundError('not_found', `knowledge base '${this.#name}' no longer exists in ${this.#catalog.where}`);
      const result = await work(client);
      if (changed(result)) await client.query(`UPDATE ${this.#t.s}.kb_bases b SET updated_at = $3 WHERE ${this.#key('b')}`, [...this.#params, utcNow()]);
      return result;
    });
  }
}

function toResult(row: HitRow): SearchResult {
  return {
    id: Number(row.id),
    content: decodePgString(row.content),
    score: Number(row.score),
    source: decodePgString(row.source),
    heading: row.heading === null ? null : decodePgString(row.heading),
    page: row.page,
    ordinal: row.ordinal,
    start_char: row.start_char,
    end_char: row.end_char,
  };
}
