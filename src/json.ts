/**
 * JSON as agentkit persists it (checkpoint state, messages, tool arguments, span payloads). One definition for every
 * layer: a value typed `JsonValue` survives a JSON round trip unchanged.
 */

/** A value that survives a JSON round trip unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object whose values are JSON. */
export type JsonObject = { [key: string]: JsonValue };
