/**
 * Span attributes as a person reads them (`replay inspect` in text mode): attributes holding a JSON array as text
 * (model messages, recorded as JSON strings) are decoded, so the indented output shows each message as a nested
 * object instead of one escaped line. Single objects (tool arguments) stay as recorded, short enough to read on one
 * line; `--json` keeps every attribute as recorded.
 */

/** `attributes` with every string value that is a JSON array replaced by its decoded value. */
export function readableAttributes(attributes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).map(([key, value]) => [key, decodedJson(value)]));
}

function decodedJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!text.startsWith('[')) return value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return value;
  }
}
