/**
 * The forward-only migration ladder of a PostgresCheckpointer schema. Position in the list = version, recorded in the
 * schema's `schema_version` table. Never edit or reorder an applied step: append a new one. The whole ladder runs in
 * one transaction under an advisory lock, so concurrent setups of one schema serialize and the loser finds nothing
 * to do.
 *
 * The tables mirror local.db's (same column names, so rows move between backends unchanged) with native types:
 * JSONB for JSON, TIMESTAMPTZ for time, BOOLEAN for flags, and a `seq` column giving the write order that SQLite
 * gets from its rowid.
 */
export interface PgMigration {
  readonly description: string;
  /** The statements, for the schema identifier already quoted (`"agentkit"`). */
  readonly sql: (schema: string) => string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    description: 'v1 checkpoints (with step_type, run_status, replication flags), pending interrupts, idempotency cache',
    sql: (s) => `
      CREATE TABLE ${s}.checkpoints (
        seq BIGSERIAL NOT NULL UNIQUE,
        checkpoint_id TEXT PRIMARY KEY,
        parent_checkpoint_id TEXT,
        chain_name TEXT NOT NULL,
        execution_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        node_index INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'completed',
        step_type TEXT,
        run_status TEXT,
        state_snapshot JSONB NOT NULL DEFAULT '{}'::jsonb,
        node_input JSONB,
        node_output JSONB,
        iteration INTEGER NOT NULL DEFAULT 0,
        iteration_counters JSONB NOT NULL DEFAULT '{}'::jsonb,
        interrupt_reason TEXT,
        interrupt_context JSONB,
        agent_path TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        project_id TEXT NOT NULL DEFAULT '',
        synced BOOLEAN NOT NULL DEFAULT FALSE,
        quarantine_reason TEXT
      );
      CREATE INDEX checkpoints_execution_idx ON ${s}.checkpoints (execution_id, created_at, seq);
      CREATE INDEX checkpoints_unsynced_idx ON ${s}.checkpoints (seq) WHERE NOT synced AND quarantine_reason IS NULL;
      CREATE INDEX checkpoints_problem_idx ON ${s}.checkpoints (status) WHERE status IN ('failed', 'interrupted');
      CREATE TABLE ${s}.pending_interrupts (
        execution_id TEXT PRIMARY KEY,
        chain_name TEXT NOT NULL,
        node_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        context JSONB NOT NULL DEFAULT '{}'::jsonb,
        agent_path TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        project_id TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX pending_interrupts_created_idx ON ${s}.pending_interrupts (created_at);
      CREATE TABLE ${s}.idempotency_cache (
        execution_id TEXT NOT NULL,
        function_key TEXT NOT NULL,
        result JSONB NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        project_id TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (execution_id, function_key)
      );`,
  },
  {
    description: 'execution leases: one runner per execution at a time (owner, expiry by the server clock)',
    sql: (s) => `
      CREATE TABLE ${s}.execution_leases (
        execution_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        acquired_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );`,
  },
  {
    // Delta checkpoints (ADR 0028): `delta_base` names the row a row's state is stored against (NULL: full; every
    // row before this version is); `output_keys` (a JSON list) says node_output is those keys of the state. A delta
    // row keeps its delta as JSON text in `state_delta` (state_snapshot '{}'): JSONB spent 35% more bytes on the same
    // small documents (ADR 0028). `seq` loses its UNIQUE index (ADR 0029): BIGSERIAL values are unique by
    // construction and the index was one more B-tree written per step; ordering uses the execution and unsynced indexes.
    description: 'delta checkpoints: checkpoints.delta_base, state_delta and output_keys; the redundant unique index on seq dropped',
    sql: (s) => `
      ALTER TABLE ${s}.checkpoints ADD COLUMN delta_base TEXT;
      ALTER TABLE ${s}.checkpoints ADD COLUMN output_keys TEXT;
      ALTER TABLE ${s}.checkpoints ADD COLUMN state_delta TEXT;
      ALTER TABLE ${s}.checkpoints DROP CONSTRAINT IF EXISTS checkpoints_seq_key;`,
  },
  {
    // Index fillfactor 100 where keys only append (ADR 0032): checkpoint ids are time-ordered (UUID v7, ADR
    // 0030) and `seq` grows, so new keys land on the rightmost leaf, and a rightmost split keeps the fillfactor (90 by
    // default) in the left page, which then never gets another key: 10% of every leaf stayed empty. Keys are never
    // updated in place, so the reserve served nothing. Sets the option only: pages already written keep their fill,
    // pages split from now on are full (a REINDEX would repack old ones; not done here, it blocks writes).
    description: 'append-only checkpoint indexes (primary key, unsynced) fill their leaves: fillfactor 100',
    sql: (s) => `
      ALTER INDEX ${s}.checkpoints_pkey SET (fillfactor = 100);
      ALTER INDEX ${s}.checkpoints_unsynced_idx SET (fillfactor = 100);`,
  },
  {
    // Compressed deltas (ADR 0028, ./delta-compression.ts): a delta row keeps its document either as text in
    // `state_delta` or, when DEFLATE makes it clearly smaller, as raw DEFLATE bytes here; never both. Adding a
    // nullable column rewrites nothing: rows written before keep their text deltas and read as before.
    description: 'compressed delta documents: checkpoints.state_delta_z (bytea)',
    sql: (s) => `ALTER TABLE ${s}.checkpoints ADD COLUMN state_delta_z BYTEA;`,
  },
  {
    // Fencing (docs/adr/0015): see local.db v33. Lease expiry stays by the server's clock.
    description: 'execution_leases.generation (fencing); checkpoints.trace_id (the traces of an execution)',
    sql: (s) => `
      ALTER TABLE ${s}.execution_leases ADD COLUMN generation INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE ${s}.checkpoints ADD COLUMN trace_id TEXT;`,
  },
  {
    // Recovery of orphaned executions (docs/adr/0050): see local.db v34.
    description: 'execution_leases.active, runner_key, recover_attempts, attention_reason; execution_recoveries',
    sql: (s) => `
      ALTER TABLE ${s}.execution_leases ADD COLUMN active BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE ${s}.execution_leases ADD COLUMN runner_key TEXT;
      ALTER TABLE ${s}.execution_leases ADD COLUMN recover_attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE ${s}.execution_leases ADD COLUMN attention_reason TEXT;
      CREATE INDEX execution_leases_active_idx ON ${s}.execution_leases (expires_at) WHERE active;
      CREATE TABLE ${s}.execution_recoveries (
        execution_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        recovered_by TEXT NOT NULL,
        reason TEXT,
        at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX execution_recoveries_at_idx ON ${s}.execution_recoveries (at);`,
  },
  {
    // Served requests' Idempotency-Keys (docs/adr/0052): see local.db v35. Expiry by the server's clock, as leases.
    description: 'served_idempotency_keys: Idempotency-Key of a served request, its caller, body fingerprint and execution',
    sql: (s) => `
      CREATE TABLE ${s}.served_idempotency_keys (
        caller TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        execution_id TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        expires_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (caller, idempotency_key)
      );
      CREATE INDEX served_idempotency_keys_expires_idx ON ${s}.served_idempotency_keys (expires_at);`,
  },
  {
    // Consent at write time (docs/adr/0054): see local.db v36. Local-only rows are stored synced, so the partial
    // unsynced index (the outbox) never holds them.
    description: 'checkpoints.local_only: consent stamped at write time; unsent rows become local-only',
    sql: (s) => `
      ALTER TABLE ${s}.checkpoints ADD COLUMN local_only BOOLEAN NOT NULL DEFAULT FALSE;
      UPDATE ${s}.checkpoints SET local_only = TRUE, synced = TRUE WHERE NOT synced AND quarantine_reason IS NULL;`,
  },
  {
    // Conflicts (docs/adr/0054): see local.db v38. Ordered as `listQuarantined` reads them, so no sort either.
    description: 'checkpoints_quarantined_idx: the quarantined checkpoints (connected-mode conflicts) in write order',
    sql: (s) => `CREATE INDEX checkpoints_quarantined_idx ON ${s}.checkpoints (created_at, checkpoint_id) WHERE quarantine_reason IS NOT NULL;`,
  },
  {
    // Issue 38: each checkpoint names the process that wrote it, by its id in the trace family's `processes` table.
    // No foreign key, as on spans (docs/adr/0074): a lookup on every row for a reference the writer makes itself.
    description: 'checkpoints.process_id: the writing process (an id into processes); null on rows written before',
    sql: (s) => `ALTER TABLE ${s}.checkpoints ADD COLUMN process_id INTEGER;`,
  },
];

/** The schema version this agentkit writes. */
export const PG_LATEST_VERSION = PG_MIGRATIONS.length;
