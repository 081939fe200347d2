/** JSON text with object keys sorted at every level (one definition, shared with the trace writer: ../json.ts). */
export { canonicalJson } from '../json.js';

/** A JSON text parsed, or undefined when it is not a string of JSON. */
export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
