/**
 * Copy the knowledge bases kept as files beside a local store (`<dir>/kb/<name>/kb.sqlite`) into a Postgres store's
 * knowledge-base tables (`agentkit store copy`, issues 38 and 39): each document with its chunks and vectors as
 * stored, so nothing is re-read from the sources or embedded again.
 *
 * Idempotent: a document the target holds with the same content hash is left as it is; one it holds with another
 * hash is replaced by the file's. A base the target holds with another embedder or other chunk settings is not
 * mixed: it is skipped and named with the reason.
 */
import type { EmbedderSpec } from './embedder.js';
import type { KbCatalog, KbMeta } from './kb-store.js';

export interface KbCopyResult {
  /** Bases read from the files. */
  bases: number;
  /** Documents (and their chunks) the target did not hold as they are in the files. */
  documents: number;
  chunks: number;
  /** Bases left out, with why. */
  skipped: Array<{ base: string; reason: string }>;
}

const sameEmbedder = (a: EmbedderSpec | null, b: EmbedderSpec | null) => a === null || b === null || JSON.stringify(a) === JSON.stringify(b);

/** Why `target` cannot take the documents of `source`, or null. */
function conflict(source: KbMeta, target: KbMeta): string | null {
  if (!sameEmbedder(source.embedder, target.embedder)) {
    return `the target's base was embedded by ${JSON.stringify(target.embedder)}, the file's by ${JSON.stringify(source.embedder)}`;
  }
  if (source.chunk_size !== target.chunk_size || source.overlap !== target.overlap) {
    return `the target's base cuts chunks of ${target.chunk_size} (overlap ${target.overlap}), the file's of ${source.chunk_size} (overlap ${source.overlap})`;
  }
  return null;
}

/** Copy every base of `from` into `to`. Neither catalog is closed. */
export async function copyKnowledgeBases(from: KbCatalog, to: KbCatalog): Promise<KbCopyResult> {
  const result: KbCopyResult = { bases: 0, documents: 0, chunks: 0, skipped: [] };
  for (const name of await from.names()) {
    result.bases++;
    const source = from.open(name);
    const target = to.open(name);
    try {
      const meta = await source.init(false, { chunk_size: 0, overlap: 0 });
      const existing = await target.init(true, { chunk_size: meta.chunk_size, overlap: meta.overlap });
      const why = conflict(meta, existing);
      if (why) {
        result.skipped.push({ base: name, reason: why });
        continue;
      }
      // A base with documents has its embedder recorded (the first write records it), so null means none to copy.
      const embedder = meta.embedder;
      if (embedder === null) continue;
      for (const { source: path } of await source.sources()) {
        const stored = await source.readDocument(path);
        if (!stored) continue; // removed since it was listed
        if ((await target.document(path))?.content_hash === stored.doc.content_hash) continue;
        await target.replaceDocument(stored.doc, stored.chunks, embedder);
        result.documents++;
        result.chunks += stored.chunks.length;
      }
    } finally {
      await source.close();
      await target.close();
    }
  }
  return result;
}
