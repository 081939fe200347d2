/**
 * Embedders turn texts into vectors for vector and hybrid search. The built-in `HashingEmbedder` is deterministic and
 * local (no model, no key, no network): word and word-pair features hashed into a fixed number of dimensions. It finds
 * chunks that share words with the query, which keyword search already does, so a knowledge base using it defaults
 * to keyword search; a real model (see OpenAIEmbedder) is what makes vector search semantic.
 */

/** The recorded identity of an embedder: a knowledge base refuses to mix vectors of two embedders. */
export interface EmbedderSpec {
  /** `hashing` or `openai` (an OpenAI-compatible `/embeddings` endpoint). */
  kind: string;
  model: string;
  dimensions: number;
  /** The endpoint's base URL, for `openai` (never a key). */
  base_url?: string;
}

export interface Embedder {
  readonly spec: EmbedderSpec;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Deterministic local embedder: signed feature hashing of lower-cased words and adjacent word pairs, L2-normalised. */
export class HashingEmbedder implements Embedder {
  readonly spec: EmbedderSpec;

  constructor(dimensions = 256) {
    if (!(Number.isInteger(dimensions) && dimensions >= 8 && dimensions <= 4096))
      throw new RangeError(`dimensions must be a whole number from 8 to 4096, got ${dimensions}`);
    this.spec = { kind: 'hashing', model: 'fnv1a-words-bigrams', dimensions };
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** The vector of one text (synchronous; `embed` wraps it). */
  embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.spec.dimensions);
    const words = text.toLowerCase().match(WORD) ?? [];
    for (let i = 0; i < words.length; i++) {
      add(vector, words[i]!, 1);
      if (i > 0) add(vector, `${words[i - 1]} ${words[i]}`, 0.5);
    }
    return normalise(vector);
  }
}

function add(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const index = hash % vector.length;
  vector[index]! += (hash & 0x80000000 ? -1 : 1) * weight;
}

/** FNV-1a, 32 bits, over UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Scale to unit length in place (a zero vector stays zero). */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const v of vector) sum += v * v;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  return vector;
}

/** Two embedder specs are the same embedder (same kind, model, dimensions and endpoint). */
export function sameEmbedder(a: EmbedderSpec, b: EmbedderSpec): boolean {
  return a.kind === b.kind && a.model === b.model && a.dimensions === b.dimensions && (a.base_url ?? '') === (b.base_url ?? '');
}

/** A one-line description (`hashing fnv1a-words-bigrams (256 dims)`, `openai text-embedding-3-small at http://...`). */
export function describeEmbedder(spec: EmbedderSpec): string {
  return `${spec.kind} ${spec.model} (${spec.dimensions} dims)${spec.base_url ? ` at ${spec.base_url}` : ''}`;
}
