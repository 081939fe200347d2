/**
 * The Platform's API keys (issue 42, ADR 0067): a key is shown once, when made, and stored as its HMAC-SHA-256 under
 * the store's server secret, beside a lookup prefix (its first 12 characters) and its project and scopes. A presented
 * key is looked up by prefix and compared in constant time against every candidate's HMAC; nothing is cached, so a
 * revocation takes effect on the next request.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../errors.js';
import { PLATFORM_SCOPES, type PlatformScope, type PlatformStore, type StoredApiKey } from './store-types.js';

/** Characters of a key used to find its row. */
export const KEY_PREFIX_LENGTH = 12;
const PROJECT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** A key brought by its owner (`key` of `createApiKey`): 16-200 URL-safe characters. */
const KEY_TEXT = /^[A-Za-z0-9._~-]{16,200}$/;

export interface CreateApiKeyInput {
  project: string;
  scopes: readonly string[];
  /** Register this key instead of making one (an existing deployment's key; tests). Shown nowhere either way. */
  key?: string;
}

export interface CreatedApiKey {
  /** The key: the only time it is available. */
  key: string;
  record: Omit<StoredApiKey, 'digest'>;
}

/** The HMAC-SHA-256 of `key` under `secret`. */
export function keyDigest(secret: Buffer, key: string): Buffer {
  return createHmac('sha256', secret).update(key).digest();
}

/** `scopes` checked and deduplicated; ConfigError naming the unknown one. */
export function parseScopes(scopes: readonly string[]): PlatformScope[] {
  if (scopes.length === 0) throw new ConfigError(`a key needs at least one --scope (${PLATFORM_SCOPES.join(', ')})`);
  for (const scope of scopes) {
    if (!(PLATFORM_SCOPES as readonly string[]).includes(scope))
      throw new ConfigError(`unknown scope '${scope}': expected one of ${PLATFORM_SCOPES.join(', ')}`);
  }
  return [...new Set(scopes)] as PlatformScope[];
}

/** Make (or register) a key of `input.project` with `input.scopes`, and store its HMAC. */
export async function createApiKey(store: PlatformStore, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  if (!PROJECT.test(input.project))
    throw new ConfigError(`invalid project '${input.project}': 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  const scopes = parseScopes(input.scopes);
  if (input.key !== undefined && !KEY_TEXT.test(input.key)) throw new ConfigError('a registered key must be 16-200 characters of A-Z a-z 0-9 . _ ~ -');
  const key = input.key ?? `akp_${randomBytes(4).toString('hex')}_${randomBytes(32).toString('base64url')}`;
  const secret = await store.serverSecret();
  const record: StoredApiKey = {
    id: `key_${randomBytes(8).toString('hex')}`,
    prefix: key.slice(0, KEY_PREFIX_LENGTH),
    project: input.project,
    scopes,
    digest: keyDigest(secret, key).toString('hex'),
    created_at: new Date().toISOString(),
    revoked_at: null,
  };
  await store.addKey(record);
  const { digest: _digest, ...shown } = record;
  return { key, record: shown };
}

/** What a presented key is: unknown (or revoked), or the key's row. */
export type KeyCheck = { valid: false } | { valid: true; key: StoredApiKey };

/** Check a presented key against the store, in constant time per candidate; a revoked key is invalid. */
export async function verifyApiKey(store: PlatformStore, secret: Buffer, presented: string): Promise<KeyCheck> {
  if (presented.length < KEY_PREFIX_LENGTH || presented.length > 200) return { valid: false };
  const candidates = await store.keysByPrefix(presented.slice(0, KEY_PREFIX_LENGTH));
  const digest = keyDigest(secret, presented);
  let found: StoredApiKey | undefined;
  // Every candidate is compared (no early exit), each in constant time.
  for (const candidate of candidates) {
    const stored = Buffer.from(candidate.digest, 'hex');
    if (stored.length === digest.length && timingSafeEqual(stored, digest)) found = candidate;
  }
  if (!found || found.revoked_at !== null) return { valid: false };
  return { valid: true, key: found };
}

/**
 * The keys `idOrPrefix` names: the key with that id, else every key with that prefix. ConfigError when none, or when
 * a prefix names several live keys (then the ids are listed to pick from).
 */
export async function resolveKeys(store: PlatformStore, idOrPrefix: string): Promise<StoredApiKey[]> {
  const all = await store.listKeys();
  const byId = all.filter((key) => key.id === idOrPrefix);
  if (byId.length > 0) return byId;
  const byPrefix = all.filter((key) => key.prefix === idOrPrefix && key.revoked_at === null);
  if (byPrefix.length === 0) throw new ConfigError(`no live key with id or prefix '${idOrPrefix}' (see \`agentkit platform keys list\`)`);
  if (byPrefix.length > 1)
    throw new ConfigError(`prefix '${idOrPrefix}' names ${byPrefix.length} keys (${byPrefix.map((k) => k.id).join(', ')}): revoke one by its id`);
  return byPrefix;
}
