/**
 * The trace tables of a Postgres store (issue 38): `processes`, `spans` and `trace_keys`, in the store's schema, with
 * their own forward-only migration list (docs/adr/0016: the traces module owns its tables and sits below
 * durability, whose list holds the checkpoint tables). Position in the list = version, recorded in
 * `trace_schema_version`. The whole list runs in one transaction under an advisory lock, so replicas starting at once
 * migrate once and the others find nothing to do; a schema migrated by a newer agentkit is refused with one line
 * naming both versions.
 *
 * Every table carries a `project` column from the start (the Platform keys by it; '' for a store of one project).
 * Span attributes and events are the JSON text the SQLite store holds (the encoder's output, byte for byte), not
 * JSONB: rows round-trip exactly and a batch is not re-parsed on the server.
 */
import type pg from 'pg';
import { StoreVersionError } from '../store/errors.js';
import { migrationPrivilegeError, recordedVersion } from '../store/pg-schema-version.js';

export interface PgTraceMigration {
  readonly description: string;
  /** The statements, for the schema identifier already quoted. */
  readonly sql: (schema: string) => string;
}

export const PG_TRACE_MIGRATIONS: readonly PgTraceMigration[] = [
  {
    description: 'v1 processes (who wrote a span), spans (keyed by project, trace and span), trace_keys (the redaction hash key)',
    sql: (s) => `
      CREATE TABLE ${s}.processes (
        process_id SERIAL PRIMARY KEY,
        project TEXT NOT NULL DEFAULT '',
        service_name TEXT NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        instance_id TEXT NOT NULL,
        started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (project, instance_id, host, pid)
      );
      CREATE TABLE ${s}.spans (
        project TEXT NOT NULL DEFAULT '',
        trace_id TEXT NOT NULL,
        span_id TEXT NOT NULL,
        parent_span_id TEXT,
        name TEXT NOT NULL,
        start_time TIMESTAMPTZ NOT NULL,
        end_time TIMESTAMPTZ,
        status TEXT NOT NULL DEFAULT 'UNSET',
        attributes TEXT NOT NULL DEFAULT '{}',
        events TEXT NOT NULL DEFAULT '[]',
        caller_trace_id TEXT,
        process_id INTEGER REFERENCES ${s}.processes (process_id),
        seq BIGSERIAL NOT NULL,
        PRIMARY KEY (project, trace_id, span_id)
      );
      CREATE INDEX spans_start_idx ON ${s}.spans (project, start_time);
      CREATE INDEX spans_caller_idx ON ${s}.spans (project, caller_trace_id) WHERE caller_trace_id IS NOT NULL;
      CREATE INDEX spans_process_idx ON ${s}.spans (process_id);
      CREATE TABLE ${s}.trace_keys (
        project TEXT NOT NULL DEFAULT '',
        name TEXT NOT NULL,
        key BYTEA NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (project, name)
      );
      INSERT INTO ${s}.trace_keys (name, key)
        VALUES ('redaction_hmac', decode(replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''), 'hex'));`,
  },
  {
    // Listings by time read the roots of the window (every record starts with a parentless row, docs/adr/0009), as
    // local.db v36 does: the planner then knows how few traces it joins (one root each) and walks the primary key
    // for their spans instead of hashing the whole table (1,000,000 spans: bench trace-list-scale).
    description: 'v2 spans_root_start_idx: the start time of each record root (parentless span), for listings by time',
    sql: (s) => `CREATE INDEX spans_root_start_idx ON ${s}.spans (project, start_time) WHERE parent_span_id IS NULL;`,
  },
];

/** The trace schema version this agentkit writes. */
export const PG_TRACE_LATEST_VERSION = PG_TRACE_MIGRATIONS.length;

/**
 * Create the schema and apply every pending trace migration on `pool`, in one transaction under an advisory lock.
 * Idempotent and safe to race. Throws StoreVersionError when the schema is newer than this agentkit.
 */
export async function migrateTraceSchema(pool: pg.Pool, schema: string): Promise<number> {
  const s = `"${schema}"`;
  // Current already: no DDL, no lock (store/pg-schema-version.ts).
  const recorded = await recordedVersion(pool, schema, 'trace_schema_version');
  if (recorded === PG_TRACE_LATEST_VERSION) return PG_TRACE_LATEST_VERSION;
  if (recorded !== null && recorded > PG_TRACE_LATEST_VERSION)
    throw new StoreVersionError(`Postgres schema "${schema}" (traces)`, recorded, PG_TRACE_LATEST_VERSION);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentkit.traces.${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.trace_schema_version (
      version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const found = (await client.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM ${s}.trace_schema_version`)).rows[0]!.v;
    if (found > PG_TRACE_LATEST_VERSION) throw new StoreVersionError(`Postgres schema "${schema}" (traces)`, found, PG_TRACE_LATEST_VERSION);
    for (let version = found + 1; version <= PG_TRACE_LATEST_VERSION; version++) {
      const migration = PG_TRACE_MIGRATIONS[version - 1]!;
      await client.query(migration.sql(s));
      await client.query(`INSERT INTO ${s}.trace_schema_version (version, description) VALUES ($1, $2)`, [version, migration.description]);
    }
    await client.query('COMMIT');
    return PG_TRACE_LATEST_VERSION;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackError: unknown) => rollbackError as Error,
    );
    throw migrationPrivilegeError(error, 'trace tables', schema, recorded, PG_TRACE_LATEST_VERSION) ?? error;
  } finally {
    client.release(broken);
  }
}

/** The schema's trace version without migrating: 0 when the trace tables do not exist. */
export async function traceSchemaVersion(pool: Pick<pg.Pool, 'query'>, schema: string): Promise<number> {
  const exists = await pool.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [schema, 'trace_schema_version']);
  if ((exists.rowCount ?? 0) === 0) return 0;
  return (await pool.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM "${schema}".trace_schema_version`)).rows[0]!.v;
}
