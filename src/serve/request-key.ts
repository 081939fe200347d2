/**
 * The `Idempotency-Key` request header of the served agent (draft-ietf-httpapi-idempotency-key-header-07,
 * docs/adr/0052), and what a key is bound to: the caller that sent it and the body it came with.
 */
import { createHash } from 'node:crypto';
import { bearerToken } from './auth.js';

/** Longest key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Default retention of a key: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type ParsedKey = { ok: true; key: string } | { ok: false; detail: string };

/**
 * The key of an `Idempotency-Key` header value: a bare token or a quoted string (the draft's sf-string) of 1-255
 * visible ASCII characters (0x21-0x7E, neither `"` nor `\` inside the quotes), surrounding spaces ignored. Several
 * header lines (joined by Node with `, `) are refused as malformed. Linear in the header's length.
 */
export function parseIdempotencyKey(header: string): ParsedKey {
  let value = header.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  if (value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return { ok: false, detail: `Idempotency-Key must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} visible characters (a bare token or a quoted string)` };
  }
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x22 || c === 0x5c) {
      return { ok: false, detail: 'Idempotency-Key must hold only visible ASCII characters, without spaces, quotes inside or backslashes' };
    }
  }
  return { ok: true, key: value };
}

/**
 * Who a key belongs to: the served runner (`agent:support`) and the caller, the hex SHA-256 of its bearer token or
 * `anonymous` without one. Two callers, or two runners on one store, never share a key.
 */
export function callerOf(runner: string, authorization: string | undefined): string {
  const token = bearerToken(authorization);
  return `${runner}/${token === null ? 'anonymous' : createHash('sha256').update(token).digest('hex')}`;
}

/** The hex SHA-256 of `body` as canonical JSON (object keys sorted at every level, no spaces). */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** JSON with object keys in code-point order at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The retention window from `AGENTKIT_IDEMPOTENCY_TTL` (a whole number of seconds, or with `s`, `m`, `h`, `d`), else 24 h. */
export function idempotencyTtlMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.AGENTKIT_IDEMPOTENCY_TTL;
  if (raw === undefined || raw.trim() === '') return DEFAULT_IDEMPOTENCY_TTL_MS;
  const match = /^(\d{1,9})(s|m|h|d)?$/.exec(raw.trim());
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
  const ms = match ? Number(match[1]) * unit[(match[2] ?? 's') as keyof typeof unit] : 0;
  if (ms <= 0) throw new Error(`AGENTKIT_IDEMPOTENCY_TTL must be a positive duration in seconds (e.g. 86400, 90m, 24h, 7d), not ${JSON.stringify(raw)}`);
  return ms;
}
