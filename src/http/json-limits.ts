/**
 * Limits on the shape of a JSON request body, checked on the raw bytes before `JSON.parse` and schema validation:
 * nesting depth and the total number of object keys. One linear pass with no allocation, so a 10 MB body of
 * 600,000 keys or a 3-million-deep array is refused in milliseconds instead of costing the parser and the validator
 * seconds of blocked event loop (and an error list as large as the body).
 */

export interface JsonLimits {
  /** Deepest allowed nesting of arrays and objects (default 64). */
  maxDepth: number;
  /** Most object keys allowed in the whole body, summed over every object (default 10,000). */
  maxKeys: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 64, maxKeys: 10_000 };

/** A body over a shape limit. `type` is what the error mapper keys on; `status` is what the caller gets. */
export class JsonLimitError extends Error {
  constructor(
    readonly type: 'entity.too.deep' | 'entity.too.many.keys',
    readonly limitStatus: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'JsonLimitError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;

/**
 * Throw a `JsonLimitError` when `bytes` (UTF-8 JSON text, possibly invalid) nests deeper than `maxDepth` or holds
 * more than `maxKeys` object keys. Invalid JSON is left for the parser to report; this only counts structure outside
 * strings (every key is followed by exactly one `:` outside a string).
 */
export function checkJsonLimits(bytes: Uint8Array, limits: JsonLimits = DEFAULT_JSON_LIMITS): void {
  let depth = 0;
  let keys = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    switch (byte) {
      case QUOTE:
        inString = true;
        break;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (++depth > limits.maxDepth) {
          throw new JsonLimitError('entity.too.deep', 400, `request body nests arrays/objects deeper than ${limits.maxDepth} levels`);
        }
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        depth--;
        break;
      case COLON:
        if (++keys > limits.maxKeys) {
          throw new JsonLimitError('entity.too.many.keys', 413, `request body has more than ${limits.maxKeys} object keys`);
        }
        break;
      default:
        break;
    }
  }
}
