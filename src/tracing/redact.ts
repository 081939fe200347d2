/**
 * The last line of defence for secrets on spans: attributes whose key names a credential (an API key, an
 * authorization header, a password, a token) are replaced, and credential-shaped text inside any string attribute
 * (`Bearer <token>`, `sk-...` keys) is masked. agentkit itself never puts a key on a span; this also covers spans
 * other instrumentation creates and payloads that happen to quote a key.
 *
 * The work is split by cost. Key-based redaction is a memoized lookup per key, done where the span is made or
 * encoded (on the run's thread), so a secret-keyed value never leaves the span. The text scan reads every byte of
 * every payload, so it runs when an encoded span is decoded on the writer thread (span-encoding.ts), and for
 * OTLP in the export path (otlp.ts).
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { hasSecrets, redactText } from '../config/redact.js';
import { knownSecrets, onSecretRegistered } from '../config/secrets.js';

export const REDACTED = '[REDACTED]';

const SECRET_KEY =
  /(^|[._-])(api[_-]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|cookie|set-cookie)$/i;
const SECRET_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{16,}|\bxai-[A-Za-z0-9_-]{16,}|\bgsk_[A-Za-z0-9]{16,}/g;

/** Cheap test for text that might hold a credential (most payloads do not, and skip the full scan). */
const SECRET_HINT_WORDS = ['Bearer', 'Basic', 'sk-', 'xai-', 'gsk_'] as const;
const SECRET_HINT = new RegExp(SECRET_HINT_WORDS.join('|'));

/** True when an attribute key names a credential. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * `isSecretKey` remembering its answers (span attribute keys repeat endlessly, the regex need not run each time).
 * Each writer keeps its own; the memory is bounded.
 */
export function memoizedSecretKeyTest(limit = 10_000): (key: string) => boolean {
  const verdicts = new Map<string, boolean>();
  return (key) => {
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = SECRET_KEY.test(key);
      if (verdicts.size >= limit) verdicts.clear();
      verdicts.set(key, verdict);
    }
    return verdict;
  };
}

/** The process's memoized `isSecretKey`, for the run's thread (spans and their encoding). */
export const isSecretKeyCached = memoizedSecretKeyTest();

/** `text` with registered secret values (config/redact.ts) and credential-shaped substrings masked. */
export function maskSecrets(text: string): string {
  return redactText(text).replace(SECRET_TEXT, (match) => {
    const space = match.indexOf(' ');
    return space > 0 ? `${match.slice(0, space)} ${REDACTED}` : REDACTED;
  });
}

/** `maskSecrets(text)`, after a cheap pre-test that skips the full scan for text that cannot hold a credential. */
function maskSecretText(text: string): string {
  return SECRET_HINT.test(text) ? maskSecrets(text) : redactText(text);
}

/** An attribute value with credential-shaped text masked in it (in a string, or in an array's strings). */
export function maskAttributeValue(value: AttributeValue): AttributeValue;
export function maskAttributeValue(value: AttributeValue | undefined): AttributeValue | undefined;
export function maskAttributeValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return maskSecretText(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? maskSecretText(v) : v)) as AttributeValue;
  return value;
}

/** True when `text` may hold credential-shaped text (false means `maskSecrets` would leave it unchanged). */
export function mayHoldSecretText(text: string): boolean {
  return SECRET_HINT.test(text) || (hasSecrets() && redactText(text) !== text);
}

/** Registered secrets whose JSON-escaped form differs from them (a quote, a backslash, a control character). */
let escapedSecrets: string[] | undefined;
onSecretRegistered(() => {
  escapedSecrets = undefined;
});

/**
 * True when JSON text may hold, in one of its strings, text `maskSecrets` would change: a superset test run on the
 * text as stored (a registered secret is looked for as it is and as JSON escapes it).
 */
export function mayHoldSecretJson(json: string): boolean {
  if (SECRET_HINT.test(json)) return true;
  if (!hasSecrets()) return false;
  if (redactText(json) !== json) return true;
  escapedSecrets ??= escapedForms();
  return escapedSecrets.some((escaped) => json.includes(escaped));
}

function escapedForms(): string[] {
  const secrets = knownSecrets();
  return secrets.map((secret) => JSON.stringify(secret).slice(1, -1)).filter((escaped, i) => escaped !== secrets[i]);
}

/** `mayHoldSecretJson` on UTF-8 bytes of JSON text, without decoding them (byte searches only). */
export function mayHoldSecretJsonBytes(json: Buffer): boolean {
  for (const word of SECRET_HINT_WORDS) if (json.includes(word)) return true;
  if (!hasSecrets()) return false;
  for (const secret of knownSecrets()) if (json.includes(secret)) return true;
  escapedSecrets ??= escapedForms();
  return escapedSecrets.some((escaped) => json.includes(escaped));
}

/**
 * `attributes` with secret-keyed values replaced; the same object when no key names a credential (the common case
 * allocates nothing). Values are not scanned.
 */
export function redactKeys(attributes: Attributes, secretKey: (key: string) => boolean = isSecretKey): Attributes {
  let out: Attributes | undefined;
  for (const key in attributes) {
    if (!secretKey(key)) continue;
    out ??= { ...attributes };
    out[key] = REDACTED;
  }
  return out ?? attributes;
}

/** The JSON text of a stored events array (`[{ name, timestamp, attributes }]`) with string attribute values masked. */
export function maskJsonEvents(json: string): string {
  if (!mayHoldSecretJson(json)) return json;
  const events = JSON.parse(json) as Array<{ attributes?: Attributes }>;
  for (const event of events) if (event.attributes) for (const key in event.attributes) event.attributes[key] = maskAttributeValue(event.attributes[key]);
  return JSON.stringify(events);
}

/** A copy of `attributes` safe to store or export. */
export function redactAttributes(attributes: Attributes): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    out[key] = isSecretKey(key) ? REDACTED : maskAttributeValue(value)!;
  }
  return out;
}
