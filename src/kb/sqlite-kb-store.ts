/**
 * Knowledge bases as files: each base is `<root>/<name>/kb.sqlite` (./store.ts holds its schema ladder, ./search.ts
 * its FTS5 and vector search). Synchronous underneath; `init` answers at once so file errors surface at construction.
 */
import type Database from 'better-sqlite3';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { NotFoundError } from '../errors.js';
import { utcNow } from '../store/time.js';
import type { EmbedderSpec } from './embedder.js';
import {
  KB_NAME,
  type KbCatalog,
  type KbChunkInput,
  type KbCounts,
  type KbDocumentInput,
  type KbDocumentRef,
  type KbMeta,
  type KbSourceRow,
  type KbStore,
  type KbStoredDocument,
} from './kb-store.js';
import { keywordSearch, VectorCache, type SearchResult } from './search.js';
import { bumpGeneration, getMeta, KB_FILE, openKbStore, setMeta } from './store.js';

/** The names of the bases under `root` (directories holding a kb.sqlite), sorted. */
export function listBaseNames(root: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  return entries.filter((name) => KB_NAME.test(name) && existsSync(path.join(root, name, KB_FILE))).sort();
}

/** The bases under one root directory. Closing it closes every base opened from it. */
export class SqliteKbCatalog implements KbCatalog {
  readonly engine = 'sqlite' as const;
  readonly #opened = new Set<SqliteKbStore>();
  constructor(readonly where: string) {}

  async names(): Promise<string[]> {
    return listBaseNames(this.where);
  }

  open(name: string): SqliteKbStore {
    const store = new SqliteKbStore(this.where, name);
    this.#opened.add(store);
    return store;
  }

  async close(): Promise<void> {
    for (const store of this.#opened) await store.close();
    this.#opened.clear();
  }
}

export class SqliteKbStore implements KbStore {
  readonly location: string;
  #db: Database.Database | undefined;
  readonly #vectors = new VectorCache();

  constructor(
    readonly root: string,
    readonly name: string,
  ) {
    this.location = path.join(root, name);
  }

  init(create: boolean, defaults: { chunk_size: number; overlap: number }): KbMeta {
    if (!create && !existsSync(path.join(this.location, KB_FILE))) {
      const known = listBaseNames(this.root);
      throw new NotFoundError('not_found', `knowledge base '${this.name}' not found in ${this.root} (bases: ${known.join(', ') || 'none'})`);
    }
    const db = openKbStore(this.location, create);
    this.#db = db;
    db.transaction(() => {
      if (getMeta(db, 'created_at') !== undefined) return;
      setMeta(db, 'created_at', utcNow());
      setMeta(db, 'chunk_size', String(defaults.chunk_size));
      setMeta(db, 'overlap', String(defaults.overlap));
    }).immediate();
    return this.#meta();
  }

  async meta(): Promise<KbMeta> {
    return this.#meta();
  }

  async document(source: string): Promise<KbDocumentRef | undefined> {
    return this.#open().prepare('SELECT content_hash, chunk_count FROM documents WHERE source = ?').get(source) as KbDocumentRef | undefined;
  }

  async replaceDocument(doc: KbDocumentInput, chunks: readonly KbChunkInput[], embedder: EmbedderSpec): Promise<boolean> {
    const db = this.#open();
    return db
      .transaction(() => {
        if (getMeta(db, 'embedder') === undefined) setMeta(db, 'embedder', JSON.stringify(embedder));
        const current = db.prepare('SELECT id FROM documents WHERE source = ?').get(doc.source) as { id: number } | undefined;
        if (current) this.#removeDocument(current.id);
        const inserted = db
          .prepare('INSERT INTO documents (source, format, content_hash, size_bytes, chars, chunk_count, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(doc.source, doc.format, doc.content_hash, doc.size_bytes, doc.chars, chunks.length, utcNow());
        const insert = db.prepare(
          'INSERT INTO chunks (document_id, ordinal, content, heading, page, start_char, end_char, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        );
        for (const c of chunks) {
          const v = c.embedding;
          insert.run(
            inserted.lastInsertRowid,
            c.ordinal,
            c.content,
            c.heading,
            c.page,
            c.start_char,
            c.end_char,
            Buffer.from(v.buffer, v.byteOffset, v.byteLength),
          );
        }
        this.#touched();
        return current !== undefined;
      })
      .immediate();
  }

  async readDocument(source: string): Promise<KbStoredDocument | undefined> {
    const db = this.#open();
    return db.transaction(() => {
      const row = db.prepare('SELECT id, source, format, content_hash, size_bytes, chars FROM documents WHERE source = ?').get(source) as
        | (KbDocumentInput & { id: number })
        | undefined;
      if (!row) return undefined;
      const { id, ...doc } = row;
      const chunks = db
        .prepare('SELECT ordinal, content, heading, page, start_char, end_char, embedding FROM chunks WHERE document_id = ? ORDER BY ordinal')
        .all(id) as Array<Omit<KbChunkInput, 'embedding'> & { embedding: Buffer | null }>;
      // A copy of each blob: a Float32Array needs 4-byte alignment, which a Buffer slice does not promise.
      return {
        doc,
        chunks: chunks.map((c) => ({ ...c, embedding: c.embedding ? new Float32Array(new Uint8Array(c.embedding).buffer) : new Float32Array(0) })),
      };
    })();
  }

  async deleteSources(source: string, sep: string): Promise<KbCounts> {
    const db = this.#open();
    return db
      .transaction(() => {
        const docs = db
          .prepare('SELECT id, chunk_count FROM documents WHERE source = ? OR substr(source, 1, length(?) + 1) = ? || ?')
          .all(source, source, source, sep) as Array<{ id: number; chunk_count: number }>;
        if (docs.length === 0) return { documents: 0, chunks: 0 };
        for (const doc of docs) this.#removeDocument(doc.id);
        this.#touched();
        return { documents: docs.length, chunks: docs.reduce((n, d) => n + d.chunk_count, 0) };
      })
      .immediate();
  }

  async clear(): Promise<KbCounts> {
    const db = this.#open();
    const removed = db
      .transaction(() => {
        const counts = this.#counts();
        db.exec(
          "DELETE FROM chunks; DELETE FROM documents; INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild'); DELETE FROM kb_meta WHERE key = 'embedder';",
        );
        this.#touched();
        return counts;
      })
      .immediate();
    this.#vectors.reset();
    return removed;
  }

  async counts(): Promise<KbCounts> {
    return this.#counts();
  }

  async sources(): Promise<KbSourceRow[]> {
    return this.#open().prepare('SELECT source, format, chunk_count AS chunks, size_bytes, added_at FROM documents ORDER BY source').all() as KbSourceRow[];
  }

  async keyword(query: string, topK: number): Promise<SearchResult[]> {
    return keywordSearch(this.#open(), query, topK);
  }

  async vector(query: Float32Array, topK: number): Promise<SearchResult[]> {
    return this.#vectors.search(this.#open(), query, topK);
  }

  async sizeBytes(): Promise<number> {
    const file = path.join(this.location, KB_FILE);
    return [file, `${file}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
  }

  async close(): Promise<void> {
    if (this.#db?.open) this.#db.close();
  }

  #open(): Database.Database {
    if (!this.#db?.open) throw new Error(`knowledge base '${this.name}' is not open`);
    return this.#db;
  }

  #meta(): KbMeta {
    const db = this.#open();
    const embedder = getMeta(db, 'embedder');
    return {
      created_at: getMeta(db, 'created_at')!,
      updated_at: getMeta(db, 'updated_at') ?? null,
      chunk_size: Number(getMeta(db, 'chunk_size')),
      overlap: Number(getMeta(db, 'overlap')),
      embedder: embedder === undefined ? null : (JSON.parse(embedder) as EmbedderSpec),
    };
  }

  #counts(): KbCounts {
    const db = this.#open();
    const documents = (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
    const chunks = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    return { documents, chunks };
  }

  /** Inside every write transaction: cached vectors know they are stale, and the base its last change. */
  #touched(): void {
    bumpGeneration(this.#open());
    setMeta(this.#open(), 'updated_at', utcNow());
  }

  #removeDocument(id: number): void {
    // Explicitly, so the FTS delete trigger runs for every chunk whatever the foreign-key settings.
    this.#open().prepare('DELETE FROM chunks WHERE document_id = ?').run(id);
    this.#open().prepare('DELETE FROM documents WHERE id = ?').run(id);
  }
}
