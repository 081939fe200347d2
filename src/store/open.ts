/**
 * Opening local.db: directory 0700 and file 0600 when created, WAL with synchronous=NORMAL (durable across a
 * process crash; a power loss may drop the last commits), a busy timeout so concurrent processes wait instead of
 * failing, then the migration ladder.
 */
import Database from 'better-sqlite3';
import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { StoreOpenError, StoreVersionError } from './errors.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, schemaVersion } from './migrations.js';

export interface OpenOptions {
  /** Migrate only up to this version (tests build old stores with it). Default: the latest. */
  targetVersion?: number;
  /** Open read-only; the store must exist and be current or older (no migration runs). */
  readonly?: boolean;
  /** How long a writer waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

/** How long a connection waits for another's lock unless told otherwise (`busyTimeoutMs`), in ms. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** The size a WAL file is cut back to when SQLite starts it over. */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Open (creating if needed) and migrate the store at `file`. The caller owns the connection and closes it. Throws
 * StoreOpenError naming the path when it is a folder, not a SQLite database, missing (read-only) or cannot be created.
 */
export function openLocalStore(file: string, options: OpenOptions = {}): Database.Database {
  const target = options.targetVersion ?? LATEST_SCHEMA_VERSION;
  checkStorePath(file, options.readonly === true);
  let db: Database.Database;
  try {
    if (!options.readonly) createPrivately(file);
    db = new Database(file, { readonly: options.readonly === true, fileMustExist: options.readonly === true });
  } catch (error) {
    throw storeOpenError(file, error);
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    if (!options.readonly) {
      // A new store gets 8 KiB pages (ADR 0029): checkpoint rows of a step's output (often 1-2 KB, delta rows)
      // left a third of each 4 KiB page empty. Only takes effect before the first table; older stores keep theirs.
      if ((db.pragma('page_count', { simple: true }) as number) === 0) db.pragma('page_size = 8192');
      // Switching to WAL while another connection holds a write lock in rollback mode (a new store that another
      // process or thread is creating) fails at once with SQLITE_BUSY: SQLite skips the busy handler there to avoid
      // a deadlock. It is retried until the busy timeout, like any other lock wait.
      retryWhileBusy(() => db.pragma('journal_mode = WAL'), options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
      db.pragma('synchronous = NORMAL');
      // A WAL that grew large (a long burst of writes) is cut back to this size when it starts over (wal-keeper.ts).
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    }
    db.pragma('foreign_keys = ON');
    if (options.readonly) refuseNewer(db, file);
    else migrate(db, file, target);
    return db;
  } catch (error) {
    db.close();
    throw error instanceof StoreVersionError ? error : storeOpenError(file, error);
  }
}

/** Run `step` again every 10 ms while it throws SQLITE_BUSY, for at most `timeoutMs`; then its error stands. */
function retryWhileBusy<T>(step: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return step();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      // A synchronous pause: the open is synchronous, and the lock holder is another thread or process.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** Refuse, before SQLite sees it, a path that cannot be a store: a folder, or a missing file for a read-only open. */
export function checkStorePath(file: string, readonly: boolean): void {
  let isFolder = false;
  try {
    isFolder = statSync(file).isDirectory();
  } catch {
    if (readonly) throw new StoreOpenError(file, `store not found: ${file} does not exist (expected the agentkit SQLite store file, e.g. .agentkit/local.db)`);
    return;
  }
  if (isFolder) {
    throw new StoreOpenError(file, `store ${file} is a folder; expected the agentkit SQLite store file (e.g. ${path.join(file, 'local.db')})`);
  }
}

/** A SQLite or file-system failure as a StoreOpenError naming the path and what was expected. */
function storeOpenError(file: string, error: unknown): Error {
  if (error instanceof StoreOpenError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  if (code === 'SQLITE_NOTADB' || /file is not a database/i.test(reason)) {
    return new StoreOpenError(file, `store ${file} is not a SQLite database; expected the agentkit SQLite store file (e.g. .agentkit/local.db)`, {
      cause: error,
    });
  }
  // A busy or locked database is contention, not a bad path: it keeps its own error for callers that wait and retry.
  if (typeof code === 'string' && /^SQLITE_(?:BUSY|LOCKED)/.test(code)) return error as Error;
  if (code === 'SQLITE_CORRUPT') return new StoreOpenError(file, `store ${file} is a corrupt SQLite database (${reason})`, { cause: error });
  if (typeof code === 'string' && (code.startsWith('SQLITE_') || code.startsWith('E'))) {
    return new StoreOpenError(file, `cannot open the store ${file}: ${reason}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(reason);
}

/** Create the directory (0700) and the empty file (0600) before SQLite does, so neither is ever world-readable. */
function createPrivately(file: string): void {
  const dir = path.dirname(file);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

function refuseNewer(db: Database.Database, file: string): void {
  const version = schemaVersion(db);
  if (version > LATEST_SCHEMA_VERSION) throw new StoreVersionError(file, version, LATEST_SCHEMA_VERSION);
}

/**
 * Apply every pending step up to `target`, each in its own IMMEDIATE transaction so two processes opening a new
 * store at once serialize: the second re-reads the version inside its transaction and finds nothing to do.
 * Idempotent; refuses a store written by a newer agentkit.
 */
export function migrate(db: Database.Database, file: string, target = LATEST_SCHEMA_VERSION): void {
  refuseNewer(db, file);
  if (schemaVersion(db) >= target) return;
  for (let version = 1; version <= target; version++) {
    const step = db.transaction(() => {
      if (schemaVersion(db) >= version) return;
      const migration = MIGRATIONS[version - 1]!;
      if (migration.sql.trim()) db.exec(migration.sql);
      db.pragma(`user_version = ${version}`);
    });
    step.immediate();
  }
}
