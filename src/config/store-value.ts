/**
 * A store is named by one value (issue 38): a file path (SQLite) or a `postgres://` URL (Postgres, the schema in its
 * `schema` query parameter, default `agentkit`). This module parses that value, and nothing else: a URL is never
 * resolved as a path, a URL of another scheme is refused, and a password a URL carries never appears in a label.
 *
 * The URL handed to the Postgres driver is the value without the `schema` parameter (the driver would otherwise read
 * it as a server option); the schema is validated here against `[A-Za-z_][A-Za-z0-9_]*`, before any SQL is built,
 * because it is interpolated into every statement (identifiers cannot be bound parameters).
 */
import path from 'node:path';
import { AgentkitError, ConfigError } from '../errors.js';

/** The schema a Postgres store uses when its URL names none. */
export const DEFAULT_PG_SCHEMA = 'agentkit';

/** A store, parsed: the SQLite file (absolute), or the Postgres server URL and schema. */
export type StoreRef =
  | { readonly engine: 'sqlite'; readonly path: string }
  | {
      readonly engine: 'postgres';
      /** The connection URL as the driver takes it: the value without its `schema` parameter. Holds the password, if any. */
      readonly url: string;
      readonly schema: string;
    };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `scheme://` at the start of a value: a URL, never a path (a Windows drive `C:\` has no `//`). */
const URL_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const REDACTED = '[REDACTED]';
const POSTGRES_SCHEMES = new Set(['postgres', 'postgresql']);

/** The schema name of a store URL does not match the identifier pattern (exit 2, HTTP 400). */
export class StoreSchemaNameError extends AgentkitError {
  constructor(schema: string) {
    super(
      'invalid_schema_name',
      `invalid Postgres schema name ${JSON.stringify(schema)}: it must match [A-Za-z_][A-Za-z0-9_]* (letters, digits, underscores; not starting with a digit)`,
    );
  }
}

/** True when `value` names a store by URL (`scheme://...`) rather than by path. */
export function isStoreUrl(value: string): boolean {
  return URL_SCHEME.test(value.trim());
}

/**
 * Parse a store value. A path is resolved against `cwd` (default this process's); a `postgres://` or
 * `postgresql://` URL keeps its server part, loses its `schema` parameter (validated: StoreSchemaNameError) and
 * is never touched by `path`. Throws ConfigError for an empty value, a URL of another scheme, or a URL that does
 * not parse; every message shows the value redacted (`redactStoreValue`).
 */
export function parseStoreValue(value: string, cwd: string = process.cwd()): StoreRef {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (trimmed === '') throw new ConfigError('a store must be a file path or a postgres:// URL; got an empty value');
  const scheme = URL_SCHEME.exec(trimmed)?.[1];
  if (scheme === undefined) return { engine: 'sqlite', path: path.resolve(cwd, trimmed) };
  if (!POSTGRES_SCHEMES.has(scheme.toLowerCase())) {
    throw new ConfigError(`unsupported store ${redactStoreValue(trimmed)}: a store is a file path (SQLite) or a postgres:// URL`);
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError(`store URL ${redactStoreValue(trimmed)} does not parse (expected postgres://user@host:port/database?schema=name)`);
  }
  const schema = url.searchParams.get('schema') ?? DEFAULT_PG_SCHEMA;
  if (!IDENTIFIER.test(schema)) throw new StoreSchemaNameError(schema);
  url.searchParams.delete('schema');
  return { engine: 'postgres', url: url.toString(), schema };
}

/**
 * `value` as a message may show it: a URL's password replaced by `[REDACTED]` (as the credential shape masks it, credential-shapes.ts) (the user, host, database and schema kept, so
 * a person can tell which store it is); a path unchanged. Never throws, whatever the value.
 */
export function redactStoreValue(value: string): string {
  const match = URL_SCHEME.exec(value);
  if (!match) return value;
  // By hand, not through URL: a value that does not parse must be redacted too. The userinfo ends at the last '@'
  // before the path; its password is what follows the first ':'.
  const rest = value.slice(match[0].length);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const at = authority.lastIndexOf('@');
  if (at === -1) return value;
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(':');
  if (colon === -1) return value;
  return `${match[0]}${userinfo.slice(0, colon)}:${REDACTED}${rest.slice(at)}`;
}

/** How messages name a parsed store: the file, or the redacted URL with its schema. */
export function storeLabel(ref: StoreRef): string {
  if (ref.engine === 'sqlite') return ref.path;
  const shown = new URL(ref.url);
  shown.searchParams.set('schema', ref.schema);
  return redactStoreValue(shown.toString());
}

/**
 * A key that is the same for every value naming the same store in this process: the file, or the URL and schema.
 * Pools and writers are shared by it. Holds the password; never print it.
 */
export function storeKey(ref: StoreRef): string {
  return ref.engine === 'sqlite' ? ref.path : `${ref.url}#${ref.schema}`;
}

/** The value that names `ref` again (`parseStoreValue(storeValue(ref))` is `ref`). Holds the password; never print it. */
export function storeValue(ref: StoreRef): string {
  if (ref.engine === 'sqlite') return ref.path;
  const url = new URL(ref.url);
  url.searchParams.set('schema', ref.schema);
  return url.toString();
}

/** A Postgres URL without its password (for comparing two values that name one server as one user). */
export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}
