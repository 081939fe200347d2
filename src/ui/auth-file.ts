/**
 * The local UI's credentials file (default `./.agentkit/auth.json`, mode 0600):
 *
 *   { "version": 1, "username": "admin", "password_hash": "scrypt$16384$8$1$<salt b64url>$<hash b64url>",
 *     "session_secret": "<64 hex>", "created_at": "<ISO-8601>" }
 *
 * It never holds the password: only a salted scrypt hash. The session secret signs session cookies; writing a new
 * file (reset-password) draws a new secret, which signs every existing session out.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../config/atomic-file.js';

export interface AuthFile {
  version: 1;
  username: string;
  password_hash: string;
  session_secret: string;
  created_at: string;
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

/** Build a new auth file's content: the hash of `password` and a fresh session secret. */
export async function newAuthFile(username: string, password: string): Promise<AuthFile> {
  checkCredentials(username, password);
  return {
    version: 1,
    username,
    password_hash: await hashPassword(password),
    session_secret: randomBytes(32).toString('hex'),
    created_at: new Date().toISOString(),
  };
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
  let parsed: Partial<AuthFile>;
  try {
    parsed = JSON.parse(text) as Partial<AuthFile>;
  } catch {
    throw new ConfigError(`the auth file ${file} is not valid JSON; run \`agentkit ui reset-password\` to write a new one`);
  }
  if (
    parsed.version !== 1 ||
    typeof parsed.username !== 'string' ||
    typeof parsed.password_hash !== 'string' ||
    typeof parsed.session_secret !== 'string' ||
    !/^[0-9a-f]{64}$/.test(parsed.session_secret)
  ) {
    throw new ConfigError(`the auth file ${file} is not a version 1 auth file; run \`agentkit ui reset-password\` to write a new one`);
  }
  return parsed as AuthFile;
}

/** Write the auth file with mode 0600 (directory created), atomically: a crash leaves the old file or the new one. */
export async function writeAuthFile(file: string, content: AuthFile): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}
