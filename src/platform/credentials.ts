/**
 * The credentials file `~/.agentkit/credentials.toml` (HOME honoured): the Platform API key, target and project saved
 * by `agentkit connect`. Written atomically (a 0600 temp file in the same 0700 folder, then rename), so a reader
 * never sees half a file and the key is never world-readable, not even for an instant. Parsed with smol-toml.
 *
 * Resolution (`loadCredentials`): the environment variables AGENTKIT_API_KEY, AGENTKIT_TARGET and AGENTKIT_PROJECT
 * always win over the file, field by field; the source is `env` when the key comes from the environment.
 * Every key loaded is registered as a secret at once, so redaction covers it before anything can print it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { registerSecret } from '../config/secrets.js';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../config/atomic-file.js';

/** Where the Platform lives when neither `--target`, the file nor AGENTKIT_TARGET says otherwise. */
export const DEFAULT_TARGET = 'https://platform.agentkit.dev';

/** What the credentials file holds. `project` null means the key's default project. */
export interface Credentials {
  apiKey: string;
  target: string;
  project: string | null;
}

/** Credentials plus where the key came from. */
export interface ResolvedCredentials extends Credentials {
  source: 'env' | 'file';
}

export interface CredentialsWhere {
  env?: Record<string, string | undefined>;
  /** Home directory (default HOME, else the OS's). */
  home?: string;
}

/** `<home>/.agentkit/credentials.toml`. */
export function credentialsPath(where: CredentialsWhere = {}): string {
  const env = where.env ?? process.env;
  return path.join(where.home ?? (env.HOME || os.homedir()), '.agentkit', 'credentials.toml');
}

/**
 * Check and normalise a target URL: `http://` or `https://`, no credentials, query or fragment; trailing slashes
 * dropped. Throws ConfigError naming what is wrong.
 */
export function normalizeTarget(target: string): string {
  let url: URL;
  try {
    url = new URL(target.trim());
  } catch {
    throw new ConfigError(`invalid Platform target '${target}': expected an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`invalid Platform target '${target}': expected an http:// or https:// URL`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(`invalid Platform target '${url.origin}': no credentials, query or fragment allowed in the URL`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The file's content, or null when there is no file. Throws ConfigError for an unreadable or malformed file. */
export function readCredentialsFile(where: CredentialsWhere = {}): Credentials | null {
  const file = credentialsPath(where);
  if (!existsSync(file)) return null;
  let data: Record<string, unknown>;
  try {
    data = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message.split('\n')[0]}; run \`agentkit connect\` again`);
  }
  const apiKey = typeof data.api_key === 'string' ? data.api_key.trim() : '';
  if (!apiKey) throw new ConfigError(`${file} holds no api_key; run \`agentkit connect\` again`);
  registerSecret(apiKey);
  return {
    apiKey,
    target: typeof data.target === 'string' && data.target ? data.target : DEFAULT_TARGET,
    project: typeof data.project === 'string' && data.project ? data.project : null,
  };
}

/**
 * The Platform target configured anywhere: AGENTKIT_TARGET, else the credentials file's `target`; null when neither
 * names one (`agentkit connect` then asks for `--target`: there is no default Platform, docs/adr/0054).
 */
export function configuredTarget(where: CredentialsWhere = {}): string | null {
  const env = where.env ?? process.env;
  const fromEnv = env.AGENTKIT_TARGET?.trim();
  if (fromEnv) return fromEnv;
  const file = credentialsPath(where);
  if (!existsSync(file)) return null;
  try {
    const data = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return typeof data.target === 'string' && data.target.trim() ? data.target.trim() : null;
  } catch {
    return null;
  }
}

/**
 * The credentials in effect: environment variables win over the file field by field. Null when neither the
 * environment nor the file holds a key.
 */
export function loadCredentials(where: CredentialsWhere = {}): ResolvedCredentials | null {
  const env = where.env ?? process.env;
  const envKey = env.AGENTKIT_API_KEY?.trim();
  const file = envKey ? safeRead(where) : readCredentialsFile(where);
  if (envKey) registerSecret(envKey);
  const apiKey = envKey || file?.apiKey;
  if (!apiKey) return null;
  return {
    source: envKey ? 'env' : 'file',
    apiKey,
    target: normalizeTarget(env.AGENTKIT_TARGET?.trim() || file?.target || DEFAULT_TARGET),
    project: env.AGENTKIT_PROJECT?.trim() || file?.project || null,
  };
}

/** With the key in the environment a broken file must not stop anything: it only supplies missing fields. */
function safeRead(where: CredentialsWhere): Credentials | null {
  try {
    return readCredentialsFile(where);
  } catch {
    return null;
  }
}

/** Write the file atomically (see writeFileAtomic): mode 0600 in the 0700 folder. */
export function writeCredentialsFile(credentials: Credentials, where: CredentialsWhere = {}): string {
  const file = credentialsPath(where);
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const body: Record<string, string> = { api_key: credentials.apiKey, target: normalizeTarget(credentials.target) };
  if (credentials.project) body.project = credentials.project;
  const text = `# agentkit credentials: managed by \`agentkit connect\`. Do not share.\n\n${stringify(body)}\n`;
  writeFileAtomic(file, text, { mode: 0o600 });
  return file;
}

/** Delete the file; true when there was one. */
export function removeCredentialsFile(where: CredentialsWhere = {}): boolean {
  const file = credentialsPath(where);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

/** `<first 6>…<last 4>`; keys of 12 characters or fewer show only their last 2. */
export function maskKey(key: string): string {
  if (key.length <= 12) return `…${key.slice(-2)}`;
  return `${key.slice(0, 6)}…${key.slice(-4)}`;
}
