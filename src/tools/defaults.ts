/**
 * JSON-schema `default`s filled into arguments the model left out, for object properties at any depth. Done on the
 * plain schema (not TypeBox's markers), so it works the same for a tool defined in code and one rebuilt from a trace.
 */
import type { JsonObject, JsonValue } from '../llm/messages.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` with missing properties set to their schema defaults (a new object; `value` is not modified). */
export function withDefaults(schema: JsonObject, value: JsonValue): JsonValue {
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const out: JsonObject = { ...value };
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    if (out[key] === undefined && 'default' in property) out[key] = structuredClone(property.default) as JsonValue;
    else if (out[key] !== undefined) out[key] = withDefaults(property as JsonObject, out[key]!);
  }
  return out;
}
