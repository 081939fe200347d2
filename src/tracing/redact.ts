/**
 * The last line of defence for secrets on spans: attributes whose key names a credential (an API key, an
 * authorization header, a password, a token) are replaced, and registered secrets and credential-shaped text inside
 * any string attribute (config/credential-shapes.ts: GitHub, Slack, AWS, JWT, `Bearer <token>`, `sk-...`) are masked. agentkit itself never puts a key on a span; this also covers spans
 * other instrumentation creates and payloads that happen to quote a key.
 *
 * The work is split by cost. Key-based redaction is a memoized lookup per key, done where the span is made or
 * made into its row (on the run's thread), so a secret-keyed value never leaves the span. The text scan reads every
 * byte of every payload, so it runs once per row as its batch is written (`maskSpanRow`, span-encoding.ts), and for
 * OTLP in the export path (otlp.ts).
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { mayHoldCredentialShape } from '../config/credential-shapes.js';
import { hasSecrets, maskCredentials, redactText } from '../config/redact.js';
import { knownSecrets, onSecretRegistered } from '../config/secrets.js';

export const REDACTED = '[REDACTED]';

const SECRET_KEY =
  /(^|[._-])(api[_-]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|cookie|set-cookie)$/i;

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

/**
 * `text` with registered secret values (config/redact.ts) and credential shapes (config/credential-shapes.ts: GitHub,
 * Slack, AWS, JWT, `Bearer ...`, `sk-...`) masked.
 */
export function maskSecrets(text: string): string {
  return maskCredentials(text);
}

/** `maskSecrets(text)`, after a cheap pre-test that skips the shapes' scan for text that cannot hold one. */
function maskSecretText(text: string): string {
  return mayHoldCredentialShape(text) ? maskCredentials(text) : redactText(text);
}

/** An attribute value with credential-shaped text masked in it (in a string, or in an array's strings). */
export function maskAttributeValue(value: AttributeValue): AttributeValue;
export function maskAttributeValue(value: AttributeValue | undefined): AttributeValue | undefined;
export function maskAttributeValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return maskSecretText(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? maskSecretText(v) : v)) as AttributeValue;
  return value;
}

/**
 * A JSON value (a parsed message, arguments) with `maskSecrets` applied to every string in it, keys left as they are;
 * copy on write: the same value comes back when nothing needed masking.
 */
export function maskJsonValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskSecretText(value);
  if (value === null || typeof value !== 'object' || depth > 200) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = maskJsonValue(value[i], depth + 1);
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const masked = maskJsonValue(item, depth + 1);
    if (masked !== item) (out ??= { ...(value as Record<string, unknown>) })[key] = masked;
  }
  return out ?? value;
}

/** True when `text` may hold credential-shaped text (false means `maskSecrets` would leave it unchanged). */
export function mayHoldSecretText(text: string): boolean {
  return mayHoldCredentialShape(text) || (hasSecrets() && redactText(text) !== text);
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
  if (mayHoldCredentialShape(json)) return true;
  if (!hasSecrets()) return false;
  if (redactText(json) !== json) return true;
  escapedSecrets ??= escapedForms();
  return escapedSecrets.some((escaped) => json.includes(escaped));
}

function escapedForms(): string[] {
  const secrets = knownSecrets();
  return secrets.map((secret) => JSON.stringify(secret).slice(1, -1)).filter((escaped, i) => escaped !== secrets[i]);
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
