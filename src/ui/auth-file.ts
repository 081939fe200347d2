/**
 * The local UI's credentials file (default `./.agentkit/auth.json`, mode 0600), version 2 (docs/adr/0058):
 *
 *   { "version": 2, "session_secret": "<64 hex>", "created_at": "<ISO-8601>",
 *     "users": [ { "username": "alice", "role": "admin", "generation": 0, "created_at": "<ISO-8601>",
 *                  "password_hash": "scrypt$16384$8$1$<salt b64url>$<hash b64url>" } ] }
 *
 * It never holds a password: only salted scrypt hashes. The session secret signs session cookies; each user's
 * `generation` is copied into their cookies, and raising it (removal, demotion, password reset, sign-out everywhere)
 * makes every older cookie of that user invalid on its next request.
 *
 * A version 1 file (`{version: 1, username, password_hash, session_secret, created_at}`, one shared login) is still
 * read: its user is an admin with generation 0, and the next write stores it as version 2.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../config/atomic-file.js';
import { isUiRole, type UiRole } from './roles.js';

/** One UI user. */
export interface AuthUser {
  username: string;
  role: UiRole;
  password_hash: string;
  /** Copied into the user's session cookies; a cookie with another generation is signed out. */
  generation: number;
  created_at: string;
}

/** The auth file's content (always version 2 in memory; a version 1 file is converted when read). */
export interface AuthFile {
  version: 2;
  session_secret: string;
  created_at: string;
  users: AuthUser[];
}

/** scrypt cost parameters: N=2^14, r=8, p=1 (about 16 MiB and tens of ms per hash: slow for guessing, fine for a login). */
const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/** Shortest password accepted by `ui reset-password` and the first-start prompt. */
export const MIN_PASSWORD_LENGTH = 8;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 128 * n * r * 2 }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url) for `password`, with a fresh 16-byte salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True when `password` matches `stored`; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((v) => Number.isInteger(v) && v > 0) || n > 1 << 20) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await scrypt(password, Buffer.from(parts[4]!, 'base64url'), n, r, p);
  return timingSafeEqual(actual, expected);
}

/** Check a username and password a person chose; throws ConfigError naming what is wrong. */
export function checkCredentials(username: string, password: string): void {
  if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(username)) {
    throw new ConfigError(`username '${username}' is not allowed: use 1-64 letters, digits, '_', '.', '@' or '-'`);
  }
  if (password.length < MIN_PASSWORD_LENGTH) throw new ConfigError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
}

/** A new user (generation 0) with the hash of `password`; throws ConfigError for a name or password not allowed. */
export async function newAuthUser(username: string, password: string, role: UiRole): Promise<AuthUser> {
  checkCredentials(username, password);
  return { username, role, password_hash: await hashPassword(password), generation: 0, created_at: new Date().toISOString() };
}

/** Build a new auth file's content: one user (an admin unless `role` says otherwise) and a fresh session secret. */
export async function newAuthFile(username: string, password: string, role: UiRole = 'admin'): Promise<AuthFile> {
  return {
    version: 2,
    session_secret: randomBytes(32).toString('hex'),
    created_at: new Date().toISOString(),
    users: [await newAuthUser(username, password, role)],
  };
}

/** The user named `username`, or undefined. */
export function findUser(file: AuthFile, username: string): AuthUser | undefined {
  return file.users.find((user) => user.username === username);
}

/** Read the auth file; null when it does not exist. Throws ConfigError for a file that is not a valid auth file. */
export async function readAuthFile(file: string): Promise<AuthFile | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`cannot read the auth file ${file}: ${(error as Error).message}`);
  }
  return parseAuthFile(text, file);
}

/** `readAuthFile` without waiting: the server re-reads a changed file on the request that notices the change. */
export function readAuthFileSync(file: string): AuthFile | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`cannot read the auth file ${file}: ${(error as Error).message}`);
  }
  return parseAuthFile(text, file);
}

/** Parse an auth file's text (version 2, or version 1 read as one admin); ConfigError names what is wrong. */
export function parseAuthFile(text: string, file: string): AuthFile {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ConfigError(`the auth file ${file} is not valid JSON; run \`agentkit ui reset-password\` to write a new one`);
  }
  const invalid = () => new ConfigError(`the auth file ${file} is not a version 1 or 2 auth file; run \`agentkit ui reset-password\` to write a new one`);
  if (typeof parsed !== 'object' || parsed === null || typeof parsed.session_secret !== 'string' || !/^[0-9a-f]{64}$/.test(parsed.session_secret)) {
    throw invalid();
  }
  const created = typeof parsed.created_at === 'string' ? parsed.created_at : new Date(0).toISOString();
  if (parsed.version === 1) {
    // The single shared login of a version 1 file: that user administers the UI (ADR 0058).
    if (typeof parsed.username !== 'string' || typeof parsed.password_hash !== 'string') throw invalid();
    return {
      version: 2,
      session_secret: parsed.session_secret,
      created_at: created,
      users: [{ username: parsed.username, role: 'admin', password_hash: parsed.password_hash, generation: 0, created_at: created }],
    };
  }
  if (parsed.version !== 2 || !Array.isArray(parsed.users)) throw invalid();
  const users: AuthUser[] = [];
  for (const entry of parsed.users as Array<Record<string, unknown>>) {
    if (
      typeof entry?.username !== 'string' ||
      !isUiRole(entry.role) ||
      typeof entry.password_hash !== 'string' ||
      !Number.isSafeInteger(entry.generation) ||
      users.some((user) => user.username === entry.username)
    ) {
      throw invalid();
    }
    users.push({
      username: entry.username,
      role: entry.role,
      password_hash: entry.password_hash,
      generation: entry.generation as number,
      created_at: typeof entry.created_at === 'string' ? entry.created_at : created,
    });
  }
  return { version: 2, session_secret: parsed.session_secret, created_at: created, users };
}

/** Write the auth file with mode 0600 (directory created), atomically: a crash leaves the old file or the new one. */
export async function writeAuthFile(file: string, content: AuthFile): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}
