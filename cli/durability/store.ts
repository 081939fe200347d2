/**
 * Which checkpoint store a durability command reads: `--db <path|url>` (its alias `--db-path`: a SQLite file or a
 * `postgres://...?schema=` URL), the spec's `--connection-string` + `--schema` (Postgres), else the configured store
 * (`AGENTKIT_LOCAL_DB`, a path or a URL; else the legacy `AGENTKIT_CHECKPOINT_DB_PATH`; else `./.agentkit/local.db`).
 * Read-only commands never create a store: a missing default SQLite file or an unprovisioned Postgres schema reads as
 * empty; a named file that does not exist, or a folder, is an error. Stores are named redacted (no password).
 */
import { UsageError } from 'clipanion';
import { existsSync } from 'node:fs';
import { checkpointStore } from '../../src/config/paths.js';
import { isStoreUrl, parseStoreValue, storeLabel as labelOf, type StoreRef } from '../../src/config/store-value.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { openStore } from '../../src/store/store-handle.js';
import type { AgentkitContext } from '../context.js';
import { checkStorePath } from '../../src/store/open.js';

export interface StoreFlags {
  /** `--db` / `--db-path`: a SQLite file or a Postgres URL. */
  dbPath?: string;
  connectionString?: string;
  schema?: string;
}

/** The store the flags name (or the configured one), parsed; refuses conflicting flags (UsageError). */
export function storeOfFlags(flags: StoreFlags, context: AgentkitContext): StoreRef {
  if (flags.dbPath !== undefined && flags.connectionString !== undefined) {
    throw new UsageError('give either --db (a file or a postgres:// URL) or --connection-string (Postgres), not both');
  }
  if (flags.schema !== undefined && flags.connectionString === undefined) {
    throw new UsageError('--schema selects a Postgres schema; it needs --connection-string (or give --db postgres://...?schema=<name>)');
  }
  if (flags.connectionString !== undefined) {
    const ref = parseStoreValue(flags.connectionString, context.cwd);
    if (ref.engine !== 'postgres') throw new UsageError('--connection-string takes a postgres:// URL');
    return flags.schema === undefined ? ref : parseStoreValue(withSchema(flags.connectionString, flags.schema), context.cwd);
  }
  if (flags.dbPath !== undefined) return parseStoreValue(flags.dbPath, context.cwd);
  return checkpointStore({ env: context.env, cwd: context.cwd });
}

/** `url` with its `schema` parameter set to `schema` (validated when parsed). */
export function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}

/** The store named by the flags, or null when it does not exist yet. The caller closes it. */
export async function openExistingStore(flags: StoreFlags, context: AgentkitContext): Promise<Checkpointer | null> {
  const ref = storeOfFlags(flags, context);
  if (ref.engine === 'postgres') {
    const checkpointer = new PostgresCheckpointer(openStore(ref), { minPoolSize: 0, maxPoolSize: 2 });
    if (await checkpointer.isSetUp()) return checkpointer;
    await checkpointer.close();
    return null;
  }
  // A named file must exist (a typo must not read as "no pending interrupts"); the default store may not yet.
  const named = flags.dbPath !== undefined && !isStoreUrl(flags.dbPath);
  if (named) checkStorePath(ref.path, true);
  if (!existsSync(ref.path)) return null;
  checkStorePath(ref.path, true);
  return new SQLiteCheckpointer(ref.path);
}

/** Read from the store named by the flags and close it; `empty` when the store does not exist yet. */
export async function readExistingStore<T>(
  flags: StoreFlags,
  context: AgentkitContext,
  read: (checkpointer: Checkpointer) => Promise<T>,
  empty: T,
): Promise<T> {
  const checkpointer = await openExistingStore(flags, context);
  if (!checkpointer) return empty;
  try {
    return await read(checkpointer);
  } finally {
    await checkpointer.close();
  }
}

/** The store the flags name, as an error message names it: the SQLite file, or the Postgres schema (never a password). */
export function storeLabel(flags: StoreFlags, context: AgentkitContext): string {
  const ref = storeOfFlags(flags, context);
  return ref.engine === 'postgres' ? `Postgres schema "${ref.schema}"` : labelOf(ref);
}
