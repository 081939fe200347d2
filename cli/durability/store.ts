/**
 * Which checkpoint store a durability command reads: `--db-path` (SQLite; default the configured local store) or
 * `--connection-string` + `--schema` (Postgres). Read-only commands never create a store: a missing default SQLite
 * file or an unprovisioned Postgres schema reads as empty; a `--db-path` naming no file, or a folder, is an error.
 */
import { UsageError } from 'clipanion';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkpointDbPath } from '../../src/config/paths.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import type { AgentkitContext } from '../context.js';
import { namedStore } from '../store-path.js';
import { checkStorePath } from '../../src/store/open.js';

export interface StoreFlags {
  dbPath?: string;
  connectionString?: string;
  schema?: string;
}

/** The store named by the flags, or null when it does not exist yet. The caller closes it. */
export async function openExistingStore(flags: StoreFlags, context: AgentkitContext): Promise<Checkpointer | null> {
  if (flags.dbPath !== undefined && flags.connectionString !== undefined) {
    throw new UsageError('give either --db-path (SQLite) or --connection-string (Postgres), not both');
  }
  if (flags.schema !== undefined && flags.connectionString === undefined) {
    throw new UsageError('--schema selects a Postgres schema; it needs --connection-string');
  }
  if (flags.connectionString !== undefined) {
    const checkpointer = new PostgresCheckpointer(flags.connectionString, { schema: flags.schema ?? 'agentkit', minPoolSize: 0, maxPoolSize: 2 });
    if (await checkpointer.isSetUp()) return checkpointer;
    await checkpointer.close();
    return null;
  }
  // A named --db-path must exist (a typo must not read as "no pending interrupts"); the default store may not yet.
  const file = namedStore(context.cwd, flags.dbPath, { readOnly: true }) ?? checkpointDbPath({ env: context.env, cwd: context.cwd });
  if (!existsSync(file)) return null;
  checkStorePath(file, true);
  return new SQLiteCheckpointer(file);
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

/** The store the flags name, as an error message names it: the SQLite file, or the Postgres schema. */
export function storeLabel(flags: StoreFlags, context: AgentkitContext): string {
  if (flags.connectionString !== undefined) return `Postgres schema "${flags.schema ?? 'agentkit'}"`;
  return flags.dbPath !== undefined ? path.resolve(context.cwd, flags.dbPath) : checkpointDbPath({ env: context.env, cwd: context.cwd });
}
