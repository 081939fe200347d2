/**
 * The Platform's tables on a Postgres store (issue 42): the `platform` family's forward-only migration list, run by
 * the store's family migrator (store/pg-family-schema.ts) under its advisory lock, version recorded in
 * `platform_schema_version`. Columns mirror the SQLite file's (./sqlite-schema.ts); every table is keyed by
 * (project, id). JSON is kept as the exact text sent (TEXT, not JSONB, which would reorder keys). Lease and bucket
 * times are epoch milliseconds, as on SQLite.
 */
import type { PgFamily } from '../../store/pg-family-schema.js';

export const PG_PLATFORM_FAMILY: PgFamily = {
  name: 'platform',
  versionTable: 'platform_schema_version',
  tables: 'Platform tables',
  migrations: [
    {
      description: 'v1 platform keys, checkpoints, eval runs, spans, claims, leases, requests, rate buckets, secret (keyed by project)',
      sql: (s) => `
        CREATE TABLE ${s}.platform_keys (
          project TEXT NOT NULL, id TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, scopes TEXT NOT NULL, digest TEXT NOT NULL,
          created_at TEXT NOT NULL, revoked_at TEXT, PRIMARY KEY (project, id));
        CREATE INDEX platform_keys_prefix ON ${s}.platform_keys (prefix);
        CREATE TABLE ${s}.platform_checkpoints (
          seq BIGSERIAL, project TEXT NOT NULL, checkpoint_id TEXT NOT NULL, execution_id TEXT NOT NULL,
          created_at TEXT NOT NULL, step_type TEXT, root BOOLEAN NOT NULL, key_id TEXT NOT NULL, body TEXT NOT NULL,
          PRIMARY KEY (project, checkpoint_id));
        CREATE INDEX platform_checkpoints_execution ON ${s}.platform_checkpoints (project, execution_id, created_at);
        CREATE TABLE ${s}.platform_eval_runs (
          seq BIGSERIAL, project TEXT NOT NULL, run_id TEXT NOT NULL, key_id TEXT NOT NULL, body TEXT NOT NULL,
          PRIMARY KEY (project, run_id));
        CREATE TABLE ${s}.platform_spans (
          seq BIGSERIAL, project TEXT NOT NULL, trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_span_id TEXT,
          name TEXT NOT NULL, kind INTEGER NOT NULL, start_time TEXT NOT NULL, end_time TEXT, status TEXT NOT NULL,
          status_message TEXT, attributes TEXT NOT NULL, events TEXT NOT NULL, resource TEXT NOT NULL, scope TEXT,
          PRIMARY KEY (project, trace_id, span_id));
        CREATE TABLE ${s}.platform_claims (
          seq BIGSERIAL, project TEXT NOT NULL, execution_id TEXT NOT NULL, pending_created_at TEXT NOT NULL,
          claim_id TEXT NOT NULL, host TEXT NOT NULL, decision TEXT NOT NULL, decided_at TEXT NOT NULL, key_id TEXT NOT NULL,
          PRIMARY KEY (project, execution_id, pending_created_at));
        CREATE TABLE ${s}.platform_leases (
          project TEXT NOT NULL, execution_id TEXT NOT NULL, holder TEXT NOT NULL, host TEXT NOT NULL, ttl_ms BIGINT NOT NULL,
          expires_at BIGINT NOT NULL, PRIMARY KEY (project, execution_id));
        CREATE TABLE ${s}.platform_requests (
          seq BIGSERIAL PRIMARY KEY, project TEXT NOT NULL, route TEXT NOT NULL, key_id TEXT NOT NULL, at TEXT NOT NULL);
        CREATE TABLE ${s}.platform_rate_buckets (
          project TEXT NOT NULL, key_id TEXT NOT NULL, tokens DOUBLE PRECISION NOT NULL, updated_ms BIGINT NOT NULL,
          allowed BOOLEAN NOT NULL, PRIMARY KEY (project, key_id));
        CREATE TABLE ${s}.platform_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL);`,
    },
    {
      description: "v2 an index of root spans by start time (the UI lists a project's traces)",
      sql: (s) => `CREATE INDEX platform_spans_roots ON ${s}.platform_spans (project, start_time COLLATE "C") WHERE parent_span_id IS NULL;`,
    },
  ],
};
