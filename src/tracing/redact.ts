/**
 * The last line of defence for secrets on spans: attributes whose key names a credential (an API key, an
 * authorization header, a password, a token) are replaced, and credential-shaped text inside any string attribute
 * (`Bearer <token>`, `sk-...` keys) is masked. agentkit itself never puts a key on a span; this also covers spans
 * other instrumentation creates and payloads that happen to quote a key.
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';

export const REDACTED = '[REDACTED]';

const SECRET_KEY = /(^|[._-])(api[_-]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|cookie|set-cookie)$/i;
const SECRET_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{16,}|\bxai-[A-Za-z0-9_-]{16,}|\bgsk_[A-Za-z0-9]{16,}/g;

/** Cheap test for text that might hold a credential (most payloads do not, and skip the full scan). */
const SECRET_HINT = /Bearer|Basic|sk-|xai-|gsk_/;

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

/** `text` with credential-shaped substrings masked. */
export function maskSecrets(text: string): string {
  return text.replace(SECRET_TEXT, (match) => {
    const space = match.indexOf(' ');
    return space > 0 ? `${match.slice(0, space)} ${REDACTED}` : REDACTED;
  });
}

function cleanValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return maskSecrets(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? maskSecrets(v) : v)) as AttributeValue;
  return value;
}

/** `attributes` as the JSON text to store, redacted; one serialisation when nothing needs redacting. */
export function redactedJson(attributes: Attributes, secretKey: (key: string) => boolean = isSecretKey): string {
  const json = JSON.stringify(attributes);
  if (!SECRET_HINT.test(json) && !Object.keys(attributes).some(secretKey)) return json;
  return JSON.stringify(redactAttributes(attributes));
}

/** A copy of `attributes` safe to store or export. */
export function redactAttributes(attributes: Attributes): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    out[key] = isSecretKey(key) ? REDACTED : cleanValue(value)!;
  }
  return out;
}
