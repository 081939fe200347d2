/**
 * The local Platform's store: one SQLite file (or `:memory:`) holding what connected mode sent: replicated
 * checkpoints, exported eval runs, traces (seeded by `putTrace`: the contract has no trace upload), the claim in
 * force per pause of a replicated execution (ADR 0054; keyed by execution and pause so issue 42's Platform can keep
 * the table), and one row per
 * authenticated request naming the key by fingerprint (never the key), so tests can prove which key each request
 * carried.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';

/** First 16 hex characters of the key's SHA-256: identifies a key in the store without holding it. */
export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

export interface StoredRow<T> {
  key_id: string;
  project: string | null;
  body: T;
}

/** A claim as the route receives it (ADR 0054). */
export interface ClaimInput {
  execution_id: string;
  pending_created_at: string;
  claim_id: string;
  host: string;
  decision: { resume: Record<string, unknown>; decided_by: { principal: string; surface: string }; reason?: string | null };
}

/** The Platform's lease of an execution, as the lease route answers it. */
export interface LeaseRow {
  execution_id: string;
  holder: string;
  host: string;
  expires_at: string;
}

function leaseRow(executionId: string, row: { holder: string; host: string; expires_at: number }): LeaseRow {
  return { execution_id: executionId, holder: row.holder, host: row.host, expires_at: new Date(row.expires_at).toISOString() };
}

/** The claim in force for a pause. */
export interface ClaimRow extends ClaimInput {
  decided_at: string;
}

export class PlatformStore {
  readonly db: Database.Database;

  constructor(path = ':memory:') {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS checkpoints (
        checkpoint_id TEXT PRIMARY KEY, execution_id TEXT NOT NULL, created_at TEXT NOT NULL,
        project TEXT, key_id TEXT NOT NULL, body TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS checkpoints_execution ON checkpoints (execution_id, created_at);
      CREATE TABLE IF NOT EXISTS eval_runs (
        run_id TEXT PRIMARY KEY, project TEXT, key_id TEXT NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS traces (trace_id TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS execution_claims (
        execution_id TEXT NOT NULL, pending_created_at TEXT NOT NULL, claim_id TEXT NOT NULL, host TEXT NOT NULL,
        decision TEXT NOT NULL, decided_at TEXT NOT NULL, key_id TEXT NOT NULL,
        PRIMARY KEY (execution_id, pending_created_at));
      CREATE TABLE IF NOT EXISTS execution_leases (
        execution_id TEXT PRIMARY KEY, holder TEXT NOT NULL, host TEXT NOT NULL, ttl_ms INTEGER NOT NULL, expires_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS requests (
        id INTEGER PRIMARY KEY, route TEXT NOT NULL, key_id TEXT NOT NULL, at TEXT NOT NULL);
    `);
  }

  logRequest(route: string, keyId: string): void {
    this.db.prepare('INSERT INTO requests (route, key_id, at) VALUES (?, ?, ?)').run(route, keyId, new Date().toISOString());
  }

  /** Store checkpoints; a resent id is accepted again and left as first stored (ingest is idempotent). */
  putCheckpoints(rows: ReadonlyArray<{ checkpoint_id: string; execution_id: string; created_at: string }>, project: string | null, keyId: string): void {
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO checkpoints (checkpoint_id, execution_id, created_at, project, key_id, body) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const row of rows) insert.run(row.checkpoint_id, row.execution_id, row.created_at, project, keyId, JSON.stringify(row));
    })();
  }

  /**
   * Claim a pause (ADR 0054): one INSERT OR IGNORE on the (execution, pause) key decides the winner atomically, then
   * the claim in force is read back in the same transaction. `won` is true when it carries `claimId` (a first claim,
   * or the same claim id retried after a lost response).
   */
  claimPause(claim: ClaimInput, keyId: string): { won: boolean; record: ClaimRow } {
    return this.db
      .transaction(() => {
        this.db
          .prepare(
            `INSERT OR IGNORE INTO execution_claims (execution_id, pending_created_at, claim_id, host, decision, decided_at, key_id)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(claim.execution_id, claim.pending_created_at, claim.claim_id, claim.host, JSON.stringify(claim.decision), new Date().toISOString(), keyId);
        const row = this.db
          .prepare(
            'SELECT execution_id, pending_created_at, claim_id, host, decision, decided_at FROM execution_claims WHERE execution_id = ? AND pending_created_at = ?',
          )
          .get(claim.execution_id, claim.pending_created_at) as Omit<ClaimRow, 'decision'> & { decision: string };
        const record: ClaimRow = { ...row, decision: JSON.parse(row.decision) as ClaimRow['decision'] };
        return { won: record.claim_id === claim.claim_id, record };
      })
      .immediate();
  }

  /**
   * Lease an execution to continue it (ADR 0054): granted when no lease is in force, it lapsed, or to its holder
   * again; else the lease in force. One immediate transaction decides between racing hosts.
   */
  leaseExecution(executionId: string, holder: string, host: string, ttlMs: number, now = Date.now()): { won: boolean; lease: LeaseRow } {
    return this.db
      .transaction(() => {
        const current = this.db.prepare('SELECT holder, host, expires_at FROM execution_leases WHERE execution_id = ?').get(executionId) as
          | { holder: string; host: string; expires_at: number }
          | undefined;
        if (current && current.expires_at > now && current.holder !== holder) return { won: false, lease: leaseRow(executionId, current) };
        const next = { holder, host, expires_at: now + ttlMs };
        this.db
          .prepare('INSERT OR REPLACE INTO execution_leases (execution_id, holder, host, ttl_ms, expires_at) VALUES (?, ?, ?, ?, ?)')
          .run(executionId, holder, host, ttlMs, next.expires_at);
        return { won: true, lease: leaseRow(executionId, next) };
      })
      .immediate();
  }

  /**
   * Rows of executions arrived (ADR 0054): each execution's lease is extended by its own time to live, or, with none
   * in force, one is started for the host sending them (`ttlMs`), so a run still running elsewhere is never
   * continued by another host; a root `run_end` (the run's terminal row) ends it.
   */
  touchLeases(rows: ReadonlyArray<{ execution_id: string; step_type?: unknown; agent_path?: unknown }>, ttlMs: number, now = Date.now()): void {
    const ended = new Set(
      rows.filter((r) => r.step_type === 'run_end' && (r.agent_path == null || !String(r.agent_path).includes('/'))).map((r) => r.execution_id),
    );
    const live = new Set(rows.map((r) => r.execution_id).filter((id) => !ended.has(id)));
    this.db.transaction(() => {
      for (const id of ended) this.db.prepare('DELETE FROM execution_leases WHERE execution_id = ?').run(id);
      for (const id of live) {
        const extended = this.db
          .prepare('UPDATE execution_leases SET expires_at = ? + ttl_ms WHERE execution_id = ? AND expires_at > ?')
          .run(now, id, now).changes;
        if (extended === 0) {
          this.db
            .prepare('INSERT OR REPLACE INTO execution_leases (execution_id, holder, host, ttl_ms, expires_at) VALUES (?, ?, ?, ?, ?)')
            .run(id, 'its running run', 'the host sending its rows', ttlMs, now + ttlMs);
        }
      }
    })();
  }

  /** When the execution's root `run_end` arrived (its created_at), or null while the Platform holds none. */
  finishedAt(executionId: string): string | null {
    const rows = this.db
      .prepare("SELECT body FROM checkpoints WHERE execution_id = ? AND json_extract(body, '$.step_type') = 'run_end' ORDER BY rowid")
      .all(executionId) as Array<{ body: string }>;
    for (const { body } of rows) {
      const row = JSON.parse(body) as { agent_path?: string | null; created_at: string };
      if (row.agent_path == null || !row.agent_path.includes('/')) return row.created_at;
    }
    return null;
  }

  /** Every claim in force, oldest first. */
  claims(): ClaimRow[] {
    return (
      this.db.prepare('SELECT execution_id, pending_created_at, claim_id, host, decision, decided_at FROM execution_claims ORDER BY rowid').all() as Array<
        Omit<ClaimRow, 'decision'> & { decision: string }
      >
    ).map((row) => ({ ...row, decision: JSON.parse(row.decision) as ClaimRow['decision'] }));
  }

  /** The newest checkpoint of an execution (latest created_at, then arrival order), or null. */
  latestCheckpoint(executionId: string): unknown {
    const row = this.db.prepare('SELECT body FROM checkpoints WHERE execution_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(executionId) as
      | { body: string }
      | undefined;
    return row ? JSON.parse(row.body) : null;
  }

  /** Every checkpoint of an execution, oldest first (created_at, then arrival order). */
  checkpointHistory(executionId: string): unknown[] {
    const rows = this.db.prepare('SELECT body FROM checkpoints WHERE execution_id = ? ORDER BY created_at ASC, rowid ASC').all(executionId) as Array<{
      body: string;
    }>;
    return rows.map((row) => JSON.parse(row.body));
  }

  checkpoints(): Array<StoredRow<Record<string, unknown>>> {
    return this.rows('SELECT key_id, project, body FROM checkpoints ORDER BY rowid');
  }

  putEvalRuns(runs: ReadonlyArray<{ run_id: string }>, project: string | null, keyId: string): void {
    const insert = this.db.prepare('INSERT OR REPLACE INTO eval_runs (run_id, project, key_id, body) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const run of runs) insert.run(run.run_id, project, keyId, JSON.stringify(run));
    })();
  }

  evalRuns(): Array<StoredRow<Record<string, unknown>>> {
    return this.rows('SELECT key_id, project, body FROM eval_runs ORDER BY rowid');
  }

  putTrace(trace: { trace_id: string }): void {
    this.db.prepare('INSERT OR REPLACE INTO traces (trace_id, body) VALUES (?, ?)').run(trace.trace_id, JSON.stringify(trace));
  }

  trace(traceId: string): unknown {
    const row = this.db.prepare('SELECT body FROM traces WHERE trace_id = ?').get(traceId) as { body: string } | undefined;
    return row ? JSON.parse(row.body) : null;
  }

  requests(): Array<{ route: string; key_id: string }> {
    return this.db.prepare('SELECT route, key_id FROM requests ORDER BY id').all() as Array<{ route: string; key_id: string }>;
  }

  close(): void {
    this.db.close();
  }

  private rows(sql: string): Array<StoredRow<Record<string, unknown>>> {
    return (this.db.prepare(sql).all() as Array<{ key_id: string; project: string | null; body: string }>).map((r) => ({
      key_id: r.key_id,
      project: r.project,
      body: JSON.parse(r.body) as Record<string, unknown>,
    }));
  }
}
