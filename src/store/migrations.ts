/**
 * The one forward-only migration ladder of local.db. Position in the list = schema version = `PRAGMA user_version`
 * after it is applied. Never edit or reorder an applied step: append a new one.
 *
 * Versions 6-19 are reserved no-ops so that the terminal-row `step_type` column arrives in v20, as the spec numbers
 * it: a store below v20 has checkpoint rows without step_type, and those rows read as resumable.
 */
import type Database from 'better-sqlite3';

export interface Migration {
  /** What the step adds, for people reading `inspect`ions of an old store. */
  readonly description: string;
  /** SQL run inside the migration's transaction; empty for a reserved version. */
  readonly sql: string;
}

const reserved: Migration = { description: 'reserved (keeps v20 = step_type, as the spec numbers it)', sql: '' };

export const MIGRATIONS: readonly Migration[] = [
  {
    description: 'v1 spans',
    sql: `
      CREATE TABLE spans (
        span_id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        parent_span_id TEXT,
        name TEXT NOT NULL,
        start_time TEXT NOT NULL,
        end_time TEXT,
        status TEXT NOT NULL DEFAULT 'UNSET',
        attributes TEXT NOT NULL DEFAULT '{}',
        events TEXT NOT NULL DEFAULT '[]',
        project_id TEXT NOT NULL DEFAULT '',
        synced INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX idx_spans_trace_id ON spans(trace_id);
      CREATE INDEX idx_spans_start_time ON spans(start_time);
      CREATE INDEX idx_spans_synced ON spans(synced, start_time);`,
  },
  {
    description: 'v2 checkpoints, pending interrupts, idempotency cache',
    sql: `
      CREATE TABLE checkpoints (
        id TEXT PRIMARY KEY,
        checkpoint_id TEXT NOT NULL UNIQUE,
        parent_checkpoint_id TEXT,
        chain_name TEXT NOT NULL,
        execution_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        node_index INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'completed',
        state_snapshot TEXT NOT NULL DEFAULT '{}',
        node_input TEXT,
        node_output TEXT,
        iteration INTEGER NOT NULL DEFAULT 0,
        iteration_counters TEXT NOT NULL DEFAULT '{}',
        interrupt_reason TEXT,
        interrupt_context TEXT,
        agent_path TEXT,
        created_at TEXT NOT NULL,
        project_id TEXT NOT NULL DEFAULT '',
        synced INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX idx_cp_exec ON checkpoints(execution_id, created_at);
      CREATE INDEX idx_cp_status_problem ON checkpoints(status) WHERE status IN ('failed', 'interrupted');
      CREATE INDEX idx_cp_synced ON checkpoints(synced, created_at);
      CREATE TABLE pending_interrupts (
        execution_id TEXT PRIMARY KEY,
        chain_name TEXT NOT NULL,
        node_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        context TEXT NOT NULL DEFAULT '{}',
        agent_path TEXT,
        created_at TEXT NOT NULL,
        project_id TEXT NOT NULL DEFAULT ''
      );
      CREATE TABLE idempotency_cache (
        execution_id TEXT NOT NULL,
        function_key TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at TEXT NOT NULL,
        project_id TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (execution_id, function_key)
      );`,
  },
  {
    description: 'v3 guardrail events',
    sql: `
      CREATE TABLE guardrail_events (
        event_id TEXT PRIMARY KEY,
        trace_id TEXT,
        span_id TEXT,
        agent_name TEXT,
        guardrail_name TEXT NOT NULL,
        position TEXT NOT NULL,
        outcome TEXT NOT NULL,
        blocking INTEGER NOT NULL,
        message TEXT,
        created_at TEXT NOT NULL,
        project_id TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX idx_guardrail_events_trace ON guardrail_events(trace_id);
      CREATE INDEX idx_guardrail_events_outcome ON guardrail_events(outcome, created_at);`,
  },
  {
    description: 'v4 multimodal attachments',
    sql: `
      CREATE TABLE attachments (
        attachment_id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        span_id TEXT NOT NULL,
        media_type TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        data BLOB NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
      );
      CREATE INDEX idx_attachments_trace ON attachments(trace_id);`,
  },
  {
    description: 'v5 trace annotations (favorites, notes)',
    sql: `
      CREATE TABLE trace_annotations (
        trace_id TEXT PRIMARY KEY,
        favorite INTEGER NOT NULL DEFAULT 0,
        note TEXT,
        updated_at TEXT NOT NULL
      );`,
  },
  ...Array.from({ length: 14 }, () => reserved),
  {
    description: 'v20 terminal rows: step_type and run_status (rows without step_type read as resumable)',
    sql: `
      ALTER TABLE checkpoints ADD COLUMN step_type TEXT;
      ALTER TABLE checkpoints ADD COLUMN run_status TEXT;`,
  },
  {
    description: 'v21 replication quarantine: the reason a row will not be resent',
    sql: `ALTER TABLE checkpoints ADD COLUMN quarantine_reason TEXT;`,
  },
  {
    // Prompt registry: versions are immutable (template, variables and the fragments they used, snapshotted);
    // labels move between versions. `origin` is 'local' or 'migrated'; migrated rows are synced=1 (never pushed).
    description: 'v22 prompt registry: prompts, prompt_versions, prompt_labels, prompt_fragments',
    sql: `
      CREATE TABLE prompts (
        name TEXT PRIMARY KEY,
        description TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '[]',
        latest_version INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        project_id TEXT NOT NULL DEFAULT ''
      );
      CREATE TABLE prompt_versions (
        name TEXT NOT NULL REFERENCES prompts(name) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        template TEXT NOT NULL,
        variables TEXT NOT NULL DEFAULT '[]',
        fragments TEXT NOT NULL DEFAULT '{}',
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        created_by TEXT,
        origin TEXT NOT NULL DEFAULT 'local',
        synced INTEGER NOT NULL DEFAULT 0,
        project_id TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (name, version)
      );
      CREATE TABLE prompt_labels (
        name TEXT NOT NULL REFERENCES prompts(name) ON DELETE CASCADE,
        label TEXT NOT NULL,
        version INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (name, label),
        FOREIGN KEY (name, version) REFERENCES prompt_versions(name, version)
      );
      CREATE TABLE prompt_fragments (
        name TEXT PRIMARY KEY,
        content TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        origin TEXT NOT NULL DEFAULT 'local',
        project_id TEXT NOT NULL DEFAULT ''
      );`,
  },
  {
    // `agentkit migrate` records each legacy source it imported (kind + resolved path), in the same transaction as
    // the rows, so a second run skips it unless --force.
    description: 'v23 legacy imports: one row per legacy store or prompt directory imported by agentkit migrate',
    sql: `
      CREATE TABLE legacy_imports (
        kind TEXT NOT NULL,
        source TEXT NOT NULL,
        imported_at TEXT NOT NULL,
        counts TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (kind, source)
      );`,
  },
  {
    description: 'v24 execution leases: one runner per execution at a time (owner, expiry in epoch ms)',
    sql: `
      CREATE TABLE execution_leases (
        execution_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        acquired_at TEXT NOT NULL
      );`,
  },
  {
    description: 'v25 eval runs and their cases (scorecard, gate, git provenance, synced for export)',
    sql: `
      CREATE TABLE eval_runs (
        run_id TEXT PRIMARY KEY,
        run_name TEXT,
        dataset_name TEXT NOT NULL,
        agent_name TEXT NOT NULL,
        scorers TEXT NOT NULL DEFAULT '[]',
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        total_cases INTEGER NOT NULL,
        errored_count INTEGER NOT NULL,
        pass_count INTEGER NOT NULL,
        fail_count INTEGER NOT NULL,
        pass_rate REAL NOT NULL,
        scorecard TEXT NOT NULL,
        gate TEXT,
        thresholds TEXT NOT NULL DEFAULT '[]',
        git_sha TEXT,
        git_branch TEXT,
        metadata TEXT NOT NULL DEFAULT '{}',
        project_id TEXT NOT NULL DEFAULT '',
        synced INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX idx_eval_runs_name ON eval_runs(run_name, started_at);
      CREATE INDEX idx_eval_runs_synced ON eval_runs(synced, started_at);
      CREATE TABLE eval_cases (
        case_id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES eval_runs(run_id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        input TEXT NOT NULL,
        expected_output TEXT,
        actual_output TEXT,
        trace_id TEXT,
        per_scorer TEXT NOT NULL DEFAULT '{}',
        error TEXT,
        latency_ms REAL,
        UNIQUE (run_id, ordinal)
      );`,
  },
  {
    // Delta checkpoints (ADR 0028): `delta_base` names the row a row's state is stored against (NULL: the state is
    // full; every row before this version is); `output_keys` (a JSON list) says node_output is those keys of the state. The table is rebuilt so that `checkpoint_id` is the primary key: `id`
    // (always equal to it) kept its own unique index, a second B-tree written on every step (ADR 0029); the
    // column stays, nullable and unindexed, for tools that still name it. Rowids are kept: they are the write order.
    description: 'v26 delta checkpoints: checkpoints.delta_base and output_keys; checkpoint_id is the primary key (the id index dropped)',
    sql: `
      CREATE TABLE checkpoints_v26 (
        checkpoint_id TEXT NOT NULL PRIMARY KEY,
        id TEXT,
        parent_checkpoint_id TEXT,
        chain_name TEXT NOT NULL,
        execution_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        node_index INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'completed',
        state_snapshot TEXT NOT NULL DEFAULT '{}',
        node_input TEXT,
        node_output TEXT,
        iteration INTEGER NOT NULL DEFAULT 0,
        iteration_counters TEXT NOT NULL DEFAULT '{}',
        interrupt_reason TEXT,
        interrupt_context TEXT,
        agent_path TEXT,
        created_at TEXT NOT NULL,
        project_id TEXT NOT NULL DEFAULT '',
        synced INTEGER NOT NULL DEFAULT 0,
        step_type TEXT,
        run_status TEXT,
        quarantine_reason TEXT,
        delta_base TEXT,
        output_keys TEXT
      );
      INSERT INTO checkpoints_v26 (rowid, checkpoint_id, id, parent_checkpoint_id, chain_name, execution_id, node_id, node_index,
        status, state_snapshot, node_input, node_output, iteration, iteration_counters, interrupt_reason, interrupt_context,
        agent_path, created_at, project_id, synced, step_type, run_status, quarantine_reason)
      SELECT rowid, checkpoint_id, id, parent_checkpoint_id, chain_name, execution_id, node_id, node_index,
        status, state_snapshot, node_input, node_output, iteration, iteration_counters, interrupt_reason, interrupt_context,
        agent_path, created_at, project_id, synced, step_type, run_status, quarantine_reason
      FROM checkpoints ORDER BY rowid;
      DROP TABLE checkpoints;
      ALTER TABLE checkpoints_v26 RENAME TO checkpoints;
      CREATE INDEX idx_cp_exec ON checkpoints(execution_id, created_at);
      CREATE INDEX idx_cp_status_problem ON checkpoints(status) WHERE status IN ('failed', 'interrupted');
      CREATE INDEX idx_cp_synced ON checkpoints(synced, created_at);`,
  },
  {
    // Every stored span paid for four B-trees (the span_id key and three indexes), two of them random pages per row.
    // Reads look spans up by trace (replay, traces, the UI, curate) and by (trace, parent span) for roots: one index
    // on (trace_id, span_id) serves them all. Nothing queries `synced` or `start_time` alone by index (listings
    // group by trace; curate sorts its few agent spans). The rebuild keeps every row and its rowid (ties in start
    // order read back in stored order).
    description: 'v27 spans keyed by (trace_id, span_id) in one index; the start_time and synced indexes dropped',
    sql: `
      CREATE TABLE spans_v27 (
        span_id TEXT NOT NULL,
        trace_id TEXT NOT NULL,
        parent_span_id TEXT,
        name TEXT NOT NULL,
        start_time TEXT NOT NULL,
        end_time TEXT,
        status TEXT NOT NULL DEFAULT 'UNSET',
        attributes TEXT NOT NULL DEFAULT '{}',
        events TEXT NOT NULL DEFAULT '[]',
        project_id TEXT NOT NULL DEFAULT '',
        synced INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO spans_v27 (rowid, span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events, project_id, synced)
        SELECT rowid, span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events, project_id, synced FROM spans ORDER BY rowid;
      DROP TABLE spans;
      ALTER TABLE spans_v27 RENAME TO spans;
      CREATE UNIQUE INDEX idx_spans_trace_span ON spans(trace_id, span_id);`,
  },
  {
    // Checkpoint rows were found by an index on (execution_id, created_at). Execution ids are random (UUID v4, as the
    // spec has them), so every row landed on a random leaf of that index, and every leaf a commit dirtied was written
    // to the WAL: a row cost more the larger the store (15 -> 25 us at 30k -> 240k rows, against a flat 8 us for
    // keys that grow; ADR 0029). Now each execution gets a small integer key, in the order executions start, in
    // `executions`; rows carry it as `exec_key`, and the index is on (exec_key, created_at), so a step's row lands on
    // the index's last leaf. The execution id's own random index is written once per execution, not once per row.
    // The trigger gives a row written without `exec_key` (another writer's SQL) its key, creating the execution's
    // entry on its first row; the checkpointer passes the key itself and the trigger then does nothing.
    description: 'v28 checkpoints found by a per-execution integer key (executions table, checkpoints.exec_key) instead of a random-id index',
    sql: `
      CREATE TABLE executions (
        exec_key INTEGER PRIMARY KEY,
        execution_id TEXT NOT NULL UNIQUE
      );
      INSERT INTO executions (execution_id) SELECT execution_id FROM checkpoints GROUP BY execution_id ORDER BY min(rowid);
      ALTER TABLE checkpoints ADD COLUMN exec_key INTEGER;
      UPDATE checkpoints SET exec_key = (SELECT exec_key FROM executions WHERE executions.execution_id = checkpoints.execution_id);
      DROP INDEX idx_cp_exec;
      CREATE INDEX idx_cp_exec_key ON checkpoints(exec_key, created_at);
      CREATE TRIGGER checkpoints_exec_key AFTER INSERT ON checkpoints WHEN NEW.exec_key IS NULL BEGIN
        INSERT OR IGNORE INTO executions (execution_id) VALUES (NEW.execution_id);
        UPDATE checkpoints SET exec_key = (SELECT exec_key FROM executions WHERE execution_id = NEW.execution_id) WHERE rowid = NEW.rowid;
      END;`,
  },
  {
    // No table changes: the version marks that model spans may hold only the messages they add
    // (agentkit.llm.messages_base, src/tracing/message-deltas.ts, ADR 0034). An agentkit that cannot rebuild them
    // refuses the store (it is newer) instead of showing a conversation cut to its last turn.
    description: 'v29 model spans store the messages they add since the previous model span of the run; readers rebuild the whole list',
    sql: '',
  },
  {
    // The replication outbox reads unsynced rows in write order (`WHERE synced = 0 AND quarantine_reason IS NULL
    // ORDER BY rowid LIMIT n`). idx_cp_synced (synced, created_at) found them but not in rowid order: every outbox
    // batch sorted all unsynced rows (a temporary B-tree; in a local-only store that is every row), and every
    // checkpoint insert wrote a 27-byte timestamp into it. An index on `synced` alone holds (synced, rowid): the
    // outbox walks it in rowid order and stops at its limit; restricted to unsynced rows, rows leave it as they are
    // pushed. Nothing else read idx_cp_synced (ADR 0029).
    description: 'v30 checkpoints: the outbox index holds unsynced rows in write order (idx_cp_unsynced replaces idx_cp_synced)',
    sql: `
      DROP INDEX IF EXISTS idx_cp_synced;
      CREATE INDEX idx_cp_unsynced ON checkpoints(synced) WHERE synced = 0;`,
  },
  {
    // A run under a caller's span (a `traceparent` on /run, an MCP call's _meta) is stored under a trace id of its own
    // (docs/adr/0009); its root row keeps the caller's trace id, so that id still finds the run, or lists the runs
    // when it called several. Every other row leaves the column NULL (one byte), and only non-NULL values are indexed.
    description: "v31 spans.caller_trace_id: the caller's trace id on the root row of a run recorded under a remote parent",
    sql: `
      ALTER TABLE spans ADD COLUMN caller_trace_id TEXT;
      CREATE INDEX idx_spans_caller_trace ON spans(caller_trace_id) WHERE caller_trace_id IS NOT NULL;`,
  },
  {
    // Replay matches a recorded value the trace writer masked (a credential in a tool's arguments, in a message) by a
    // keyed hash of the unmasked value stored beside it (docs/adr/0010). The key is made here, once, inside the
    // migration's transaction (so two processes opening a new store agree on it), and never leaves the store.
    description: 'v32 trace_keys: the random key of the hashes stored beside masked span values',
    sql: `
      CREATE TABLE trace_keys (
        name TEXT PRIMARY KEY,
        key BLOB NOT NULL,
        created_at TEXT NOT NULL
      );
      INSERT INTO trace_keys (name, key, created_at) VALUES ('redaction_hmac', randomblob(32), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));`,
  },
  {
    // Fencing (docs/adr/0015): every acquisition of an execution's lease by a new owner increments `generation`, and a
    // release only expires the lease (the row and its generation stay), so generations never repeat. Every write of a
    // run is conditional on its lease's owner and generation still being the row's. `checkpoints.trace_id` is the
    // trace of the run or resume that wrote a row, set on the first row each run writes (NULL on the others: one byte).
    description: 'v33 execution_leases.generation (fencing); checkpoints.trace_id (the traces of an execution)',
    sql: `
      ALTER TABLE execution_leases ADD COLUMN generation INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE checkpoints ADD COLUMN trace_id TEXT;`,
  },
  {
    // Recovery of orphaned executions (docs/adr/0050): `active` is 1 from a lease acquisition until the run's last
    // write (its terminal row or its pause, which release the lease with them) or a recovery settling it; an active
    // lease that expired (or whose holder is a dead process of this host) is an orphan. Rows written before this
    // version stay 0: their executions are listed, never recovered automatically. `runner_key` names the runner
    // definition that took the lease (name and fingerprint); `recover_attempts` counts recoveries since the run last
    // ended or paused; `attention_reason` parks an execution for a person. The partial index holds active leases only.
    description: 'v34 execution_leases.active, runner_key, recover_attempts, attention_reason; execution_recoveries',
    sql: `
      ALTER TABLE execution_leases ADD COLUMN active INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE execution_leases ADD COLUMN runner_key TEXT;
      ALTER TABLE execution_leases ADD COLUMN recover_attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE execution_leases ADD COLUMN attention_reason TEXT;
      CREATE INDEX idx_leases_active ON execution_leases(expires_at) WHERE active = 1;
      CREATE TABLE execution_recoveries (
        execution_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        recovered_by TEXT NOT NULL,
        reason TEXT,
        at TEXT NOT NULL
      );
      CREATE INDEX idx_recoveries_at ON execution_recoveries(at);`,
  },
  {
    // Served requests' Idempotency-Keys (docs/adr/0052), written in the transaction of the first row of the execution
    // each one started: the primary key decides which of two concurrent requests with one key runs. Times are epoch
    // milliseconds, as the lease's; the expiry index serves the prune.
    description: 'v35 served_idempotency_keys: Idempotency-Key of a served request, its caller, body fingerprint and execution',
    sql: `
      CREATE TABLE served_idempotency_keys (
        caller TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        execution_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (caller, idempotency_key)
      );
      CREATE INDEX idx_served_idempotency_keys_expires ON served_idempotency_keys(expires_at);`,
  },
  {
    // Consent at write time (docs/adr/0054): a row written while not connected is local-only (synced = 1, so the
    // outbox index never holds it, and local_only = 1 so `platform push` can find it); one written while connected is
    // queued with the project then in effect. Rows queued before this version carried no consent: they become
    // local-only (release notes), and `agentkit platform push` sends them on request. Eval runs the same.
    description: 'v36 checkpoints.local_only and eval_runs.local_only: consent stamped at write time; unsent rows become local-only',
    sql: `
      ALTER TABLE checkpoints ADD COLUMN local_only INTEGER NOT NULL DEFAULT 0;
      UPDATE checkpoints SET local_only = 1, synced = 1 WHERE synced = 0 AND quarantine_reason IS NULL;
      ALTER TABLE eval_runs ADD COLUMN local_only INTEGER NOT NULL DEFAULT 0;
      UPDATE eval_runs SET local_only = 1, synced = 1 WHERE synced = 0;`,
  },
  {
    // `traces list` over a large store (issue 38): every record starts with a row whose stored parent is null
    // (docs/adr/0009), so the records started in a window are the parentless rows in it. A partial index holds only
    // those (about one span in eight), so listing the last day of a 1,000,000-span store reads that day's roots
    // instead of grouping every span; writes pay one small index entry per run, not per span (docs/adr/0034).
    description: 'v37 idx_spans_root_start: the start time of each record root (parentless span), for listings by time',
    sql: 'CREATE INDEX idx_spans_root_start ON spans(start_time) WHERE parent_span_id IS NULL;',
  },
  {
    // Conflicts shown by `list-pending`, `inspect` and the UI inbox (docs/adr/0054) are the quarantined rows. They
    // are rare, so a partial index holds only them: the listing reads those rows instead of every checkpoint.
    description: 'v38 idx_cp_quarantined: the quarantined checkpoints (connected-mode conflicts), by execution',
    sql: 'CREATE INDEX idx_cp_quarantined ON checkpoints(execution_id) WHERE quarantine_reason IS NOT NULL;',
  },
  {
    // UI replay forks on the store (issue 39, src/forks/): any UI process on this file reads, reruns and compares a
    // fork another made, and a restart keeps them. JSON columns hold the JSON text written.
    description: 'v39 ui_forks: a replay fork (source trace, step, modifications, latest rerun)',
    sql: `
      CREATE TABLE ui_forks (
        fork_id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        modifications TEXT NOT NULL,
        rerun TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );`,
  },
];

/** The first schema version whose execution leases say which executions are active (recovery, docs/adr/0050). */
export const RECOVERY_VERSION = 34;

/** The first schema version whose spans table has `caller_trace_id`. */
export const CALLER_TRACE_VERSION = 31;

/** The first schema version with `trace_keys` (the key of the hashes beside masked span values). */
export const TRACE_KEYS_VERSION = 32;

/** The schema version this agentkit writes. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.length;

/** The store's current schema version. */
export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
