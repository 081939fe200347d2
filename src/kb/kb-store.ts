/**
 * The owner of the knowledge-base tables (issue 39): every read and write of a base's documents, chunks, vectors and
 * settings goes through a `KbStore`, opened from a `KbCatalog` (the bases of one place). Two implementations: SQLite
 * (each base its own file `<root>/<name>/kb.sqlite`, ./sqlite-kb-store.ts) and Postgres (one table family in the
 * store's schema, keyed by project and base name, ./pg-kb-store.ts). Both pass `kbStoreContract` (./contract.ts).
 *
 * `init` on SQLite answers synchronously (not a Promise), so `new KnowledgeBase(...)` on a file still throws at once
 * for an unknown base or another embedder; on Postgres it answers a Promise and such errors come from the first call.
 */
import type { EmbedderSpec } from './embedder.js';
import type { SearchResult } from './search.js';

/** A base's recorded settings. */
export interface KbMeta {
  created_at: string;
  updated_at: string | null;
  chunk_size: number;
  overlap: number;
  /** Recorded by the first write of chunks; forgotten by `clear`. */
  embedder: EmbedderSpec | null;
}

/** A stored document's identity, to skip an unchanged file. */
export interface KbDocumentRef {
  content_hash: string;
  chunk_count: number;
}

/** A document to write (its chunks replace those of a document with the same source). */
export interface KbDocumentInput {
  /** The source file, absolute. */
  source: string;
  format: string;
  content_hash: string;
  size_bytes: number;
  chars: number;
}

/** One chunk to write, with its unit-length vector. */
export interface KbChunkInput {
  ordinal: number;
  content: string;
  heading: string | null;
  page: number | null;
  start_char: number;
  end_char: number;
  embedding: Float32Array;
}

/** A stored document as `replaceDocument` takes it back. */
export interface KbStoredDocument {
  doc: KbDocumentInput;
  chunks: KbChunkInput[];
}

/** One source in a base. */
export interface KbSourceRow {
  source: string;
  format: string;
  chunks: number;
  size_bytes: number;
  added_at: string;
}

export interface KbCounts {
  documents: number;
  chunks: number;
}

/** One base's tables. Every method is one transaction; writes to one base are serialised across processes. */
export interface KbStore {
  /** Where the base lives: its directory (SQLite) or `<store label> kb <name>` (Postgres). */
  readonly location: string;
  /**
   * Create the base when `create` and absent, recording `defaults` and `created_at` once; answer its settings.
   * Throws NotFoundError naming the bases that exist when it is absent and `create` is false.
   */
  init(create: boolean, defaults: { chunk_size: number; overlap: number }): KbMeta | Promise<KbMeta>;
  /** The settings now recorded (another process may have written). */
  meta(): Promise<KbMeta>;
  /** The stored document of `source`, if any. */
  document(source: string): Promise<KbDocumentRef | undefined>;
  /**
   * Replace the document of `doc.source` by `doc` and `chunks`, recording `embedder` when the base has none yet.
   * Answers whether a document was replaced.
   */
  replaceDocument(doc: KbDocumentInput, chunks: readonly KbChunkInput[], embedder: EmbedderSpec): Promise<boolean>;
  /** The stored document of `source` whole: its row and its chunks in order, with their vectors (to copy a base). */
  readDocument(source: string): Promise<KbStoredDocument | undefined>;
  /** Remove the document of `source` and every document under the directory `source` (+ `sep`); what was removed. */
  deleteSources(source: string, sep: string): Promise<KbCounts>;
  /** Remove every document and chunk and forget the embedder; what was removed. */
  clear(): Promise<KbCounts>;
  counts(): Promise<KbCounts>;
  /** Every source, sorted. */
  sources(): Promise<KbSourceRow[]>;
  /** Keyword hits, best first: every word of `query` OR-ed, stemmed, the heading weighing twice the text. */
  keyword(query: string, topK: number): Promise<SearchResult[]>;
  /** Exact cosine hits for a unit-length `query` vector, best first (vectors of another length never match). */
  vector(query: Float32Array, topK: number): Promise<SearchResult[]>;
  /** Bytes the base takes (the file and its WAL; on Postgres its rows). */
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
}

/** The bases of one place: a root directory of files, or one project of a Postgres store. */
export interface KbCatalog {
  readonly engine: 'sqlite' | 'postgres';
  /** How messages name the place (the root directory, or the store's redacted label). */
  readonly where: string;
  /** The names of the bases, sorted. */
  names(): Promise<string[]>;
  /** The base `name` (checked by the caller); nothing is created before its `init`. */
  open(name: string): KbStore;
  close(): Promise<void>;
}

/** Names of bases: a directory name (letters, digits, `_ . -`, starting with a letter or digit, up to 64). */
export const KB_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
