/**
 * Annotations in a local.db file (`trace_annotations`, local.db v5). Reads of a file that does not exist answer empty
 * and create nothing; a write creates the store. Each call opens, uses and closes the file.
 */
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openLocalStore } from '../store/open.js';
import { utcNow } from '../store/time.js';
import type { AnnotationChange, AnnotationStore, TraceAnnotation } from './types.js';

interface AnnotationRow {
  trace_id: string;
  favorite: number;
  note: string | null;
  updated_at: string;
}

export class SqliteAnnotationStore implements AnnotationStore {
  readonly label: string;

  constructor(readonly path: string) {
    this.label = path;
  }

  #read<T>(fn: (db: Database.Database) => T, empty: T): T {
    if (!existsSync(this.path)) return empty;
    const db = openLocalStore(this.path, { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  #ids(where: string): Set<string> {
    return this.#read((db) => new Set(db.prepare(`SELECT trace_id FROM trace_annotations WHERE ${where}`).pluck().all() as string[]), new Set<string>());
  }

  async get(traceId: string): Promise<TraceAnnotation | null> {
    return this.#read((db) => {
      const row = db.prepare('SELECT * FROM trace_annotations WHERE trace_id = ?').get(traceId) as AnnotationRow | undefined;
      return row ? fromRow(row) : null;
    }, null);
  }

  async set(traceId: string, change: AnnotationChange): Promise<TraceAnnotation> {
    const db = openLocalStore(this.path);
    try {
      // One statement: a field not given keeps its stored value, so concurrent writers of different fields both land.
      const row = db
        .prepare(
          `INSERT INTO trace_annotations (trace_id, favorite, note, updated_at) VALUES (@id, coalesce(@favorite, 0), @note, @at)
           ON CONFLICT (trace_id) DO UPDATE SET
             favorite = coalesce(@favorite, favorite),
             note = CASE WHEN @setNote THEN @note ELSE note END,
             updated_at = @at
           RETURNING *`,
        )
        .get({
          id: traceId,
          favorite: change.favorite === undefined ? null : change.favorite ? 1 : 0,
          note: change.note ?? null,
          setNote: change.note === undefined ? 0 : 1,
          at: utcNow(),
        }) as AnnotationRow;
      return fromRow(row);
    } finally {
      db.close();
    }
  }

  async favorites(): Promise<Set<string>> {
    return this.#ids('favorite = 1');
  }

  async marked(): Promise<Set<string>> {
    return this.#ids("favorite = 1 OR coalesce(note, '') <> ''");
  }

  async noted(): Promise<Set<string>> {
    return this.#ids("coalesce(note, '') <> ''");
  }

  async all(): Promise<TraceAnnotation[]> {
    return this.#read((db) => (db.prepare('SELECT * FROM trace_annotations ORDER BY trace_id').all() as AnnotationRow[]).map(fromRow), []);
  }

  async importRows(rows: readonly TraceAnnotation[]): Promise<number> {
    const db = openLocalStore(this.path);
    try {
      const insert = db.prepare('INSERT INTO trace_annotations (trace_id, favorite, note, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (trace_id) DO NOTHING');
      return db.transaction(() => rows.reduce((added, row) => added + insert.run(row.trace_id, row.favorite ? 1 : 0, row.note, row.updated_at).changes, 0))();
    } finally {
      db.close();
    }
  }

  async close(): Promise<void> {}
}

function fromRow(row: AnnotationRow): TraceAnnotation {
  return { trace_id: row.trace_id, favorite: row.favorite === 1, note: row.note, updated_at: row.updated_at };
}
