/**
 * A knowledge base: named, stored under `<root>/<name>/kb.sqlite` (root default `.agentkit/kb/` beside the local
 * store). `add` ingests files and directories; `search` finds chunks by keyword (FTS5/BM25, no key needed), vector or
 * both; `asTool` gives an agent a retrieval tool. Re-adding a changed file replaces its chunks in one transaction; an
 * unchanged one (same SHA-256) is skipped; one bad file is reported and the others are still ingested.
 */
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { agentkitDir, type Where } from '../config/paths.js';
import { ConfigError, NotFoundError } from '../errors.js';
import { utcNow } from '../store/time.js';
import type { Tool } from '../tools/tool.js';
import { chunkText, DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP } from './chunking.js';
import { embedderForNewBase, embedderForRecorded } from './embedder-config.js';
import type { Embedder, EmbedderSpec } from './embedder.js';
import { KbFileError } from './errors.js';
import { extract, isSupported, readSource } from './extract.js';
import { bumpGeneration, getMeta, KB_FILE, openKbStore, setMeta } from './store.js';
import { fuse, keywordSearch, SEARCH_MODES, VectorCache, type SearchMode, type SearchResult } from './search.js';
import { knowledgeBaseTool, type KbToolOptions } from './tool.js';

/** Names of bases: a directory name (letters, digits, `_ . -`, starting with a letter or digit, up to 64). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface KnowledgeBaseOptions extends Where {
  /** Directory holding the bases (default `.agentkit/kb/` beside the local store). */
  root?: string;
  /** Embedder for vectors (default: the recorded one, else the environment's endpoint, else the local hashing one). */
  embedder?: Embedder;
  /** Chunk size in characters of new text (default 1000; recorded when the base is created). */
  chunkSize?: number;
  /** Characters carried over from the previous chunk (default 150; recorded when the base is created). */
  overlap?: number;
  /** Weight of the vector score in hybrid search, 0..1 (default 0.7). */
  alpha?: number;
  /** Create the base when it does not exist (default true; the CLI's read commands pass false). */
  create?: boolean;
}

export interface SearchOptions {
  /** Hits to return (default 4). */
  topK?: number;
  /** Default: `hybrid` with an embeddings endpoint, `keyword` with the local hashing embedder. */
  mode?: SearchMode;
}

/** What happened to one file in `add`. */
export interface FileOutcome {
  source: string;
  status: 'added' | 'updated' | 'unchanged' | 'failed';
  chunks: number;
  /** One line naming the file and the problem, for `failed`. */
  error?: string;
}

export interface AddReport {
  files: FileOutcome[];
  added: number;
  updated: number;
  unchanged: number;
  failed: number;
  /** Chunks written by this call. */
  chunks: number;
  /** Files under the given directories skipped for their type. */
  skipped: number;
}

export interface AddProgress {
  filesDone: number;
  filesTotal: number;
  chunks: number;
  current: string;
}

export interface AddOptions {
  /** Called after each file. */
  onProgress?: (progress: AddProgress) => void;
  signal?: AbortSignal;
}

export interface KbStatus {
  name: string;
  path: string;
  documents: number;
  chunks: number;
  /** Bytes on disk (the store file and its WAL). */
  size_bytes: number;
  search_modes: SearchMode[];
  default_mode: SearchMode;
  embedder: EmbedderSpec | null;
  chunk_size: number;
  overlap: number;
  created_at: string | null;
  updated_at: string | null;
}

/** The default root of knowledge bases: `kb/` in the `.agentkit` directory beside the local store. */
export function defaultKbRoot(where: Where = {}): string {
  return path.join(agentkitDir(where), 'kb');
}

/** Check a base name; throws ConfigError naming it. */
export function checkKbName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ConfigError(`invalid knowledge base name ${JSON.stringify(name)}: use letters, digits and _ . - (starting with a letter or digit, at most 64)`);
  }
}

export class KnowledgeBase {
  readonly name: string;
  /** The base's directory. */
  readonly dir: string;
  private readonly db: Database.Database;
  private readonly env: Record<string, string | undefined>;
  private readonly cwd: string;
  private readonly alpha: number;
  private readonly given: Embedder | undefined;
  private embedderCache: Embedder | undefined;
  private readonly vectors = new VectorCache();

  /**
   * Open the base `name`, creating it unless `create: false` (then NotFoundError names the bases that exist).
   * Throws ConfigError for a bad name, or an embedder other than the one the base was built with.
   */
  constructor(name: string, options: KnowledgeBaseOptions = {}) {
    checkKbName(name);
    this.name = name;
    this.env = options.env ?? process.env;
    this.cwd = options.cwd ?? process.cwd();
    const root = options.root ? path.resolve(this.cwd, options.root) : defaultKbRoot({ env: this.env, cwd: this.cwd });
    this.dir = path.join(root, name);
    const create = options.create ?? true;
    if (!create && !existsSync(path.join(this.dir, KB_FILE))) {
      const known = listBaseNames(root);
      throw new NotFoundError('not_found', `knowledge base '${name}' not found in ${root} (bases: ${known.join(', ') || 'none'})`);
    }
    this.alpha = options.alpha ?? 0.7;
    if (!(this.alpha >= 0 && this.alpha <= 1)) throw new ConfigError(`alpha must be from 0 to 1, got ${this.alpha}`);
    this.given = options.embedder;
    this.db = openKbStore(this.dir, create);
    try {
      this.db
        .transaction(() => {
          if (getMeta(this.db, 'created_at') === undefined) {
            const size = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
            const overlap = options.overlap ?? DEFAULT_OVERLAP;
            try {
              chunkText('', undefined, { chunkSize: size, overlap });
            } catch (error) {
              throw new ConfigError(`knowledge base '${name}': ${(error as Error).message}`);
            }
            setMeta(this.db, 'created_at', utcNow());
            setMeta(this.db, 'chunk_size', String(size));
            setMeta(this.db, 'overlap', String(overlap));
          }
        })
        .immediate();
      const recorded = this.recordedEmbedder();
      if (recorded) this.embedderCache = embedderForRecorded(name, recorded, this.env, this.given);
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** The embedder in use (the recorded one, or the one the next `add` records). */
  get embedder(): Embedder {
    this.embedderCache ??= embedderForNewBase(this.env, this.given);
    return this.embedderCache;
  }

  /** The mode `search` uses when none is given. */
  get defaultMode(): SearchMode {
    return this.embedder.spec.kind === 'hashing' ? 'keyword' : 'hybrid';
  }

  /**
   * Ingest files and directories (recursively: `.txt`, `.md`, `.markdown`, `.pdf`; hidden entries and
   * `node_modules` are skipped). Each file is one transaction. A file that fails (missing, unreadable, unsupported
   * when named directly, not UTF-8, a corrupt PDF) is reported in the result and the rest are still ingested.
   */
  async add(paths: string | readonly string[], options: AddOptions = {}): Promise<AddReport> {
    const { files, skipped, missing } = await this.expand(typeof paths === 'string' ? [paths] : paths);
    const report: AddReport = { files: [], added: 0, updated: 0, unchanged: 0, failed: 0, chunks: 0, skipped };
    for (const failure of missing) this.record(report, failure);
    for (const [index, file] of files.entries()) {
      options.signal?.throwIfAborted();
      this.record(report, await this.ingest(file, options.signal));
      options.onProgress?.({ filesDone: index + 1, filesTotal: files.length, chunks: report.chunks, current: file });
    }
    return report;
  }

  /**
   * Remove a source file (or every source under a directory) and its chunks. Returns the chunks removed. Throws
   * NotFoundError when the base holds no such source.
   */
  async delete(source: string): Promise<{ documents: number; chunks: number }> {
    const full = path.resolve(this.cwd, source);
    return this.db
      .transaction(() => {
        const docs = this.db
          .prepare('SELECT id, chunk_count FROM documents WHERE source = ? OR substr(source, 1, length(?) + 1) = ? || ?')
          .all(full, full, full, path.sep) as Array<{ id: number; chunk_count: number }>;
        if (docs.length === 0) throw new NotFoundError('not_found', `${source} is not in knowledge base '${this.name}'`);
        for (const doc of docs) this.removeDocument(doc.id);
        bumpGeneration(this.db);
        setMeta(this.db, 'updated_at', utcNow());
        return { documents: docs.length, chunks: docs.reduce((n, d) => n + d.chunk_count, 0) };
      })
      .immediate();
  }

  /** Remove every document and chunk, and forget the embedder (the next `add` may use another). */
  async clear(): Promise<{ documents: number; chunks: number }> {
    const result = this.db
      .transaction(() => {
        const counts = this.counts();
        this.db.exec(
          "DELETE FROM chunks; DELETE FROM documents; INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild'); DELETE FROM kb_meta WHERE key = 'embedder';",
        );
        bumpGeneration(this.db);
        setMeta(this.db, 'updated_at', utcNow());
        return counts;
      })
      .immediate();
    this.embedderCache = this.given;
    this.vectors.reset();
    return result;
  }

  /** The best `topK` chunks for `query`, with scores and sources. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
    const topK = options.topK ?? 4;
    if (!(Number.isInteger(topK) && topK >= 1 && topK <= 1000)) throw new ConfigError(`topK must be a whole number from 1 to 1000, got ${topK}`);
    const mode = options.mode ?? this.defaultMode;
    if (!SEARCH_MODES.includes(mode)) throw new ConfigError(`unknown search mode '${String(mode)}' (modes: ${SEARCH_MODES.join(', ')})`);
    if (typeof query !== 'string' || query.trim() === '') throw new ConfigError('the search query is empty');
    if (mode === 'keyword') return keywordSearch(this.db, query, topK);
    const [vector] = await this.embedder.embed([query]);
    const vectorHits = this.vectors.search(this.db, vector!, mode === 'vector' ? topK : topK * 3);
    if (mode === 'vector') return vectorHits;
    return fuse(keywordSearch(this.db, query, topK * 3), vectorHits, this.alpha, topK);
  }

  /** Counts, size, modes and embedder of the base. */
  async status(): Promise<KbStatus> {
    const { documents, chunks } = this.counts();
    const file = path.join(this.dir, KB_FILE);
    const size = [file, `${file}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
    return {
      name: this.name,
      path: this.dir,
      documents,
      chunks,
      size_bytes: size,
      search_modes: [...SEARCH_MODES],
      default_mode: this.defaultMode,
      embedder: this.recordedEmbedder() ?? null,
      chunk_size: Number(getMeta(this.db, 'chunk_size')),
      overlap: Number(getMeta(this.db, 'overlap')),
      created_at: getMeta(this.db, 'created_at') ?? null,
      updated_at: getMeta(this.db, 'updated_at') ?? null,
    };
  }

  /** Every source in the base with its chunk count, sorted. */
  async sources(): Promise<Array<{ source: string; format: string; chunks: number; size_bytes: number; added_at: string }>> {
    return this.db.prepare('SELECT source, format, chunk_count AS chunks, size_bytes, added_at FROM documents ORDER BY source').all() as Array<{
      source: string;
      format: string;
      chunks: number;
      size_bytes: number;
      added_at: string;
    }>;
  }

  /**
   * A retrieval tool for an agent (`search_<name>` unless named): the model passes `query` (and optionally
   * `top_k`); the result lists the chunks with source, heading and score; a `retrieval.<name>` span records the
   * query and the chunk ids.
   */
  asTool(options: KbToolOptions = {}): Tool {
    return knowledgeBaseTool(this, options);
  }

  /** Close the store. */
  close(): void {
    if (this.db.open) this.db.close();
  }

  private counts(): { documents: number; chunks: number } {
    const documents = (this.db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
    const chunks = (this.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    return { documents, chunks };
  }

  private recordedEmbedder(): EmbedderSpec | undefined {
    const text = getMeta(this.db, 'embedder');
    return text === undefined ? undefined : (JSON.parse(text) as EmbedderSpec);
  }

  private record(report: AddReport, outcome: FileOutcome): void {
    report.files.push(outcome);
    report[outcome.status] += 1;
    if (outcome.status === 'added' || outcome.status === 'updated') report.chunks += outcome.chunks;
  }

  /** The files to ingest, in order; files named directly are kept even when unsupported (to report them). */
  private async expand(paths: readonly string[]): Promise<{ files: string[]; skipped: number; missing: FileOutcome[] }> {
    const files: string[] = [];
    const missing: FileOutcome[] = [];
    let skipped = 0;
    const walk = async (dir: string): Promise<void> => {
      const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && isSupported(entry.name)) files.push(full);
        else if (entry.isFile()) skipped++;
      }
    };
    for (const given of paths) {
      const full = path.resolve(this.cwd, given);
      let info;
      try {
        info = await stat(full);
      } catch {
        missing.push({ source: full, status: 'failed', chunks: 0, error: `${given}: no such file or directory` });
        continue;
      }
      if (info.isDirectory()) await walk(full);
      else files.push(full);
    }
    return { files: [...new Set(files)], skipped, missing };
  }

  private async ingest(file: string, signal?: AbortSignal): Promise<FileOutcome> {
    const shown = path.relative(this.cwd, file).startsWith('..') ? file : path.relative(this.cwd, file);
    try {
      const bytes = await readSource(file, shown);
      const hash = createHash('sha256').update(bytes).digest('hex');
      const existing = this.db.prepare('SELECT id, content_hash, chunk_count FROM documents WHERE source = ?').get(file) as
        | { id: number; content_hash: string; chunk_count: number }
        | undefined;
      if (existing?.content_hash === hash) return { source: file, status: 'unchanged', chunks: existing.chunk_count };
      const extracted = await extract(file, bytes, shown);
      const chunks = chunkText(extracted.text, extracted.sections, {
        chunkSize: Number(getMeta(this.db, 'chunk_size')),
        overlap: Number(getMeta(this.db, 'overlap')),
      });
      const embedder = this.embedder;
      const vectors =
        chunks.length > 0
          ? await embedder.embed(
              chunks.map((c) => (c.heading ? `${c.heading}\n${c.content}` : c.content)),
              signal,
            )
          : [];
      this.db
        .transaction(() => {
          const recorded = this.recordedEmbedder();
          if (!recorded) setMeta(this.db, 'embedder', JSON.stringify(embedder.spec));
          const current = this.db.prepare('SELECT id FROM documents WHERE source = ?').get(file) as { id: number } | undefined;
          if (current) this.removeDocument(current.id);
          const doc = this.db
            .prepare('INSERT INTO documents (source, format, content_hash, size_bytes, chars, chunk_count, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
            .run(file, extracted.format, hash, bytes.length, extracted.text.length, chunks.length, utcNow());
          const insert = this.db.prepare(
            'INSERT INTO chunks (document_id, ordinal, content, heading, page, start_char, end_char, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          );
          chunks.forEach((c, i) => {
            const v = vectors[i]!;
            insert.run(doc.lastInsertRowid, c.ordinal, c.content, c.heading, c.page, c.start, c.end, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
          });
          bumpGeneration(this.db);
          setMeta(this.db, 'updated_at', utcNow());
        })
        .immediate();
      return { source: file, status: existing ? 'updated' : 'added', chunks: chunks.length };
    } catch (error) {
      if (signal?.aborted) throw error;
      const message = error instanceof KbFileError ? error.message : `${shown}: ${error instanceof Error ? error.message : String(error)}`;
      return { source: file, status: 'failed', chunks: 0, error: message };
    }
  }

  private removeDocument(id: number): void {
    // Explicitly, so the FTS delete trigger runs for every chunk whatever the foreign-key settings.
    this.db.prepare('DELETE FROM chunks WHERE document_id = ?').run(id);
    this.db.prepare('DELETE FROM documents WHERE id = ?').run(id);
  }
}

/** The names of the bases under `root` (directories holding a kb.sqlite), sorted. */
export function listBaseNames(root: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  return entries.filter((name) => NAME.test(name) && existsSync(path.join(root, name, KB_FILE))).sort();
}
