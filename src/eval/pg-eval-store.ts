/**
 * Eval runs in a Postgres store (issue 39): `eval_runs` and `eval_cases` in the store's schema, keyed by project,
 * with the eval family's own migration list (run once per handle, under the family's advisory lock). JSON columns
 * hold the JSON text written, as local.db does; free-text columns (outputs, error texts) are NUL-safe (pg-text.ts);
 * times are TIMESTAMPTZ read back as ISO text with microseconds. `seq` orders runs written in the same microsecond
 * as local.db's rowid does.
 */
import type pg from 'pg';
import type { PgFamily } from '../store/pg-family-schema.js';
import { PgFamilyTables } from '../store/pg-family-tables.js';
import type { Store } from '../store/store-handle.js';
import { decodePgString, encodePgString, pgIsoText } from '../store/pg-text.js';
import type { EvalRunRecord, EvalRunSummary } from './records.js';
import { caseOf, type CaseRow, runColumns, type RunRow, summaryOf } from './store-rows.js';
import type { EvalRunStore } from './store-types.js';
import { inPgTransaction } from '../store/pg-transaction.js';

/** The eval family's tables on a Postgres store. */
export const PG_EVAL_FAMILY: PgFamily = {
  name: 'evals',
  versionTable: 'eval_schema_version',
  tables: 'eval tables',
  migrations: [
    {
      description: 'v1 eval_runs and eval_cases: a run (scorecard, gate, provenance, export state) and its cases, keyed by project',
      sql: (s) => `
        CREATE TABLE ${s}.eval_runs (
          project TEXT NOT NULL DEFAULT '',
          run_id TEXT NOT NULL,
          seq BIGSERIAL NOT NULL,
          run_name TEXT,
          dataset_name TEXT NOT NULL,
          agent_name TEXT NOT NULL,
          scorers TEXT NOT NULL,
          started_at TIMESTAMPTZ NOT NULL,
          finished_at TIMESTAMPTZ NOT NULL,
          total_cases INTEGER NOT NULL,
          errored_count INTEGER NOT NULL,
          pass_count INTEGER NOT NULL,
          fail_count INTEGER NOT NULL,
          pass_rate DOUBLE PRECISION NOT NULL,
          scorecard TEXT NOT NULL,
          gate TEXT,
          thresholds TEXT NOT NULL,
          git_sha TEXT,
          git_branch TEXT,
          metadata TEXT NOT NULL,
          synced BOOLEAN NOT NULL,
          local_only BOOLEAN NOT NULL,
          project_id TEXT NOT NULL DEFAULT '',
          PRIMARY KEY (project, run_id)
        );
        CREATE INDEX eval_runs_by_time ON ${s}.eval_runs (project, started_at, seq);
        CREATE INDEX eval_runs_by_name ON ${s}.eval_runs (project, run_name, started_at, seq);
        CREATE INDEX eval_runs_unsynced ON ${s}.eval_runs (project, started_at, seq) WHERE NOT synced;
        CREATE TABLE ${s}.eval_cases (
          project TEXT NOT NULL DEFAULT '',
          run_id TEXT NOT NULL,
          case_id TEXT NOT NULL,
          ordinal INTEGER NOT NULL,
          input TEXT NOT NULL,
          expected_output TEXT,
          actual_output TEXT,
          trace_id TEXT,
          per_scorer TEXT NOT NULL,
          error TEXT,
          latency_ms DOUBLE PRECISION,
          PRIMARY KEY (project, case_id),
          UNIQUE (project, run_id, ordinal),
          FOREIGN KEY (project, run_id) REFERENCES ${s}.eval_runs (project, run_id) ON DELETE CASCADE
        );
        CREATE INDEX eval_cases_by_trace ON ${s}.eval_cases (project, trace_id) WHERE trace_id IS NOT NULL;`,
    },
  ],
};

const RUN_COLUMNS = `run_id, run_name, dataset_name, agent_name, scorers, ${pgIsoText('started_at')} AS started_at, ${pgIsoText('finished_at')} AS finished_at,
  scorecard, gate, thresholds, git_sha, git_branch, metadata, synced, project_id`;

export class PgEvalRunStore implements EvalRunStore {
  readonly label: string;
  readonly #tables: PgFamilyTables;

  /** Eval runs of `project` ('' for a store of one project) in `store`, a Postgres store this handle closes. */
  constructor(store: Store, project = '') {
    this.#tables = new PgFamilyTables(store, PG_EVAL_FAMILY, project);
    this.label = store.label;
  }

  get #s(): string {
    return this.#tables.s;
  }

  get #project(): string {
    return this.#tables.project;
  }

  /** The pool, the eval family migrated (once per handle). */
  #pool(): Promise<pg.Pool> {
    return this.#tables.writable();
  }

  async saveRun(run: EvalRunRecord, projectId: string = run.project_id ?? ''): Promise<void> {
    const pool = await this.#pool();
    await inPgTransaction(pool, async (client) => {
      const c = runColumns(run);
      await client.query(
        `INSERT INTO ${this.#s}.eval_runs (project, run_id, run_name, dataset_name, agent_name, scorers, started_at, finished_at, total_cases,
           errored_count, pass_count, fail_count, pass_rate, scorecard, gate, thresholds, git_sha, git_branch, metadata, synced, local_only, project_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20, $21)`,
        [
          this.#project,
          encodePgString(c.run_id),
          text(c.run_name),
          encodePgString(c.dataset_name),
          encodePgString(c.agent_name),
          c.scorers,
          c.started_at,
          c.finished_at,
          c.total_cases,
          c.errored_count,
          c.pass_count,
          c.fail_count,
          c.pass_rate,
          c.scorecard,
          c.gate,
          c.thresholds,
          text(c.git_sha),
          text(c.git_branch),
          c.metadata,
          run.synced,
          projectId,
        ],
      );
      if (run.cases.length > 0) {
        const cases = run.cases;
        await client.query(
          `INSERT INTO ${this.#s}.eval_cases (project, run_id, case_id, ordinal, input, expected_output, actual_output, trace_id, per_scorer, error, latency_ms)
           SELECT $1, $2, * FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::float8[])`,
          [
            this.#project,
            encodePgString(run.run_id),
            cases.map((x) => x.case_id),
            cases.map((x) => x.ordinal),
            cases.map((x) => JSON.stringify(x.input)),
            cases.map((x) => text(x.expected_output)),
            cases.map((x) => text(x.actual_output)),
            cases.map((x) => x.trace_id),
            cases.map((x) => JSON.stringify(x.per_scorer)),
            cases.map((x) => text(x.error)),
            cases.map((x) => x.latency_ms),
          ],
        );
      }
    });
  }

  async listRuns(options: { runName?: string; limit?: number } = {}): Promise<EvalRunSummary[]> {
    const pool = await this.#pool();
    const rows = await pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#s}.eval_runs WHERE project = $1 AND ($2::text IS NULL OR run_name = $2)
       ORDER BY started_at DESC, seq DESC LIMIT $3`,
      [this.#project, options.runName === undefined ? null : encodePgString(options.runName), options.limit ?? 100],
    );
    return rows.rows.map((row) => summaryOf(decodeRun(row)));
  }

  async getRun(runId: string): Promise<EvalRunRecord | null> {
    const pool = await this.#pool();
    const row = (
      await pool.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ${this.#s}.eval_runs WHERE project = $1 AND run_id = $2`, [this.#project, encodePgString(runId)])
    ).rows[0];
    if (!row) return null;
    const { project_id: _project, ...run } = await this.#withCases(pool, row);
    return run;
  }

  async unsyncedRuns(limit = 10): Promise<{ runs: EvalRunRecord[]; total: number }> {
    const pool = await this.#pool();
    const total = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.#s}.eval_runs WHERE project = $1 AND NOT synced`, [this.#project]))
      .rows[0]!.n;
    const rows = await pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#s}.eval_runs WHERE project = $1 AND NOT synced ORDER BY started_at, seq LIMIT $2`,
      [this.#project, limit],
    );
    const runs: EvalRunRecord[] = [];
    for (const row of rows.rows) runs.push(await this.#withCases(pool, row));
    return { runs, total };
  }

  async localOnlyRuns(projectId: string, since: string | null = null): Promise<EvalRunRecord[]> {
    const pool = await this.#pool();
    const rows = await pool.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${this.#s}.eval_runs
       WHERE project = $1 AND local_only AND project_id = $2 AND ($3::timestamptz IS NULL OR started_at >= $3::timestamptz) ORDER BY started_at, seq`,
      [this.#project, projectId, since],
    );
    const runs: EvalRunRecord[] = [];
    for (const row of rows.rows) runs.push(await this.#withCases(pool, row));
    return runs;
  }

  async markPushed(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    const pool = await this.#pool();
    await pool.query(`UPDATE ${this.#s}.eval_runs SET local_only = false, synced = true WHERE project = $1 AND run_id = ANY($2::text[])`, [
      this.#project,
      runIds.map(encodePgString),
    ]);
  }

  async markSynced(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    const pool = await this.#pool();
    await pool.query(`UPDATE ${this.#s}.eval_runs SET synced = true WHERE project = $1 AND run_id = ANY($2::text[])`, [
      this.#project,
      runIds.map(encodePgString),
    ]);
  }

  async citedTraceIds(): Promise<string[]> {
    const pool = await this.#pool();
    const rows = await pool.query<{ trace_id: string }>(`SELECT DISTINCT trace_id FROM ${this.#s}.eval_cases WHERE project = $1 AND trace_id IS NOT NULL`, [
      this.#project,
    ]);
    return rows.rows.map((r) => r.trace_id);
  }

  async close(): Promise<void> {
    await this.#tables.close();
  }

  async #withCases(pool: pg.Pool, row: RunRow): Promise<EvalRunRecord> {
    const cases = await pool.query<CaseRow>(
      `SELECT case_id, ordinal, input, expected_output, actual_output, trace_id, per_scorer, error, latency_ms
       FROM ${this.#s}.eval_cases WHERE project = $1 AND run_id = $2 ORDER BY ordinal`,
      [this.#project, row.run_id],
    );
    const run = decodeRun(row);
    return {
      ...summaryOf(run),
      project_id: run.project_id,
      cases: cases.rows.map((c) =>
        caseOf({ ...c, expected_output: untext(c.expected_output), actual_output: untext(c.actual_output), error: untext(c.error) }),
      ),
    };
  }
}

/** A free-text value as Postgres `text` takes it (NUL encoded). */
function text(value: string | null): string | null {
  return value === null ? null : encodePgString(value);
}

function untext(value: string | null): string | null {
  return value === null ? null : decodePgString(value);
}

function decodeRun(row: RunRow): RunRow {
  return {
    ...row,
    run_id: decodePgString(row.run_id),
    run_name: untext(row.run_name),
    dataset_name: decodePgString(row.dataset_name),
    agent_name: decodePgString(row.agent_name),
    git_sha: untext(row.git_sha),
    git_branch: untext(row.git_branch),
  };
}
