/**
 * `agentkit migrate`: carry history from the older stores into local.db, once per source. Sources (defaults relative
 * to the working directory): `.agentkit/traces.db`, `.agentkit/checkpoints.db`, `.prompts/`. Each source is imported
 * in one transaction together with its row in `legacy_imports`, so it is all or nothing and recorded; a recorded
 * source is skipped unless `force` (which copies again, leaving rows already present alone, so nothing is imported
 * twice). Imported spans, checkpoints and prompt versions are marked synced: never pushed to a Platform. A source that
 * is the target itself, or missing, is skipped. Nothing is ever sent anywhere.
 */
import Database from 'better-sqlite3';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { localDbPath, type Where } from '../config/paths.js';
import { openLocalStore } from '../store/open.js';
import { utcNow } from '../store/time.js';
import { LegacySourceError } from './errors.js';
import { importPromptDir } from './prompt-dir.js';
import { importCheckpoints, importSpans } from './stores.js';

export type LegacyKind = 'traces' | 'checkpoints' | 'prompts';

export interface ImportLegacyOptions extends Where {
  /** Target store (default `AGENTKIT_LOCAL_DB`, else ./.agentkit/local.db). */
  dbPath?: string;
  /** Legacy trace store (default ./.agentkit/traces.db). */
  traceDb?: string;
  /** Legacy checkpoint store (default ./.agentkit/checkpoints.db). */
  checkpointDb?: string;
  /** Legacy prompt directory (default ./.prompts). */
  promptDir?: string;
  /** Import sources already recorded as imported again (rows already present are still not duplicated). */
  force?: boolean;
}

export type SourceStatus = 'imported' | 'already_imported' | 'absent' | 'same_as_target' | 'failed';

export interface SourceReport {
  kind: LegacyKind;
  /** The source's resolved path. */
  source: string;
  status: SourceStatus;
  /** Rows copied (and `<name>_present`: rows already there), for `imported`. */
  counts: Record<string, number>;
  /** When it was first recorded as imported, for `already_imported`. */
  imported_at?: string;
  /** One line, for `failed`. */
  error?: string;
  warnings: string[];
}

export interface ImportLegacyReport {
  target: string;
  sources: SourceReport[];
  /** True when any source failed. */
  failed: boolean;
}

/** Import every legacy source; returns a report per source. Throws only when the target store cannot be opened. */
export async function importLegacyStores(options: ImportLegacyOptions = {}): Promise<ImportLegacyReport> {
  const cwd = options.cwd ?? process.cwd();
  const target = options.dbPath ? path.resolve(cwd, options.dbPath) : localDbPath(options);
  const sources: Array<{ kind: LegacyKind; source: string }> = [
    { kind: 'traces', source: path.resolve(cwd, options.traceDb ?? path.join('.agentkit', 'traces.db')) },
    { kind: 'checkpoints', source: path.resolve(cwd, options.checkpointDb ?? path.join('.agentkit', 'checkpoints.db')) },
    { kind: 'prompts', source: path.resolve(cwd, options.promptDir ?? '.prompts') },
  ];
  const reports: SourceReport[] = [];
  let db: Database.Database | undefined;
  try {
    for (const { kind, source } of sources) {
      const base: SourceReport = { kind, source, status: 'absent', counts: {}, warnings: [] };
      if (!existsSync(source)) {
        reports.push(base);
        continue;
      }
      if (existsSync(target) && realpathSync(source) === realpathSync(target)) {
        reports.push({ ...base, status: 'same_as_target' });
        continue;
      }
      db ??= openLocalStore(target);
      reports.push(importOne(db, kind, source, shownPath(cwd, source), options.force === true, base));
    }
  } finally {
    db?.close();
  }
  return { target, sources: reports, failed: reports.some((r) => r.status === 'failed') };
}

function importOne(db: Database.Database, kind: LegacyKind, source: string, shown: string, force: boolean, base: SourceReport): SourceReport {
  const key = realpathSync(source);
  const recorded = db.prepare('SELECT imported_at FROM legacy_imports WHERE kind = ? AND source = ?').get(kind, key) as { imported_at: string } | undefined;
  if (recorded && !force) return { ...base, status: 'already_imported', imported_at: recorded.imported_at };
  let legacy: Database.Database | undefined;
  try {
    if (kind !== 'prompts') legacy = openLegacy(source, shown);
    const result = db
      .transaction(() => {
        const outcome =
          kind === 'prompts'
            ? importPromptDir(source, db, shown)
            : { counts: (kind === 'traces' ? importSpans : importCheckpoints)(legacy!, db, shown), warnings: [] };
        db.prepare(
          'INSERT INTO legacy_imports (kind, source, imported_at, counts) VALUES (?, ?, ?, ?) ON CONFLICT(kind, source) DO UPDATE SET imported_at = excluded.imported_at, counts = excluded.counts',
        ).run(kind, key, utcNow(), JSON.stringify(outcome.counts));
        return outcome;
      })
      .immediate();
    return { ...base, status: 'imported', counts: result.counts, warnings: result.warnings };
  } catch (error) {
    const message = error instanceof LegacySourceError ? error.message : `${shown}: ${error instanceof Error ? error.message : String(error)}`;
    return { ...base, status: 'failed', error: message };
  } finally {
    legacy?.close();
  }
}

/** Open a legacy SQLite file read-only; a file that is not SQLite is a LegacySourceError naming it. */
function openLegacy(source: string, shown: string): Database.Database {
  if (statSync(source).isDirectory()) throw new LegacySourceError(`${shown} is a directory, not a SQLite store`);
  let db: Database.Database | undefined;
  try {
    db = new Database(source, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return db;
  } catch (error) {
    db?.close();
    throw new LegacySourceError(`${shown} is not a readable SQLite store (${error instanceof Error ? error.message : String(error)})`);
  }
}

function shownPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
