/**
 * The Platform's tables in its SQLite file (issue 42). Every table is keyed by (project, id); `seq` keeps arrival
 * order. Made with IF NOT EXISTS on open, additions included (the roots index, for the UI's project listings); a
 * change that alters a table adds a numbered step here, as the Postgres list does in ./pg-schema.ts.
 */
export const SQLITE_PLATFORM_SCHEMA = `
  CREATE TABLE IF NOT EXISTS platform_keys (
    project TEXT NOT NULL, id TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, scopes TEXT NOT NULL, digest TEXT NOT NULL,
    created_at TEXT NOT NULL, revoked_at TEXT, PRIMARY KEY (project, id));
  CREATE INDEX IF NOT EXISTS platform_keys_prefix ON platform_keys (prefix);
  CREATE TABLE IF NOT EXISTS platform_checkpoints (
    seq INTEGER PRIMARY KEY, project TEXT NOT NULL, checkpoint_id TEXT NOT NULL, execution_id TEXT NOT NULL,
    created_at TEXT NOT NULL, step_type TEXT, root INTEGER NOT NULL, key_id TEXT NOT NULL, body TEXT NOT NULL,
    UNIQUE (project, checkpoint_id));
  CREATE INDEX IF NOT EXISTS platform_checkpoints_execution ON platform_checkpoints (project, execution_id, created_at);
  CREATE TABLE IF NOT EXISTS platform_eval_runs (
    seq INTEGER PRIMARY KEY, project TEXT NOT NULL, run_id TEXT NOT NULL, key_id TEXT NOT NULL, body TEXT NOT NULL,
    UNIQUE (project, run_id));
  CREATE TABLE IF NOT EXISTS platform_spans (
    seq INTEGER PRIMARY KEY, project TEXT NOT NULL, trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_span_id TEXT,
    name TEXT NOT NULL, kind INTEGER NOT NULL, start_time TEXT NOT NULL, end_time TEXT, status TEXT NOT NULL,
    status_message TEXT, attributes TEXT NOT NULL, events TEXT NOT NULL, resource TEXT NOT NULL, scope TEXT,
    UNIQUE (project, trace_id, span_id));
  CREATE INDEX IF NOT EXISTS platform_spans_roots ON platform_spans (project, start_time) WHERE parent_span_id IS NULL;
  CREATE TABLE IF NOT EXISTS platform_claims (
    seq INTEGER PRIMARY KEY, project TEXT NOT NULL, execution_id TEXT NOT NULL, pending_created_at TEXT NOT NULL,
    claim_id TEXT NOT NULL, host TEXT NOT NULL, decision TEXT NOT NULL, decided_at TEXT NOT NULL, key_id TEXT NOT NULL,
    UNIQUE (project, execution_id, pending_created_at));
  CREATE TABLE IF NOT EXISTS platform_leases (
    project TEXT NOT NULL, execution_id TEXT NOT NULL, holder TEXT NOT NULL, host TEXT NOT NULL, ttl_ms INTEGER NOT NULL,
    expires_at INTEGER NOT NULL, PRIMARY KEY (project, execution_id));
  CREATE TABLE IF NOT EXISTS platform_requests (
    seq INTEGER PRIMARY KEY, project TEXT NOT NULL, route TEXT NOT NULL, key_id TEXT NOT NULL, at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS platform_rate_buckets (
    project TEXT NOT NULL, key_id TEXT NOT NULL, tokens REAL NOT NULL, updated_ms INTEGER NOT NULL,
    PRIMARY KEY (project, key_id));
`;
