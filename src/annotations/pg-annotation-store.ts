/**
 * Annotations in a Postgres store: `trace_annotations` in the store's schema, keyed by (project, trace id), with the
 * annotations family's own migration list (store/pg-family-schema.ts). Reads of a schema the family never reached
 * answer empty and create nothing; the first write migrates it.
 */
import type { PgFamily } from '../store/pg-family-schema.js';
import { PgFamilyTables } from '../store/pg-family-tables.js';
import type { Store } from '../store/store-handle.js';
import { decodePgString, encodePgString, pgIsoText } from '../store/pg-text.js';
import { utcNow } from '../store/time.js';
import type { AnnotationChange, AnnotationStore, TraceAnnotation } from './types.js';

/** The annotations family's tables on a Postgres store. */
export const PG_ANNOTATION_FAMILY: PgFamily = {
  name: 'annotations',
  versionTable: 'annotation_schema_version',
  tables: 'trace annotation tables',
  migrations: [
    {
      description: 'v1 trace_annotations: a favorite flag and a note per trace, keyed by project and trace id',
      sql: (s) => `
        CREATE TABLE ${s}.trace_annotations (
          project TEXT NOT NULL DEFAULT '',
          trace_id TEXT NOT NULL,
          favorite BOOLEAN NOT NULL DEFAULT FALSE,
          note TEXT,
          updated_at TIMESTAMPTZ NOT NULL,
          PRIMARY KEY (project, trace_id)
        );`,
    },
  ],
};

interface AnnotationRow {
  trace_id: string;
  favorite: boolean;
  note: string | null;
  updated_at: string;
}

const COLUMNS = `trace_id, favorite, note, ${pgIsoText('updated_at')} AS updated_at`;

export class PgAnnotationStore implements AnnotationStore {
  readonly label: string;
  readonly #tables: PgFamilyTables;

  /** Annotations of `project` ('' for a store of one project) in `store`, a Postgres store this handle closes. */
  constructor(store: Store, project = '') {
    this.#tables = new PgFamilyTables(store, PG_ANNOTATION_FAMILY, project);
    this.label = store.label;
  }

  get #s(): string {
    return this.#tables.s;
  }

  get #project(): string {
    return this.#tables.project;
  }

  async #ids(where: string): Promise<Set<string>> {
    const pool = await this.#tables.readable();
    if (!pool) return new Set();
    const result = await pool.query<{ trace_id: string }>(`SELECT trace_id FROM ${this.#s}.trace_annotations WHERE project = $1 AND (${where})`, [
      this.#project,
    ]);
    return new Set(result.rows.map((row) => row.trace_id));
  }

  async get(traceId: string): Promise<TraceAnnotation | null> {
    const pool = await this.#tables.readable();
    if (!pool) return null;
    const result = await pool.query<AnnotationRow>(`SELECT ${COLUMNS} FROM ${this.#s}.trace_annotations WHERE project = $1 AND trace_id = $2`, [
      this.#project,
      traceId,
    ]);
    return result.rows[0] ? fromRow(result.rows[0]) : null;
  }

  async set(traceId: string, change: AnnotationChange): Promise<TraceAnnotation> {
    const pool = await this.#tables.writable();
    const result = await pool.query<AnnotationRow>(
      `INSERT INTO ${this.#s}.trace_annotations AS a (project, trace_id, favorite, note, updated_at) VALUES ($1, $2, coalesce($3, FALSE), $4, $6)
       ON CONFLICT (project, trace_id) DO UPDATE SET
         favorite = coalesce($3, a.favorite),
         note = CASE WHEN $5 THEN $4 ELSE a.note END,
         updated_at = $6
       RETURNING ${COLUMNS}`,
      [this.#project, traceId, change.favorite ?? null, change.note == null ? null : encodePgString(change.note), change.note !== undefined, utcNow()],
    );
    return fromRow(result.rows[0]!);
  }

  async favorites(): Promise<Set<string>> {
    return this.#ids('favorite');
  }

  async marked(): Promise<Set<string>> {
    return this.#ids("favorite OR coalesce(note, '') <> ''");
  }

  async noted(): Promise<Set<string>> {
    return this.#ids("coalesce(note, '') <> ''");
  }

  async all(): Promise<TraceAnnotation[]> {
    const pool = await this.#tables.readable();
    if (!pool) return [];
    const result = await pool.query<AnnotationRow>(`SELECT ${COLUMNS} FROM ${this.#s}.trace_annotations WHERE project = $1 ORDER BY trace_id`, [this.#project]);
    return result.rows.map(fromRow);
  }

  async importRows(rows: readonly TraceAnnotation[]): Promise<number> {
    if (rows.length === 0) return 0;
    const pool = await this.#tables.writable();
    const result = await pool.query(
      `INSERT INTO ${this.#s}.trace_annotations (project, trace_id, favorite, note, updated_at)
       SELECT $1, * FROM unnest($2::text[], $3::boolean[], $4::text[], $5::timestamptz[])
       ON CONFLICT (project, trace_id) DO NOTHING`,
      [
        this.#project,
        rows.map((row) => row.trace_id),
        rows.map((row) => row.favorite),
        rows.map((row) => (row.note === null ? null : encodePgString(row.note))),
        rows.map((row) => row.updated_at),
      ],
    );
    return result.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.#tables.close();
  }
}

/** A row as the interface gives it: the note decoded (NUL is stored escaped, as the checkpointer does). */
function fromRow(row: AnnotationRow): TraceAnnotation {
  return { trace_id: row.trace_id, favorite: row.favorite, note: row.note === null ? null : decodePgString(row.note), updated_at: row.updated_at };
}
