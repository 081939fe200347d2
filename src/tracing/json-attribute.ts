/** A span attribute holding a JSON value: strings as they are, anything else JSON-encoded (String() if it cannot be). */
export function jsonAttribute(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}
