/**
 * The redactor: every secret value registered in `secrets.ts` (provider keys, the serve token, REST tool header
 * values, the Platform key) is replaced by `[REDACTED]` wherever it appears in text or in a JSON value, whatever its
 * length or shape. Error messages, HTTP error details, log lines, checkpoint rows and spans all pass through it.
 *
 * One combined pattern of the registered values (longest first), rebuilt only when a new value is registered; with
 * nothing registered every call returns its input untouched.
 */
import { knownSecrets, onSecretRegistered } from './secrets.js';

export const SECRET_MASK = '[REDACTED]';

let pattern: RegExp | null = null;
let stale = true;
onSecretRegistered(() => {
  stale = true;
});

function currentPattern(): RegExp | null {
  if (stale) {
    const secrets = knownSecrets();
    pattern = secrets.length === 0 ? null : new RegExp(secrets.map(escapeRegExp).join('|'), 'g');
    stale = false;
  }
  return pattern;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** True when at least one secret is registered (callers may skip work otherwise). */
export function hasSecrets(): boolean {
  return currentPattern() !== null;
}

/** `text` with every registered secret replaced by `[REDACTED]`. */
export function redactText(text: string): string {
  const current = currentPattern();
  if (current === null || text.length === 0) return text;
  current.lastIndex = 0;
  return current.test(text) ? text.replace(current, SECRET_MASK) : text;
}

/**
 * `value` (any JSON value) with every registered secret masked in its strings, keys included. Copy on write: the
 * same object comes back when nothing needed masking.
 */
export function redactValue<T>(value: T): T {
  if (currentPattern() === null) return value;
  return redactAny(value, 0) as T;
}

function redactAny(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > 200) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = redactAny(value[i], depth + 1);
      if (item !== value[i]) {
        out ??= value.slice();
        out[i] = item;
      }
    }
    return out ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const maskedKey = redactText(key);
    const masked = redactAny(item, depth + 1);
    if (masked !== item || maskedKey !== key) {
      out ??= { ...(value as Record<string, unknown>) };
      if (maskedKey !== key) delete out[key];
      out[maskedKey] = masked;
    }
  }
  return out ?? value;
}

/** An error's one-line description (`Name: message`) with secrets masked: for logs and HTTP error details. */
export function describeErrorSafely(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return redactText(text);
}
