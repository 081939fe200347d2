/**
 * A knowledge base: named, stored on the store (issue 39). On a SQLite store each base is its own file
 * `<root>/<name>/kb.sqlite` (root default `.agentkit/kb/` beside the local store, or `root`); on a Postgres store
 * (`dbPath` or `AGENTKIT_LOCAL_DB` a `postgres://` URL) its rows are in the store's knowledge-base tables, shared by
 * every process on that store. `add` ingests files and directories; `search` finds chunks by keyword (no key needed),
 * vector or both; `asTool` gives an agent a retrieval tool. Re-adding a changed file replaces its chunks in one
 * transaction; an unchanged one (same SHA-256) is skipped; one bad file is reported and the others are still ingested.
 * Every read and write goes through the base's KbStore (./kb-store.ts).
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { agentkitDir, localStore, type Where } from '../config/paths.js';
import { parseStoreValue } from '../config/store-value.js';
import { ConfigError, NotFoundError } from '../errors.js';
import { openStore, type Store } from '../store/store-handle.js';
import type { Tool } from '../tools/tool.js';
import { chunkText, DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP } from './chunking.js';
import { embedderForNewBase, embedderForRecorded } from './embedder-config.js';
import type { Embedder, EmbedderSpec } from './embedder.js';
import { KbFileError } from './errors.js';
import { extract, isSupported, readSource } from './extract.js';
import { KB_NAME, type KbCatalog, type KbMeta, type KbStore } from './kb-store.js';
import { PgKbCatalog } from './pg-kb-store.js';
import { fuse, SEARCH_MODES, type SearchMode, type SearchResult } from './search.js';
import { listBaseNames, SqliteKbCatalog } from './sqlite-kb-store.js';
import { knowledgeBaseTool, type KbToolOptions } from './tool.js';

export { listBaseNames };

export interface KnowledgeBaseOptions extends Where {
  /** Directory holding the bases as files (default `.agentkit/kb/` beside the local store). Not with a Postgres store. */
  root?: string;
  /**
   * The store: a file (bases under `kb/` beside it) or a `postgres://...?schema=<name>` URL (bases in its tables).
   * Default `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`.
   */
  dbPath?: string;
  /** A store handle from `openStore` (takes precedence over `dbPath`); it stays open when the base closes. */
  store?: Store;
  /** On a Postgres store, the project the base belongs to (default '': a store of one project). */
  project?: string;
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
  /** The base's directory, or on Postgres `<store> kb <name>`. */
  path: string;
  documents: number;
  chunks: number;
  /** Bytes on disk (the store file and its WAL; on Postgres, its rows). */
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

/**
 * The bases of the place `options` name: a Postgres store's (its project's) when the store is a URL, else the files
 * under `root` (default `kb/` beside the local store). Throws ConfigError for `root` with a Postgres store. Close it.
 */
export function kbCatalogOf(options: Pick<KnowledgeBaseOptions, 'root' | 'dbPath' | 'store' | 'project' | 'env' | 'cwd'> = {}): KbCatalog {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const ref = options.store?.ref ?? (options.dbPath !== undefined ? parseStoreValue(options.dbPath, cwd) : localStore({ env, cwd }));
  if (ref.engine === 'postgres') {
    if (options.root !== undefined)
      throw new ConfigError(`a knowledge base root directory cannot be used with the Postgres store ${openStore(ref).label}: its bases are in the store`);
    return new PgKbCatalog(openStore(ref), options.project ?? '');
  }
  if (options.root !== undefined) return new SqliteKbCatalog(path.resolve(cwd, options.root));
  return new SqliteKbCatalog(options.dbPath !== undefined || options.store ? path.join(path.dirname(ref.path), 'kb') : defaultKbRoot({ env, cwd }));
}

/** Check a base name; throws ConfigError naming it. */
export function checkKbName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !KB_NAME.test(name)) {
    throw new ConfigError(`invalid knowledge base name ${JSON.stringify(name)}: use letters, digits and _ . - (starting with a letter or digit, at most 64)`);
  }
}

export class KnowledgeBase {
  readonly name: string;
  /** The base's directory (a file store), or `<store> kb <name>` (Postgres). */
  readonly dir: string;
  readonly #catalog: KbCatalog;
  readonly #store: KbStore;
  readonly #ready: Promise<void>;
  readonly #env: Record<string, string | undefined>;
  readonly #cwd: string;
  readonly #alpha: number;
  readonly #given: Embedder | undefined;
  #meta: KbMeta | undefined;
  #embedder: Embedder | undefined;

  /**
   * Open the base `name`, creating it unless `create: false` (then NotFoundError names the bases that exist).
   * Throws ConfigError for a bad name or option, or an embedder other than the one the base was built with. On a
   * SQLite store these are thrown here; on Postgres (opened asynchronously) by the first call (`ready()`).
   */
  constructor(name: string, options: KnowledgeBaseOptions = {}) {
    checkKbName(name);
    this.name = name;
    this.#env = options.env ?? process.env;
    this.#cwd = options.cwd ?? process.cwd();
    this.#alpha = options.alpha ?? 0.7;
    if (!(this.#alpha >= 0 && this.#alpha <= 1)) throw new ConfigError(`alpha must be from 0 to 1, got ${this.#alpha}`);
    this.#given = options.embedder;
    const defaults = { chunk_size: options.chunkSize ?? DEFAULT_CHUNK_SIZE, overlap: options.overlap ?? DEFAULT_OVERLAP };
    try {
      chunkText('', undefined, { chunkSize: defaults.chunk_size, overlap: defaults.overlap });
    } catch (error) {
      throw new ConfigError(`knowledge base '${name}': ${(error as Error).message}`);
    }
    this.#catalog = kbCatalogOf({ ...options, env: this.#env, cwd: this.#cwd });
    this.#store = this.#catalog.open(name);
    this.dir = this.#store.location;
    try {
      const opened = this.#store.init(options.create ?? true, defaults);
      if (opened instanceof Promise) {
        this.#ready = opened.then((meta) => this.#opened(meta));
        // Rejections reach whoever awaits the base; a base closed unused must not raise an unhandled rejection.
        this.#ready.catch(() => undefined);
      } else {
        this.#opened(opened);
        this.#ready = Promise.resolve();
      }
    } catch (error) {
      void this.close().catch(() => undefined);
      throw error;
    }
  }

  /** Resolves when the base is open; rejects with what opening it threw (an unknown base, another embedder). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** The embedder in use (the recorded one, or the one the next `add` records). */
  get embedder(): Embedder {
    this.#embedder ??= embedderForNewBase(this.#env, this.#given);
    return this.#embedder;
  }

  /** The mode `search` uses when none is given (on Postgres, read it after `ready()`). */
  get defaultMode(): SearchMode {
    return this.embedder.spec.kind === 'hashing' ? 'keyword' : 'hybrid';
  }

  /**
   * Ingest files and directories (recursively: `.txt`, `.md`, `.markdown`, `.pdf`; hidden entries and
   * `node_modules` are skipped). Each file is one transaction. A file that fails (missing, unreadable, unsupported
   * when named directly, not UTF-8, a corrupt PDF) is reported in the result and the rest are still ingested.
   */
  async add(paths: string | readonly string[], options: AddOptions = {}): Promise<AddReport> {
    await this.#ready;
    const { files, skipped, missing } = await this.#expand(typeof paths === 'string' ? [paths] : paths);
    const report: AddReport = { files: [], added: 0, updated: 0, unchanged: 0, failed: 0, chunks: 0, skipped };
    for (const failure of missing) this.#record(report, failure);
    for (const [index, file] of files.entries()) {
      options.signal?.throwIfAborted();
      this.#record(report, await this.#ingest(file, options.signal));
      options.onProgress?.({ filesDone: index + 1, filesTotal: files.length, chunks: report.chunks, current: file });
    }
    return report;
  }

  /**
   * Remove a source file (or every source under a directory) and its chunks. Returns the chunks removed. Throws
   * NotFoundError when the base holds no such source.
   */
  async delete(source: string): Promise<{ documents: number; chunks: number }> {
    await this.#ready;
    const removed = await this.#store.deleteSources(path.resolve(this.#cwd, source), path.sep);
    if (removed.documents === 0) throw new NotFoundError('not_found', `${source} is not in knowledge base '${this.name}'`);
    return removed;
  }

  /** Remove every document and chunk, and forget the embedder (the next `add` may use another). */
  async clear(): Promise<{ documents: number; chunks: number }> {
    await this.#ready;
    const removed = await this.#store.clear();
    this.#embedder = this.#given;
    return removed;
  }

  /** The best `topK` chunks for `query`, with scores and sources. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
    await this.#ready;
    const topK = options.topK ?? 4;
    if (!(Number.isInteger(topK) && topK >= 1 && topK <= 1000)) throw new ConfigError(`topK must be a whole number from 1 to 1000, got ${topK}`);
    const mode = options.mode ?? this.defaultMode;
    if (!SEARCH_MODES.includes(mode)) throw new ConfigError(`unknown search mode '${String(mode)}' (modes: ${SEARCH_MODES.join(', ')})`);
    if (typeof query !== 'string' || query.trim() === '') throw new ConfigError('the search query is empty');
    if (mode === 'keyword') return this.#store.keyword(query, topK);
    const [vector] = await this.embedder.embed([query]);
    const vectorHits = await this.#store.vector(vector!, mode === 'vector' ? topK : topK * 3);
    if (mode === 'vector') return vectorHits;
    return fuse(await this.#store.keyword(query, topK * 3), vectorHits, this.#alpha, topK);
  }

  /** Counts, size, modes and embedder of the base. */
  async status(): Promise<KbStatus> {
    await this.#ready;
    const { documents, chunks } = await this.#store.counts();
    const meta = await this.#store.meta();
    return {
      name: this.name,
      path: this.dir,
      documents,
      chunks,
      size_bytes: await this.#store.sizeBytes(),
      search_modes: [...SEARCH_MODES],
      default_mode: this.defaultMode,
      embedder: meta.embedder,
      chunk_size: meta.chunk_size,
      overlap: meta.overlap,
      created_at: meta.created_at,
      updated_at: meta.updated_at,
    };
  }

  /** Every source in the base with its chunk count, sorted. */
  async sources(): Promise<Array<{ source: string; format: string; chunks: number; size_bytes: number; added_at: string }>> {
    await this.#ready;
    return this.#store.sources();
  }

  /**
   * A retrieval tool for an agent (`search_<name>` unless named): the model passes `query` (and optionally
   * `top_k`); the result lists the chunks with source, heading and score; a `retrieval.<name>` span records the
   * query and the chunk ids.
   */
  asTool(options: KbToolOptions = {}): Tool {
    return knowledgeBaseTool(this, options);
  }

  /** Close the base (a SQLite file, or this base's hold on the Postgres pool). */
  async close(): Promise<void> {
    await this.#store.close();
    await this.#catalog.close();
  }

  #opened(meta: KbMeta): void {
    this.#meta = meta;
    if (meta.embedder) this.#embedder = embedderForRecorded(this.name, meta.embedder, this.#env, this.#given);
  }

  #record(report: AddReport, outcome: FileOutcome): void {
    report.files.push(outcome);
    report[outcome.status] += 1;
    if (outcome.status === 'added' || outcome.status === 'updated') report.chunks += outcome.chunks;
  }

  /** The files to ingest, in order; files named directly are kept even when unsupported (to report them). */
  async #expand(paths: readonly string[]): Promise<{ files: string[]; skipped: number; missing: FileOutcome[] }> {
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
      const full = path.resolve(this.#cwd, given);
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

  async #ingest(file: string, signal?: AbortSignal): Promise<FileOutcome> {
    const shown = path.relative(this.#cwd, file).startsWith('..') ? file : path.relative(this.#cwd, file);
    try {
      const bytes = await readSource(file, shown);
      const hash = createHash('sha256').update(bytes).digest('hex');
      const existing = await this.#store.document(file);
      if (existing?.content_hash === hash) return { source: file, status: 'unchanged', chunks: existing.chunk_count };
      const extracted = await extract(file, bytes, shown);
      const chunks = chunkText(extracted.text, extracted.sections, { chunkSize: this.#meta!.chunk_size, overlap: this.#meta!.overlap });
      const embedder = this.embedder;
      const vectors =
        chunks.length > 0
          ? await embedder.embed(
              chunks.map((c) => (c.heading ? `${c.heading}\n${c.content}` : c.content)),
              signal,
            )
          : [];
      const replaced = await this.#store.replaceDocument(
        { source: file, format: extracted.format, content_hash: hash, size_bytes: bytes.length, chars: extracted.text.length },
        chunks.map((c, i) => ({
          ordinal: c.ordinal,
          content: c.content,
          heading: c.heading,
          page: c.page,
          start_char: c.start,
          end_char: c.end,
          embedding: vectors[i]!,
        })),
        embedder.spec,
      );
      return { source: file, status: replaced ? 'updated' : 'added', chunks: chunks.length };
    } catch (error) {
      if (signal?.aborted) throw error;
      const message = error instanceof KbFileError ? error.message : `${shown}: ${error instanceof Error ? error.message : String(error)}`;
      return { source: file, status: 'failed', chunks: 0, error: message };
    }
  }
}
