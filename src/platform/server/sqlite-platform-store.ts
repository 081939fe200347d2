/**
 * The Platform's store on one SQLite file (issue 42): the `platform_*` tables (./sqlite-schema.ts), one connection per
 * store object. Every write that decides something (a claim, a lease, a rate token) is one IMMEDIATE transaction, so
 * two server processes on one file serialize on its write lock; reads take none. The server secret lives in a 0600
 * file beside the store (`<file>.secret`, ADR 0067).
 */
import Database from 'better-sqlite3';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { IngestedSpan } from './ingested-span.js';
import { SQLITE_PLATFORM_SCHEMA } from './sqlite-schema.js';
import { envSecret } from './server-secret.js';
import {
  type CheckpointInput,
  type ClaimInput,
  type ClaimRecord,
  type EvalRunInput,
  type LeaseRecord,
  type PlatformStore,
  type PlatformTraceSummary,
  type RateDecision,
  type RequestRecord,
  type StoredApiKey,
  type StoredRow,
  endedExecutions,
  isRoot,
  SPAN_COLUMNS,
  spanProblem,
  spanValues,
} from './store-types.js';

interface KeyRow {
  id: string;
  prefix: string;
  project: string;
  scopes: string;
  digest: string;
  created_at: string;
  revoked_at: string | null;
}

const keyOf = (row: KeyRow): StoredApiKey => ({ ...row, scopes: JSON.parse(row.scopes) as StoredApiKey['scopes'] });

interface ClaimRow {
  project: string;
  execution_id: string;
  pending_created_at: string;
  claim_id: string;
  host: string;
  decision: string;
  decided_at: string;
}

const claimOf = ({ project: _p, ...row }: ClaimRow): ClaimRecord => ({ ...row, decision: JSON.parse(row.decision) as ClaimRecord['decision'] });

interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: number;
  start_time: string;
  end_time: string | null;
  status: IngestedSpan['status'];
  status_message: string | null;
  attributes: string;
  events: string;
  resource: string;
  scope: string | null;
}

/** A stored span row as the shared span type. */
export function spanOf(row: SpanRow): IngestedSpan {
  return {
    ...row,
    kind: Number(row.kind),
    attributes: JSON.parse(row.attributes) as IngestedSpan['attributes'],
    events: JSON.parse(row.events) as IngestedSpan['events'],
    resource: JSON.parse(row.resource) as IngestedSpan['resource'],
  };
}

export class SQLitePlatformStore implements PlatformStore {
  readonly label: string;
  readonly db: Database.Database;
  readonly #file: string;

  /** The Platform tables of the SQLite file `file` (created with its directory when missing). */
  constructor(file: string) {
    this.#file = file;
    this.label = file;
    mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SQLITE_PLATFORM_SCHEMA);
  }

  async serverSecret(): Promise<Buffer> {
    const fromEnv = envSecret();
    if (fromEnv) return fromEnv;
    const file = `${this.#file}.secret`;
    try {
      return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // 'wx': two processes making it at once cannot both write; the loser reads the winner's.
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
      chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }

  async addKey(key: StoredApiKey): Promise<void> {
    this.db
      .prepare('INSERT INTO platform_keys (project, id, prefix, scopes, digest, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(key.project, key.id, key.prefix, JSON.stringify(key.scopes), key.digest, key.created_at, key.revoked_at);
  }

  async keysByPrefix(prefix: string): Promise<StoredApiKey[]> {
    return (this.db.prepare('SELECT * FROM platform_keys WHERE prefix = ? ORDER BY created_at, id').all(prefix) as KeyRow[]).map(keyOf);
  }

  async listKeys(): Promise<StoredApiKey[]> {
    return (this.db.prepare('SELECT * FROM platform_keys ORDER BY created_at, id').all() as KeyRow[]).map(keyOf);
  }

  async revokeKeys(ids: readonly string[], at: string): Promise<StoredApiKey[]> {
    const update = this.db.prepare('UPDATE platform_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *');
    return this.db.transaction(() => ids.flatMap((id) => (update.all(at, id) as KeyRow[]).map(keyOf))).immediate();
  }

  async putCheckpoints(project: string, rows: readonly CheckpointInput[], keyId: string): Promise<void> {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO platform_checkpoints (project, checkpoint_id, execution_id, created_at, step_type, root, key_id, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const row of rows) {
        const step = typeof row.step_type === 'string' ? row.step_type : null;
        insert.run(project, row.checkpoint_id, row.execution_id, row.created_at, step, isRoot(row) ? 1 : 0, keyId, JSON.stringify(row));
      }
    })();
  }

  async latestCheckpoint(project: string, executionId: string): Promise<CheckpointInput | null> {
    const row = this.db
      .prepare('SELECT body FROM platform_checkpoints WHERE project = ? AND execution_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1')
      .get(project, executionId) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as CheckpointInput) : null;
  }

  async checkpointHistory(project: string, executionId: string): Promise<CheckpointInput[]> {
    const rows = this.db
      .prepare('SELECT body FROM platform_checkpoints WHERE project = ? AND execution_id = ? ORDER BY created_at ASC, seq ASC')
      .all(project, executionId) as Array<{ body: string }>;
    return rows.map((row) => JSON.parse(row.body) as CheckpointInput);
  }

  async checkpoints(project?: string): Promise<Array<StoredRow<CheckpointInput>>> {
    return this.#stored('platform_checkpoints', project);
  }

  async finishedAt(project: string, executionId: string): Promise<string | null> {
    const row = this.db
      .prepare("SELECT created_at FROM platform_checkpoints WHERE project = ? AND execution_id = ? AND step_type = 'run_end' AND root = 1 ORDER BY seq LIMIT 1")
      .get(project, executionId) as { created_at: string } | undefined;
    return row?.created_at ?? null;
  }

  async claimPause(project: string, claim: ClaimInput, keyId: string): Promise<{ won: boolean; record: ClaimRecord }> {
    return this.db
      .transaction(() => {
        this.db
          .prepare(
            `INSERT OR IGNORE INTO platform_claims (project, execution_id, pending_created_at, claim_id, host, decision, decided_at, key_id)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            project,
            claim.execution_id,
            claim.pending_created_at,
            claim.claim_id,
            claim.host,
            JSON.stringify(claim.decision),
            new Date().toISOString(),
            keyId,
          );
        const row = this.db
          .prepare('SELECT * FROM platform_claims WHERE project = ? AND execution_id = ? AND pending_created_at = ?')
          .get(project, claim.execution_id, claim.pending_created_at) as ClaimRow;
        const record = claimOf(row);
        return { won: record.claim_id === claim.claim_id, record };
      })
      .immediate();
  }

  async claims(project?: string): Promise<Array<ClaimRecord & { project: string }>> {
    const rows = (
      project === undefined
        ? this.db.prepare('SELECT * FROM platform_claims ORDER BY seq').all()
        : this.db.prepare('SELECT * FROM platform_claims WHERE project = ? ORDER BY seq').all(project)
    ) as ClaimRow[];
    return rows.map((row) => ({ project: row.project, ...claimOf(row) }));
  }

  async leaseExecution(
    project: string,
    executionId: string,
    holder: string,
    host: string,
    ttlMs: number,
    now = Date.now(),
  ): Promise<{ won: boolean; lease: LeaseRecord }> {
    return this.db
      .transaction(() => {
        const current = this.db
          .prepare('SELECT holder, host, expires_at FROM platform_leases WHERE project = ? AND execution_id = ?')
          .get(project, executionId) as { holder: string; host: string; expires_at: number } | undefined;
        if (current && current.expires_at > now && current.holder !== holder) return { won: false, lease: leaseOf(executionId, current) };
        const next = { holder, host, expires_at: now + ttlMs };
        this.db
          .prepare('INSERT OR REPLACE INTO platform_leases (project, execution_id, holder, host, ttl_ms, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
          .run(project, executionId, holder, host, ttlMs, next.expires_at);
        return { won: true, lease: leaseOf(executionId, next) };
      })
      .immediate();
  }

  async touchLeases(project: string, rows: readonly CheckpointInput[], ttlMs: number, now = Date.now()): Promise<void> {
    const ended = endedExecutions(rows);
    const live = new Set(rows.map((r) => r.execution_id).filter((id) => !ended.has(id)));
    this.db
      .transaction(() => {
        for (const id of ended) this.db.prepare('DELETE FROM platform_leases WHERE project = ? AND execution_id = ?').run(project, id);
        for (const id of live) {
          const extended = this.db
            .prepare('UPDATE platform_leases SET expires_at = ? + ttl_ms WHERE project = ? AND execution_id = ? AND expires_at > ?')
            .run(now, project, id, now).changes;
          if (extended === 0) {
            this.db
              .prepare('INSERT OR REPLACE INTO platform_leases (project, execution_id, holder, host, ttl_ms, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
              .run(project, id, 'its running run', 'the host sending its rows', ttlMs, now + ttlMs);
          }
        }
      })
      .immediate();
  }

  async putEvalRuns(project: string, runs: readonly EvalRunInput[], keyId: string): Promise<void> {
    const upsert = this.db.prepare(
      `INSERT INTO platform_eval_runs (project, run_id, key_id, body) VALUES (?, ?, ?, ?)
       ON CONFLICT (project, run_id) DO UPDATE SET key_id = excluded.key_id, body = excluded.body`,
    );
    this.db.transaction(() => {
      for (const run of runs) upsert.run(project, run.run_id, keyId, JSON.stringify(run));
    })();
  }

  async evalRuns(project?: string): Promise<Array<StoredRow<EvalRunInput>>> {
    return this.#stored('platform_eval_runs', project);
  }

  async evalRun(project: string, runId: string): Promise<EvalRunInput | null> {
    const row = this.db.prepare('SELECT body FROM platform_eval_runs WHERE project = ? AND run_id = ?').get(project, runId) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as EvalRunInput) : null;
  }

  async putSpans(project: string, spans: readonly IngestedSpan[]): Promise<{ rejected: Array<{ span_id: string; reason: string }> }> {
    const rejected: Array<{ span_id: string; reason: string }> = [];
    const insert = this.db.prepare(`INSERT OR IGNORE INTO platform_spans (project, ${SPAN_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(SPAN_COLUMNS.length)})`);
    this.db.transaction(() => {
      for (const span of spans) {
        const problem = spanProblem(span);
        if (problem) rejected.push({ span_id: span.span_id, reason: problem });
        else insert.run(project, ...spanValues(span));
      }
    })();
    return { rejected };
  }

  async traceSpans(project: string, traceId: string): Promise<IngestedSpan[]> {
    const rows = this.db
      .prepare(
        `SELECT trace_id, span_id, parent_span_id, name, kind, start_time, end_time, status, status_message, attributes, events, resource, scope
         FROM platform_spans WHERE project = ? AND trace_id = ? ORDER BY start_time, seq`,
      )
      .all(project, traceId) as SpanRow[];
    return rows.map(spanOf);
  }

  async traceSummaries(project: string, options: { since: string; limit?: number; text?: string }): Promise<PlatformTraceSummary[]> {
    const { since, limit, text } = options;
    if (text?.includes('\u0000')) return [];
    // Roots in the window (the roots index), the earliest of a trace with several (SQLite takes the bare columns
    // from the row min() picks); then each trace's spans aggregated.
    const matching =
      text === undefined
        ? ''
        : `AND trace_id IN (SELECT trace_id FROM platform_spans WHERE project = @project
                              AND (instr(lower(name), lower(@text)) > 0 OR instr(lower(attributes), lower(@text)) > 0))`;
    return this.db
      .prepare(
        `WITH roots AS (
           SELECT trace_id, name, status, min(start_time) AS root_start FROM platform_spans
           WHERE project = @project AND parent_span_id IS NULL AND start_time >= @since ${matching}
           GROUP BY trace_id ORDER BY root_start DESC, trace_id LIMIT @limit)
         SELECT r.trace_id, r.name,
                CASE WHEN max(s.status = 'ERROR') = 1 THEN 'ERROR' ELSE r.status END AS status,
                count(*) AS span_count, min(s.start_time) AS start_time,
                CASE WHEN count(s.end_time) = count(*) THEN max(s.end_time) END AS end_time
         FROM roots r JOIN platform_spans s ON s.project = @project AND s.trace_id = r.trace_id
         GROUP BY r.trace_id ORDER BY r.root_start DESC, r.trace_id`,
      )
      .all({ project, since, limit: limit ?? -1, ...(text === undefined ? {} : { text }) }) as PlatformTraceSummary[];
  }

  async traceIdsWithPrefix(project: string, prefix: string, limit: number): Promise<string[]> {
    // Ids are lowercase hex, so a range on the key is the prefix match (no LIKE wildcards to escape).
    const rows = this.db
      .prepare(`SELECT DISTINCT trace_id FROM platform_spans WHERE project = ? AND trace_id >= ? AND trace_id < ? ORDER BY trace_id LIMIT ?`)
      .all(project, prefix, `${prefix}~`, limit) as Array<{ trace_id: string }>;
    return rows.map((row) => row.trace_id);
  }

  async recordRequest(record: RequestRecord): Promise<void> {
    this.db
      .prepare('INSERT INTO platform_requests (project, route, key_id, at) VALUES (?, ?, ?, ?)')
      .run(record.project, record.route, record.key_id, record.at);
  }

  async requests(): Promise<RequestRecord[]> {
    return this.db.prepare('SELECT project, route, key_id, at FROM platform_requests ORDER BY seq').all() as RequestRecord[];
  }

  async takeRateToken(project: string, keyId: string, rate: number, burst: number, now = Date.now()): Promise<RateDecision> {
    return this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT tokens, updated_ms FROM platform_rate_buckets WHERE project = ? AND key_id = ?').get(project, keyId) as
          | { tokens: number; updated_ms: number }
          | undefined;
        const refilled = row ? Math.min(burst, row.tokens + (Math.max(0, now - row.updated_ms) * rate) / 1000) : burst;
        const allowed = refilled >= 1;
        const tokens = allowed ? refilled - 1 : refilled;
        this.db
          .prepare('INSERT OR REPLACE INTO platform_rate_buckets (project, key_id, tokens, updated_ms) VALUES (?, ?, ?, ?)')
          .run(project, keyId, tokens, Math.max(now, row?.updated_ms ?? now));
        return { allowed, retryAfterMs: allowed ? 0 : Math.ceil(((1 - tokens) * 1000) / rate) };
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  #stored<T>(table: 'platform_checkpoints' | 'platform_eval_runs', project: string | undefined): Array<StoredRow<T>> {
    const rows = (
      project === undefined
        ? this.db.prepare(`SELECT project, key_id, body FROM ${table} ORDER BY seq`).all()
        : this.db.prepare(`SELECT project, key_id, body FROM ${table} WHERE project = ? ORDER BY seq`).all(project)
    ) as Array<{ project: string; key_id: string; body: string }>;
    return rows.map((r) => ({ project: r.project, key_id: r.key_id, body: JSON.parse(r.body) as T }));
  }
}

function leaseOf(executionId: string, row: { holder: string; host: string; expires_at: number }): LeaseRecord {
  return { execution_id: executionId, holder: row.holder, host: row.host, expires_at: new Date(Number(row.expires_at)).toISOString() };
}
