/**
 * Trace favorites, stored in the local store's `trace_annotations` table (one row per annotated trace). `eval curate
 * --filter favorites` reads the same rows.
 */
import { existsSync } from 'node:fs';
import { AgentkitError } from '../errors.js';
import { openLocalStore } from '../store/open.js';

/**
 * Favorite flags of the local store at `dbPath`; `null` for a Postgres store, which holds no favorites yet (issue 38:
 * the family's Postgres table is future work): it reads as none and a write is refused (`not_implemented`).
 */
export class FavoriteStore {
  constructor(readonly dbPath: string | null) {}

  /** Trace ids marked as favorites. Empty when the store does not exist. */
  all(): Set<string> {
    if (this.dbPath === null || !existsSync(this.dbPath)) return new Set();
    const db = openLocalStore(this.dbPath, { readonly: true });
    try {
      const rows = db.prepare('SELECT trace_id FROM trace_annotations WHERE favorite = 1').all() as Array<{ trace_id: string }>;
      return new Set(rows.map((row) => row.trace_id));
    } finally {
      db.close();
    }
  }

  /** Whether one trace is a favorite. */
  get(traceId: string): boolean {
    if (this.dbPath === null || !existsSync(this.dbPath)) return false;
    const db = openLocalStore(this.dbPath, { readonly: true });
    try {
      const row = db.prepare('SELECT favorite FROM trace_annotations WHERE trace_id = ?').get(traceId) as { favorite: number } | undefined;
      return row?.favorite === 1;
    } finally {
      db.close();
    }
  }

  /** Set or clear the mark (an upsert that keeps any note). */
  set(traceId: string, favorite: boolean): void {
    if (this.dbPath === null) throw new AgentkitError('not_implemented', 'Favorites are not stored on a Postgres store yet; mark favorites on a SQLite store.');
    const db = openLocalStore(this.dbPath);
    try {
      db.prepare(
        `INSERT INTO trace_annotations (trace_id, favorite, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(trace_id) DO UPDATE SET favorite = excluded.favorite, updated_at = excluded.updated_at`,
      ).run(traceId, favorite ? 1 : 0, new Date().toISOString());
    } finally {
      db.close();
    }
  }
}
