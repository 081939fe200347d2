/**
 * Compressed delta documents (ADR 0028). A delta row on Postgres stores its delta document (./delta.ts) either as
 * JSON text (`state_delta`) or, when the text is large enough and DEFLATE makes it clearly smaller, as raw DEFLATE of
 * its UTF-8 bytes (`state_delta_z`, bytea): exactly one of the two is set.
 *
 * Why here and not Postgres's own TOAST compression: TOAST compresses only rows over about 2 KB, and its codecs
 * (pglz, lz4) find repeats but do no entropy coding, so a step's output of a few hundred bytes to a couple of
 * kilobytes (a tool result, a model reply) was stored as is. DEFLATE's Huffman stage also shrinks text without
 * repeats; typical JSON and prose come out at a quarter to a third of their size.
 */
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { ChainCheckpointError } from './errors.js';

/** Delta texts shorter than this (in UTF-16 units) stay text: the codec's fixed cost outweighs what it saves. */
export const COMPRESS_MIN_CHARS = 512;
/**
 * A compressed form is kept only when it is at most this fraction of the text's bytes: it must save a quarter, or the
 * reads' decompression is not worth it (random printable text comes out at 0.82-0.87, and stays text).
 */
export const COMPRESS_MAX_RATIO = 0.75;

/**
 * The delta text as stored: `{ text }` for a short or incompressible text, `{ deflated }` (raw DEFLATE of its UTF-8)
 * when that saves at least a quarter of its bytes.
 */
export function storedDeltaForm(text: string): { text: string; deflated: null } | { text: null; deflated: Buffer } {
  if (text.length < COMPRESS_MIN_CHARS) return { text, deflated: null };
  const bytes = Buffer.from(text, 'utf8');
  // Level 6 (zlib's default): on kilobyte texts it costs the same as level 1 and does better on longer ones.
  const deflated = deflateRawSync(bytes, { level: constants.Z_DEFAULT_COMPRESSION });
  return deflated.length <= bytes.length * COMPRESS_MAX_RATIO ? { text: null, deflated } : { text, deflated: null };
}

/**
 * The delta text of a stored row: `text` when set, else `deflated` decompressed. A damaged stream is an error naming
 * the checkpoint.
 */
export function deltaText(checkpointId: string, text: string | null | undefined, deflated: Buffer | null | undefined): string | null {
  if (typeof text === 'string') return text;
  if (deflated === null || deflated === undefined) return null;
  try {
    return inflateRawSync(deflated).toString('utf8');
  } catch (error) {
    throw new ChainCheckpointError(`checkpoint '${checkpointId}' cannot be read: its compressed delta is damaged (${(error as Error).message})`, {
      cause: error,
    });
  }
}
