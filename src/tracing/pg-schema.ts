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
import { familyVersion, migrateFamily, type PgFamily, type PgFamilyMigration } from '../store/pg-family-schema.js';

export type PgTraceMigration = PgFamilyMigration;

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
  {
    // Every span is a row written on a run's path: the foreign key's check cost a lookup per row (about 30% of the
    // row's insert, bench trace-store-cost) for a reference the writer makes itself (it registers its process before
    // its first span) and that never dangles (no `processes` row is ever deleted); no query reads spans by process
    // alone (a filter by process always comes with a time window or a trace id). docs/adr/0074-span-writes-on-postgres.md.
    description: 'v3 spans: no foreign key to processes and no index on process_id (a cost on every span, read by nothing)',
    sql: (s) => `ALTER TABLE ${s}.spans DROP CONSTRAINT IF EXISTS spans_process_id_fkey; DROP INDEX IF EXISTS ${s}.spans_process_idx;`,
  },
];

/** The trace schema version this agentkit writes. */
export const PG_TRACE_LATEST_VERSION = PG_TRACE_MIGRATIONS.length;

/** The trace family's migration list, as the store's family migrator runs it (store/pg-family-schema.ts). */
export const PG_TRACE_FAMILY: PgFamily = { name: 'traces', versionTable: 'trace_schema_version', tables: 'trace tables', migrations: PG_TRACE_MIGRATIONS };

/**
 * Create the schema and apply every pending trace migration on `pool`, in one transaction under an advisory lock.
 * Idempotent and safe to race. Throws StoreVersionError when the schema is newer than this agentkit.
 */
export async function migrateTraceSchema(pool: pg.Pool, schema: string): Promise<number> {
  return migrateFamily(pool, schema, PG_TRACE_FAMILY);
}

/** The schema's trace version without migrating: 0 when the trace tables do not exist. */
export async function traceSchemaVersion(pool: Pick<pg.Pool, 'query'>, schema: string): Promise<number> {
  return familyVersion(pool, schema, PG_TRACE_FAMILY);
}
