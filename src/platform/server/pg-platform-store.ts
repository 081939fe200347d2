/**
 * The Platform's store on Postgres (issue 42): the `platform` family (./pg-schema.ts) in the store's schema, migrated
 * on first use through the shared family handle (store/pg-family-tables.ts), so replicas on one store share every row.
 * Claims are one `INSERT ... ON CONFLICT DO NOTHING` then a read in one transaction; leases lock the execution's row
 * (`SELECT ... FOR UPDATE` after making sure it exists); a rate token is one conditional upsert, so replicas share each
 * key's bucket (ADR 0068). Times are ISO text compared byte-wise (`COLLATE "C"`, as SQLite compares them). Connection
 * failures surface as StorageUnavailableError (HTTP 503).
 */
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import { PgFamilyTables } from '../../store/pg-family-tables.js';
import { inPgTransaction } from '../../store/pg-transaction.js';
import { asStorageError } from '../../store/storage-errors.js';
import type { Store } from '../../store/store-handle.js';
import type { IngestedSpan } from './ingested-span.js';
import { PG_PLATFORM_FAMILY } from './pg-schema.js';
import { envSecret } from './server-secret.js';
import { spanOf } from './sqlite-platform-store.js';
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

type Queryable = Pick<pg.PoolClient, 'query'>;

interface KeyRow {
  id: string;
  prefix: string;
  project: string;
  scopes: string;
  digest: string;
  created_at: string;
  revoked_at: string | null;
}

const keyOf = (row: KeyRow): StoredApiKey => ({
  id: row.id,
  prefix: row.prefix,
  project: row.project,
  scopes: JSON.parse(row.scopes) as StoredApiKey['scopes'],
  digest: row.digest,
  created_at: row.created_at,
  revoked_at: row.revoked_at,
});

const CLAIM_COLUMNS = 'project, execution_id, pending_created_at, claim_id, host, decision, decided_at';

function claimOf(row: Omit<ClaimRecord, 'decision'> & { project: string; decision: string }): ClaimRecord & { project: string } {
  return { ...row, decision: JSON.parse(row.decision) as ClaimRecord['decision'] };
}

export class PostgresPlatformStore implements PlatformStore {
  readonly label: string;
  readonly #tables: PgFamilyTables;
  readonly #s: string;
  /** How outage errors (HTTP 503 bodies) name this store: the schema, never the server's address. */
  readonly #outageName: string;

  /** The Platform tables of a Postgres store; `close()` releases the handle. */
  constructor(store: Store) {
    this.#tables = new PgFamilyTables(store, PG_PLATFORM_FAMILY);
    this.label = store.label;
    this.#s = this.#tables.s;
    this.#outageName = `the Platform store (Postgres schema "${store.schema}")`;
  }

  async serverSecret(): Promise<Buffer> {
    const fromEnv = envSecret();
    if (fromEnv) return fromEnv;
    return this.#run(async (pool) => {
      await pool.query(`INSERT INTO ${this.#s}.platform_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [randomBytes(32).toString('hex')]);
      const row = (await pool.query<{ secret: string }>(`SELECT secret FROM ${this.#s}.platform_secret WHERE id = 1`)).rows[0]!;
      return Buffer.from(row.secret, 'hex');
    });
  }

  async addKey(key: StoredApiKey): Promise<void> {
    await this.#run((pool) =>
      pool.query(`INSERT INTO ${this.#s}.platform_keys (project, id, prefix, scopes, digest, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        key.project,
        key.id,
        key.prefix,
        JSON.stringify(key.scopes),
        key.digest,
        key.created_at,
        key.revoked_at,
      ]),
    );
  }

  async keysByPrefix(prefix: string): Promise<StoredApiKey[]> {
    return this.#run(async (pool) =>
      (await pool.query<KeyRow>(`SELECT * FROM ${this.#s}.platform_keys WHERE prefix = $1 ORDER BY created_at, id`, [prefix])).rows.map(keyOf),
    );
  }

  async listKeys(): Promise<StoredApiKey[]> {
    return this.#run(async (pool) => (await pool.query<KeyRow>(`SELECT * FROM ${this.#s}.platform_keys ORDER BY created_at, id`)).rows.map(keyOf));
  }

  async revokeKeys(ids: readonly string[], at: string): Promise<StoredApiKey[]> {
    return this.#run(async (pool) =>
      (
        await pool.query<KeyRow>(`UPDATE ${this.#s}.platform_keys SET revoked_at = $1 WHERE id = ANY($2) AND revoked_at IS NULL RETURNING *`, [at, [...ids]])
      ).rows.map(keyOf),
    );
  }

  async putCheckpoints(project: string, rows: readonly CheckpointInput[], keyId: string): Promise<void> {
    if (rows.length === 0) return;
    await this.#transaction(async (client) => {
      for (const row of rows) {
        await client.query(
          `INSERT INTO ${this.#s}.platform_checkpoints (project, checkpoint_id, execution_id, created_at, step_type, root, key_id, body)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (project, checkpoint_id) DO NOTHING`,
          [
            project,
            row.checkpoint_id,
            row.execution_id,
            row.created_at,
            typeof row.step_type === 'string' ? row.step_type : null,
            isRoot(row),
            keyId,
            JSON.stringify(row),
          ],
        );
      }
    });
  }

  async latestCheckpoint(project: string, executionId: string): Promise<CheckpointInput | null> {
    const rows = await this.#read<{ body: string }>(
      `SELECT body FROM ${this.#s}.platform_checkpoints WHERE project = $1 AND execution_id = $2 ORDER BY created_at COLLATE "C" DESC, seq DESC LIMIT 1`,
      [project, executionId],
    );
    return rows[0] ? (JSON.parse(rows[0].body) as CheckpointInput) : null;
  }

  async checkpointHistory(project: string, executionId: string): Promise<CheckpointInput[]> {
    const rows = await this.#read<{ body: string }>(
      `SELECT body FROM ${this.#s}.platform_checkpoints WHERE project = $1 AND execution_id = $2 ORDER BY created_at COLLATE "C" ASC, seq ASC`,
      [project, executionId],
    );
    return rows.map((row) => JSON.parse(row.body) as CheckpointInput);
  }

  async checkpoints(project?: string): Promise<Array<StoredRow<CheckpointInput>>> {
    return this.#stored('platform_checkpoints', project);
  }

  async finishedAt(project: string, executionId: string): Promise<string | null> {
    const rows = await this.#read<{ created_at: string }>(
      `SELECT created_at FROM ${this.#s}.platform_checkpoints WHERE project = $1 AND execution_id = $2 AND step_type = 'run_end' AND root ORDER BY seq LIMIT 1`,
      [project, executionId],
    );
    return rows[0]?.created_at ?? null;
  }

  async claimPause(project: string, claim: ClaimInput, keyId: string): Promise<{ won: boolean; record: ClaimRecord }> {
    return this.#transaction(async (client) => {
      await client.query(
        `INSERT INTO ${this.#s}.platform_claims (project, execution_id, pending_created_at, claim_id, host, decision, decided_at, key_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (project, execution_id, pending_created_at) DO NOTHING`,
        [project, claim.execution_id, claim.pending_created_at, claim.claim_id, claim.host, JSON.stringify(claim.decision), new Date().toISOString(), keyId],
      );
      const row = (
        await client.query(`SELECT ${CLAIM_COLUMNS} FROM ${this.#s}.platform_claims WHERE project = $1 AND execution_id = $2 AND pending_created_at = $3`, [
          project,
          claim.execution_id,
          claim.pending_created_at,
        ])
      ).rows[0] as Omit<ClaimRecord, 'decision'> & { project: string; decision: string };
      const { project: _p, ...record } = claimOf(row);
      return { won: record.claim_id === claim.claim_id, record };
    });
  }

  async claims(project?: string): Promise<Array<ClaimRecord & { project: string }>> {
    const rows =
      project === undefined
        ? await this.#read(`SELECT ${CLAIM_COLUMNS} FROM ${this.#s}.platform_claims ORDER BY seq`, [])
        : await this.#read(`SELECT ${CLAIM_COLUMNS} FROM ${this.#s}.platform_claims WHERE project = $1 ORDER BY seq`, [project]);
    return (rows as Array<Omit<ClaimRecord, 'decision'> & { project: string; decision: string }>).map(claimOf);
  }

  async leaseExecution(
    project: string,
    executionId: string,
    holder: string,
    host: string,
    ttlMs: number,
    now = Date.now(),
  ): Promise<{ won: boolean; lease: LeaseRecord }> {
    return this.#transaction(async (client) => {
      // Make sure a row exists (a lapsed placeholder), then lock it: racing hosts queue on the lock and the second
      // reads what the first wrote.
      await client.query(
        `INSERT INTO ${this.#s}.platform_leases (project, execution_id, holder, host, ttl_ms, expires_at) VALUES ($1, $2, '', '', 0, 0)
         ON CONFLICT (project, execution_id) DO NOTHING`,
        [project, executionId],
      );
      const current = (
        await client.query<{ holder: string; host: string; expires_at: string }>(
          `SELECT holder, host, expires_at FROM ${this.#s}.platform_leases WHERE project = $1 AND execution_id = $2 FOR UPDATE`,
          [project, executionId],
        )
      ).rows[0]!;
      if (Number(current.expires_at) > now && current.holder !== holder) return { won: false, lease: leaseOf(executionId, current) };
      const next = { holder, host, expires_at: now + ttlMs };
      await client.query(
        `UPDATE ${this.#s}.platform_leases SET holder = $3, host = $4, ttl_ms = $5, expires_at = $6 WHERE project = $1 AND execution_id = $2`,
        [project, executionId, holder, host, ttlMs, next.expires_at],
      );
      return { won: true, lease: leaseOf(executionId, next) };
    });
  }

  async touchLeases(project: string, rows: readonly CheckpointInput[], ttlMs: number, now = Date.now()): Promise<void> {
    const ended = endedExecutions(rows);
    const live = [...new Set(rows.map((r) => r.execution_id).filter((id) => !ended.has(id)))].sort();
    if (ended.size === 0 && live.length === 0) return;
    await this.#transaction(async (client) => {
      if (ended.size > 0) await client.query(`DELETE FROM ${this.#s}.platform_leases WHERE project = $1 AND execution_id = ANY($2)`, [project, [...ended]]);
      for (const id of live) {
        // One statement per execution: extend the lease in force, or start one for the host sending the rows.
        await client.query(
          `INSERT INTO ${this.#s}.platform_leases AS l (project, execution_id, holder, host, ttl_ms, expires_at)
           VALUES ($1, $2, 'its running run', 'the host sending its rows', $3, $4::bigint + $3::bigint)
           ON CONFLICT (project, execution_id) DO UPDATE SET
             holder = CASE WHEN l.expires_at > $4 THEN l.holder ELSE excluded.holder END,
             host = CASE WHEN l.expires_at > $4 THEN l.host ELSE excluded.host END,
             ttl_ms = CASE WHEN l.expires_at > $4 THEN l.ttl_ms ELSE excluded.ttl_ms END,
             expires_at = CASE WHEN l.expires_at > $4 THEN $4::bigint + l.ttl_ms ELSE excluded.expires_at END`,
          [project, id, ttlMs, now],
        );
      }
    });
  }

  async putEvalRuns(project: string, runs: readonly EvalRunInput[], keyId: string): Promise<void> {
    if (runs.length === 0) return;
    await this.#transaction(async (client) => {
      for (const run of runs) {
        await client.query(
          `INSERT INTO ${this.#s}.platform_eval_runs (project, run_id, key_id, body) VALUES ($1, $2, $3, $4)
           ON CONFLICT (project, run_id) DO UPDATE SET key_id = excluded.key_id, body = excluded.body`,
          [project, run.run_id, keyId, JSON.stringify(run)],
        );
      }
    });
  }

  async evalRuns(project?: string): Promise<Array<StoredRow<EvalRunInput>>> {
    return this.#stored('platform_eval_runs', project);
  }

  async evalRun(project: string, runId: string): Promise<EvalRunInput | null> {
    const rows = await this.#read<{ body: string }>(`SELECT body FROM ${this.#s}.platform_eval_runs WHERE project = $1 AND run_id = $2`, [project, runId]);
    return rows[0] ? (JSON.parse(rows[0].body) as EvalRunInput) : null;
  }

  async putSpans(project: string, spans: readonly IngestedSpan[]): Promise<{ rejected: Array<{ span_id: string; reason: string }> }> {
    const rejected: Array<{ span_id: string; reason: string }> = [];
    const accepted = spans.filter((span) => {
      const problem = spanProblem(span);
      if (problem) rejected.push({ span_id: span.span_id, reason: problem });
      return !problem;
    });
    if (accepted.length === 0) return { rejected };
    // One statement for the batch (an OTLP request holds up to thousands of spans): one array per column, unnested.
    const rows = accepted.map(spanValues);
    const columns = SPAN_COLUMNS.map((_, i) => rows.map((row) => row[i]));
    const types = SPAN_COLUMNS.map((column) => (column === 'kind' ? 'int' : 'text'));
    await this.#transaction(async (client) => {
      await client.query(
        `INSERT INTO ${this.#s}.platform_spans (project, ${SPAN_COLUMNS.join(', ')})
         SELECT $1, ${SPAN_COLUMNS.map((c) => `u.${c}`).join(', ')}
         FROM unnest(${types.map((type, i) => `$${i + 2}::${type}[]`).join(', ')}) WITH ORDINALITY AS u(${SPAN_COLUMNS.join(', ')}, n)
         ORDER BY u.n
         ON CONFLICT (project, trace_id, span_id) DO NOTHING`,
        [project, ...columns],
      );
    });
    return { rejected };
  }

  async traceSpans(project: string, traceId: string): Promise<IngestedSpan[]> {
    const rows = await this.#read(
      `SELECT trace_id, span_id, parent_span_id, name, kind, start_time, end_time, status, status_message, attributes, events, resource, scope
       FROM ${this.#s}.platform_spans WHERE project = $1 AND trace_id = $2 ORDER BY start_time COLLATE "C", seq`,
      [project, traceId],
    );
    return (rows as Parameters<typeof spanOf>[0][]).map(spanOf);
  }

  async traceSummaries(project: string, options: { since: string; limit?: number; text?: string }): Promise<PlatformTraceSummary[]> {
    const { since, limit, text } = options;
    // Postgres text holds no NUL: such a text matches nothing.
    if (text?.includes('\u0000')) return [];
    const params: unknown[] = [project, since, limit ?? null];
    let matching = '';
    if (text !== undefined) {
      params.push(text);
      matching = `AND trace_id IN (SELECT trace_id FROM ${this.#s}.platform_spans WHERE project = $1
                                   AND (strpos(lower(name), lower($4)) > 0 OR strpos(lower(attributes), lower($4)) > 0))`;
    }
    // Roots in the window (the roots index), the earliest of a trace with several; then each trace's spans aggregated.
    const rows = await this.#read(
      `WITH roots AS (
         SELECT * FROM (
           SELECT DISTINCT ON (trace_id) trace_id, name, status, start_time AS root_start FROM ${this.#s}.platform_spans
           WHERE project = $1 AND parent_span_id IS NULL AND start_time COLLATE "C" >= $2 ${matching}
           ORDER BY trace_id, start_time COLLATE "C") firsts
         ORDER BY root_start COLLATE "C" DESC, trace_id LIMIT $3)
       SELECT r.trace_id, r.name,
              CASE WHEN bool_or(s.status = 'ERROR') THEN 'ERROR' ELSE r.status END AS status,
              count(*)::int AS span_count, min(s.start_time COLLATE "C") AS start_time,
              CASE WHEN count(s.end_time) = count(*) THEN max(s.end_time COLLATE "C") END AS end_time
       FROM roots r JOIN ${this.#s}.platform_spans s ON s.project = $1 AND s.trace_id = r.trace_id
       GROUP BY r.trace_id, r.name, r.status, r.root_start ORDER BY r.root_start COLLATE "C" DESC, r.trace_id`,
      params,
    );
    return rows as PlatformTraceSummary[];
  }

  async traceIdsWithPrefix(project: string, prefix: string, limit: number): Promise<string[]> {
    // Ids are lowercase hex, so a range on the key is the prefix match (no LIKE wildcards to escape).
    const rows = await this.#read(
      `SELECT DISTINCT trace_id FROM ${this.#s}.platform_spans
       WHERE project = $1 AND trace_id COLLATE "C" >= $2 AND trace_id COLLATE "C" < $3 ORDER BY trace_id LIMIT $4`,
      [project, prefix, `${prefix}~`, limit],
    );
    return (rows as Array<{ trace_id: string }>).map((row) => row.trace_id);
  }

  async recordRequest(record: RequestRecord): Promise<void> {
    await this.#run((pool) =>
      pool.query(`INSERT INTO ${this.#s}.platform_requests (project, route, key_id, at) VALUES ($1, $2, $3, $4)`, [
        record.project,
        record.route,
        record.key_id,
        record.at,
      ]),
    );
  }

  async requests(): Promise<RequestRecord[]> {
    return this.#read<RequestRecord>(`SELECT project, route, key_id, at FROM ${this.#s}.platform_requests ORDER BY seq`, []);
  }

  async takeRateToken(project: string, keyId: string, rate: number, burst: number, now = Date.now()): Promise<RateDecision> {
    // One statement: the row's lock serializes replicas; `allowed` records whether this call took a token.
    const refilled = `LEAST($3::float8, b.tokens + GREATEST(0, $5::bigint - b.updated_ms) * $4::float8 / 1000.0)`;
    return this.#run(async (pool) => {
      const row = (
        await pool.query<{ tokens: number; allowed: boolean }>(
          `INSERT INTO ${this.#s}.platform_rate_buckets AS b (project, key_id, tokens, updated_ms, allowed) VALUES ($1, $2, $3::float8 - 1, $5, true)
           ON CONFLICT (project, key_id) DO UPDATE SET
             tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
             allowed = ${refilled} >= 1,
             updated_ms = GREATEST(b.updated_ms, $5::bigint)
           RETURNING tokens, allowed`,
          [project, keyId, burst, rate, now],
        )
      ).rows[0]!;
      return { allowed: row.allowed, retryAfterMs: row.allowed ? 0 : Math.ceil(((1 - Number(row.tokens)) * 1000) / rate) };
    });
  }

  async close(): Promise<void> {
    await this.#tables.close();
  }

  async #stored<T>(table: 'platform_checkpoints' | 'platform_eval_runs', project: string | undefined): Promise<Array<StoredRow<T>>> {
    const rows =
      project === undefined
        ? await this.#read<{ project: string; key_id: string; body: string }>(`SELECT project, key_id, body FROM ${this.#s}.${table} ORDER BY seq`, [])
        : await this.#read<{ project: string; key_id: string; body: string }>(
            `SELECT project, key_id, body FROM ${this.#s}.${table} WHERE project = $1 ORDER BY seq`,
            [project],
          );
    return rows.map((r) => ({ project: r.project, key_id: r.key_id, body: JSON.parse(r.body) as T }));
  }

  /** Rows of a read; none when the family was never migrated on this schema (a read creates nothing). */
  async #read<R>(sql: string, params: unknown[]): Promise<R[]> {
    try {
      const pool = await this.#tables.readable();
      if (!pool) return [];
      return (await pool.query(sql, params)).rows as R[];
    } catch (error) {
      throw asStorageError(error, this.#outageName);
    }
  }

  async #run<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    try {
      return await work(await this.#tables.writable());
    } catch (error) {
      throw asStorageError(error, this.#outageName);
    }
  }

  async #transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    return this.#run((pool) => inPgTransaction(pool, work));
  }
}

function leaseOf(executionId: string, row: { holder: string; host: string; expires_at: number | string }): LeaseRecord {
  return { execution_id: executionId, holder: row.holder, host: row.host, expires_at: new Date(Number(row.expires_at)).toISOString() };
}
