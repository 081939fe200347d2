/**
 * The redactor: every secret value registered in `secrets.ts` (provider keys, the serve token, REST tool header
 * values, the Platform key) is replaced by `[REDACTED]` wherever it appears in text or in a JSON value, whatever its
 * length or shape. Error messages, HTTP error details, log lines, checkpoint rows and spans all pass through it.
 *
 * One combined pattern of the registered values (longest first), rebuilt only when a new value is registered; with
 * nothing registered every call returns its input untouched.
 */
import { maskCredentialShapes } from './credential-shapes.js';
import { knownSecrets, onSecretRegistered } from './secrets.js';

export const SECRET_MASK = '[REDACTED]';

let pattern: RegExp | null = null;
/** The length of the shortest registered secret: a shorter text cannot hold one (keys, roles, ids: most texts). */
let shortestSecret = Infinity;
/** The length of the longest: a secret that touches an appended text starts at most this many characters before it. */
let longestSecret = 0;
let stale = true;
/** Counts registrations, so a holder of texts checked earlier can tell they were checked against fewer secrets. */
let generation = 0;
onSecretRegistered(() => {
  stale = true;
  generation++;
});

/**
 * Long texts found free of every registered secret, so a text seen again is not scanned again. Checkpoint rows hold
 * an agent's whole history or a chain's whole state, and the same message texts come back in every row (the same
 * string objects: V8 keeps a string's hash, so looking one up is cheap); without this, each row scanned every byte of
 * the history again, and a step's cost grew with the conversation. Emptied when a secret is registered (the texts
 * were checked against fewer secrets) and when it holds too much, so it never keeps more than a bounded amount of
 * text alive.
 */
const cleanTexts = new Set<string>();
let cleanChars = 0;
/** Shorter texts are scanned every time: a scan costs less than remembering them. */
const REMEMBERED_MIN_CHARS = 256;
const REMEMBERED_MAX_CHARS = 16 * 1024 * 1024;
const REMEMBERED_MAX_TEXTS = 100_000;

function currentPattern(): RegExp | null {
  if (stale) {
    const secrets = knownSecrets();
    pattern = secrets.length === 0 ? null : new RegExp(secrets.map(escapeRegExp).join('|'), 'g');
    shortestSecret = secrets.reduce((min, secret) => Math.min(min, secret.length), Infinity);
    longestSecret = secrets.reduce((max, secret) => Math.max(max, secret.length), 0);
    forgetCleanTexts();
    stale = false;
  }
  return pattern;
}

function forgetCleanTexts(): void {
  cleanTexts.clear();
  cleanChars = 0;
}

function rememberClean(text: string): void {
  // A text larger than the whole budget is not kept: the bound holds whatever one text's size.
  if (text.length > REMEMBERED_MAX_CHARS) return;
  if (cleanChars + text.length > REMEMBERED_MAX_CHARS || cleanTexts.size >= REMEMBERED_MAX_TEXTS) forgetCleanTexts();
  cleanTexts.add(text);
  cleanChars += text.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** True when at least one secret is registered (callers may skip work otherwise). */
export function hasSecrets(): boolean {
  return currentPattern() !== null;
}

/**
 * Changes each time a secret is registered. Whatever was found free of secrets under an older value was checked
 * against fewer of them (a checkpoint writer that stores only what changed starts over from a full, masked state).
 */
export function secretsGeneration(): number {
  return generation;
}

/**
 * Whether `added`, appended to `before` (already stored), may be masked on its own: true unless a registered secret
 * starts in `before` and ends in `added` (a text streamed in pieces), in which case the whole text must be masked.
 */
export function appendStaysClean(before: string, added: string): boolean {
  const current = currentPattern();
  if (current === null || before.length === 0) return true;
  // Only the last longestSecret - 1 characters of `before` can start a secret that reaches into `added`.
  const tail = before.slice(Math.max(0, before.length - (longestSecret - 1)));
  const window = tail + added;
  // Every match starting in the tail, overlapping ones too (a secret inside another's tail).
  for (let from = 0; ; ) {
    current.lastIndex = from;
    const match = current.exec(window);
    if (match === null || match.index >= tail.length) return true;
    if (match.index + match[0].length > tail.length) return false;
    from = match.index + 1;
  }
}

/** `text` with every registered secret replaced by `[REDACTED]`. */
export function redactText(text: string): string {
  const current = currentPattern();
  if (current === null || text.length < shortestSecret) return text;
  const long = text.length >= REMEMBERED_MIN_CHARS;
  if (long && cleanTexts.has(text)) return text;
  current.lastIndex = 0;
  if (current.test(text)) return text.replace(current, SECRET_MASK);
  if (long) rememberClean(text);
  return text;
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
  // Object.keys, not entries: no pair array per property (a history is thousands of small objects per row).
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
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

/**
 * `text` as an observation copy may show it (an error message, a log line, an HTTP or MCP error body, a span): every
 * registered secret and every credential shape (credential-shapes.ts: GitHub, Slack, AWS, JWT, `Bearer ...`,
 * `sk-...`) replaced by `[REDACTED]`. Never applied to what a run reads (docs/adr/0010).
 */
export function maskCredentials(text: string): string {
  return maskCredentialShapes(redactText(text));
}

/** An error's one-line description (`Name: message`) with secrets and credential shapes masked: for logs and HTTP error details. */
export function describeErrorSafely(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return maskCredentials(text);
}
