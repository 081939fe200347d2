/**
 * JSON as agentkit persists it (checkpoint state, messages, tool arguments, span payloads). One definition for every
 * layer: a value typed `JsonValue` survives a JSON round trip unchanged.
 */

/** A value that survives a JSON round trip unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object whose values are JSON. */
export type JsonObject = { [key: string]: JsonValue };

/** Past this depth `cloneJson` hands the rest of a value to `structuredClone` (which also copes with cycles). */
const CLONE_DEPTH_LIMIT = 64;

/**
 * A deep copy of a JSON value: plain objects, arrays and primitives are copied by a walk (about ten times faster than
 * `structuredClone` for the small messages and arguments of an agent turn); anything else inside (a Date, a Map, a
 * class instance) and anything nested deeper than 64 levels is copied by `structuredClone`, so a value holding them
 * is copied exactly as before. Two references to one object become two copies (JSON has no shared references).
 */
export function cloneJson<T>(value: T): T {
  return copyJson(value, 0) as T;
}

function copyJson(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= CLONE_DEPTH_LIMIT) return structuredClone(value);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i], depth + 1);
    return out;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyJson((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

/**
 * JSON text with object keys sorted at every level (undefined values left out, as JSON.stringify does): two values
 * compare equal when their canonical texts do. Replay matches recorded calls by it, and the trace writer hashes it
 * for the values it masks (docs/adr/0010), so both sides must use this one definition.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
