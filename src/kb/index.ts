/** Knowledge bases: ingest files, search them by keyword, vector or both, and give an agent a retrieval tool. */
export {
  KnowledgeBase,
  checkKbName,
  defaultKbRoot,
  kbCatalogOf,
  listBaseNames,
  type AddOptions,
  type AddProgress,
  type AddReport,
  type FileOutcome,
  type KbStatus,
  type KnowledgeBaseOptions,
  type SearchOptions,
} from './knowledge-base.js';
export { listKnowledgeBases } from './list.js';
export { chunkText, markdownSections, DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, type Chunk, type ChunkingOptions, type Section } from './chunking.js';
export { HashingEmbedder, describeEmbedder, type Embedder, type EmbedderSpec } from './embedder.js';
export { OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai-embedder.js';
export { SEARCH_MODES, ftsQuery, queryWords, type SearchMode, type SearchResult } from './search.js';
export { SUPPORTED_EXTENSIONS } from './extract.js';
export { KbFileError } from './errors.js';
export { RETRIEVAL_ATTR, type KbToolOptions } from './tool.js';
export type { KbCatalog, KbStore, KbMeta, KbCounts, KbChunkInput, KbDocumentInput, KbDocumentRef, KbSourceRow } from './kb-store.js';
