/**
 * Installing a store written by an older agentkit, from a committed fixture: on SQLite its file, on Postgres its rows
 * (`postgres-rows.json`: every column as text) replayed into a schema built by the migrations up to its version, so
 * the old layout and its rows are what the code under test opens and upgrades.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PG_MIGRATIONS } from '../../src/durability/postgres-migrations.js';
import type { Backend } from './backends.js';

/** A fixture's `postgres-rows.json`: the schema version and each table's rows, every column as text. */
export interface PgFixture {
  schema_version: number;
  tables: Record<string, Array<Record<string, string | null>>>;
}

export async function readPgFixture(dir: string): Promise<PgFixture> {
  return JSON.parse(await readFile(path.join(dir, 'postgres-rows.json'), 'utf8')) as PgFixture;
}

/**
 * Put the old store of fixture folder `dir` where `backend`'s checkpointer opens it. Throws when the SQLite file is
 * not at `sqliteVersion` (a fixture re-made by newer code would prove nothing).
 */
export async function installOldStore(backend: Backend, dir: string, sqliteVersion: number): Promise<void> {
  if (backend.kind === 'sqlite') {
    await mkdir(path.dirname(backend.dbPath), { recursive: true });
    await copyFile(path.join(dir, 'local.db'), backend.dbPath);
    const db = new Database(backend.dbPath, { readonly: true });
    try {
      const version = db.pragma('user_version', { simple: true });
      if (version !== sqliteVersion) throw new Error(`the fixture ${dir}/local.db is at v${String(version)}, not v${sqliteVersion}`);
    } finally {
      db.close();
    }
    return;
  }
  if (backend.kind !== 'postgres') throw new Error('a storage backend is needed');
  const fixture = await readPgFixture(dir);
  const client = new pg.Client({ connectionString: backend.url });
  await client.connect();
  try {
    const s = `"${backend.schema}"`;
    await client.query('BEGIN');
    await client.query(
      `CREATE TABLE ${s}.schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    for (let version = 1; version <= fixture.schema_version; version++) {
      await client.query(PG_MIGRATIONS[version - 1]!.sql(s));
      await client.query(`INSERT INTO ${s}.schema_version (version, description) VALUES ($1, $2)`, [version, PG_MIGRATIONS[version - 1]!.description]);
    }
    for (const [table, rows] of Object.entries(fixture.tables)) {
      const types = await client.query<{ column_name: string; data_type: string }>(
        'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
        [backend.schema, table],
      );
      const typeOf = new Map(types.rows.map((r) => [r.column_name, r.data_type]));
      for (const row of rows) {
        const columns = Object.keys(row);
        // Text into each column's own type (jsonb, timestamptz, boolean, bigint...), as the old server stored it.
        await client.query(
          `INSERT INTO ${s}.${table} (${columns.join(', ')}) VALUES (${columns.map((c, i) => `$${i + 1}::${typeOf.get(c)}`).join(', ')})`,
          columns.map((c) => row[c]),
        );
      }
    }
    await client.query(`SELECT setval(pg_get_serial_sequence('${s}.checkpoints', 'seq'), (SELECT max(seq) FROM ${s}.checkpoints))`);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}
