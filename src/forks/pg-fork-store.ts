/**
 * Forks in a Postgres store: the `ui_forks` table in the store's schema, keyed by (project, fork id), with the forks
 * family's own migration list (run once per handle, under the family's advisory lock). JSON columns are the JSON text
 * written, as local.db holds it; times are TIMESTAMPTZ read back as the same ISO text (microseconds, `Z`).
 */
import type { PgFamily } from '../store/pg-family-schema.js';
import { PgFamilyTables } from '../store/pg-family-tables.js';
import type { Store } from '../store/store-handle.js';
import { pgIsoText } from '../store/pg-text.js';
import { utcNow } from '../store/time.js';
import { fromRow, type ForkRow } from './rows.js';
import type { ForkStore, StoredFork } from './types.js';

/** The forks family's tables on a Postgres store. */
export const PG_FORK_FAMILY: PgFamily = {
  name: 'forks',
  versionTable: 'fork_schema_version',
  tables: 'UI fork tables',
  migrations: [
    {
      description: 'v1 ui_forks: a replay fork (source trace, step, modifications, latest rerun), keyed by project and id',
      sql: (s) => `
        CREATE TABLE ${s}.ui_forks (
          project TEXT NOT NULL DEFAULT '',
          fork_id TEXT NOT NULL,
          trace_id TEXT NOT NULL,
          step INTEGER NOT NULL,
          modifications TEXT NOT NULL,
          rerun TEXT,
          created_at TIMESTAMPTZ NOT NULL,
          updated_at TIMESTAMPTZ NOT NULL,
          PRIMARY KEY (project, fork_id)
        );`,
    },
  ],
};

const ISO = pgIsoText;
const COLUMNS = `fork_id, trace_id, step, modifications, rerun, ${ISO('created_at')} AS created_at, ${ISO('updated_at')} AS updated_at`;

export class PgForkStore implements ForkStore {
  readonly label: string;
  readonly #tables: PgFamilyTables;

  /** Forks of `project` ('' for a store of one project) in `store`, a Postgres store this handle closes. */
  constructor(store: Store, project = '') {
    this.#tables = new PgFamilyTables(store, PG_FORK_FAMILY, project);
    this.label = store.label;
  }

  get #s(): string {
    return this.#tables.s;
  }

  get #project(): string {
    return this.#tables.project;
  }

  async create(fork: Pick<StoredFork, 'fork_id' | 'trace_id' | 'step' | 'modifications'>): Promise<StoredFork> {
    const pool = await this.#tables.writable();
    const at = utcNow();
    await pool.query(
      `INSERT INTO ${this.#s}.ui_forks (project, fork_id, trace_id, step, modifications, rerun, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, NULL, $6, $6)`,
      [this.#project, fork.fork_id, fork.trace_id, fork.step, JSON.stringify(fork.modifications), at],
    );
    return { ...fork, rerun: null, created_at: at, updated_at: at };
  }

  async get(forkId: string): Promise<StoredFork | null> {
    const pool = await this.#tables.writable();
    const result = await pool.query<ForkRow>(`SELECT ${COLUMNS} FROM ${this.#s}.ui_forks WHERE project = $1 AND fork_id = $2`, [this.#project, forkId]);
    return result.rows[0] ? fromRow(result.rows[0]) : null;
  }

  async update(forkId: string, changes: { modifications?: StoredFork['modifications']; rerun?: StoredFork['rerun'] }): Promise<StoredFork | null> {
    const pool = await this.#tables.writable();
    const result = await pool.query<ForkRow>(
      `UPDATE ${this.#s}.ui_forks SET modifications = coalesce($3, modifications), rerun = CASE WHEN $4 THEN $5 ELSE rerun END, updated_at = $6
       WHERE project = $1 AND fork_id = $2 RETURNING ${COLUMNS}`,
      [
        this.#project,
        forkId,
        changes.modifications === undefined ? null : JSON.stringify(changes.modifications),
        changes.rerun !== undefined,
        changes.rerun == null ? null : JSON.stringify(changes.rerun),
        utcNow(),
      ],
    );
    return result.rows[0] ? fromRow(result.rows[0]) : null;
  }

  async all(): Promise<StoredFork[]> {
    const pool = await this.#tables.readable();
    if (!pool) return [];
    const result = await pool.query<ForkRow>(`SELECT ${COLUMNS} FROM ${this.#s}.ui_forks WHERE project = $1 ORDER BY created_at, fork_id`, [this.#project]);
    return result.rows.map(fromRow);
  }

  async importRows(forks: readonly StoredFork[]): Promise<number> {
    if (forks.length === 0) return 0;
    const pool = await this.#tables.writable();
    const result = await pool.query(
      `INSERT INTO ${this.#s}.ui_forks (project, fork_id, trace_id, step, modifications, rerun, created_at, updated_at)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[])
       ON CONFLICT (project, fork_id) DO NOTHING`,
      [
        this.#project,
        forks.map((f) => f.fork_id),
        forks.map((f) => f.trace_id),
        forks.map((f) => f.step),
        forks.map((f) => JSON.stringify(f.modifications)),
        forks.map((f) => (f.rerun === null ? null : JSON.stringify(f.rerun))),
        forks.map((f) => f.created_at),
        forks.map((f) => f.updated_at),
      ],
    );
    return result.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.#tables.close();
  }
}
