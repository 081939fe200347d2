/**
 * Eval runs in a local.db file (`eval_runs`, `eval_cases`, local.db v25/v36). Each call opens, uses and closes the
 * file; a file that does not exist reads as empty (a write creates it).
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { openLocalStore } from '../store/open.js';
import type { EvalCaseRecord, EvalRunRecord, EvalRunSummary } from './records.js';
import { runColumns, type RunRow, summaryOf, caseOf, type CaseRow } from './store-rows.js';
import type { EvalRunStore } from './store-types.js';

export class SqliteEvalRunStore implements EvalRunStore {
  readonly label: string;

  constructor(readonly path: string) {
    this.label = path;
  }

  async saveRun(run: EvalRunRecord, projectId: string = run.project_id ?? ''): Promise<void> {
    this.write((db) => {
      db.prepare(
        `INSERT INTO eval_runs (run_id, run_name, dataset_name, agent_name, scorers, started_at, finished_at, total_cases, errored_count,
           pass_count, fail_count, pass_rate, scorecard, gate, thresholds, git_sha, git_branch, metadata, synced, local_only, project_id)
         VALUES (@run_id, @run_name, @dataset_name, @agent_name, @scorers, @started_at, @finished_at, @total_cases, @errored_count,
           @pass_count, @fail_count, @pass_rate, @scorecard, @gate, @thresholds, @git_sha, @git_branch, @metadata, @synced, @synced, @project_id)`,
      ).run({ ...runColumns(run), synced: run.synced ? 1 : 0, project_id: projectId });
      const insert = db.prepare(
        `INSERT INTO eval_cases (case_id, run_id, ordinal, input, expected_output, actual_output, trace_id, per_scorer, error, latency_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const c of run.cases) {
        insert.run(
          c.case_id,
          run.run_id,
          c.ordinal,
          JSON.stringify(c.input),
          c.expected_output,
          c.actual_output,
          c.trace_id,
          JSON.stringify(c.per_scorer),
          c.error,
          c.latency_ms,
        );
      }
    });
  }

  async listRuns(options: { runName?: string; limit?: number } = {}): Promise<EvalRunSummary[]> {
    const limit = options.limit ?? 100;
    return this.read((db) => {
      const rows = (
        options.runName === undefined
          ? db.prepare('SELECT * FROM eval_runs ORDER BY started_at DESC, rowid DESC LIMIT ?').all(limit)
          : db.prepare('SELECT * FROM eval_runs WHERE run_name = ? ORDER BY started_at DESC, rowid DESC LIMIT ?').all(options.runName, limit)
      ) as SqliteRunRow[];
      return rows.map((row) => summaryOf(fromSqlite(row)));
    }, []);
  }

  async getRun(runId: string): Promise<EvalRunRecord | null> {
    return this.read((db) => {
      const row = db.prepare('SELECT * FROM eval_runs WHERE run_id = ?').get(runId) as SqliteRunRow | undefined;
      return row ? withCases(db, row, false) : null;
    }, null);
  }

  async unsyncedRuns(limit = 10): Promise<{ runs: EvalRunRecord[]; total: number }> {
    return this.read(
      (db) => {
        const total = (db.prepare('SELECT count(*) AS n FROM eval_runs WHERE synced = 0').get() as { n: number }).n;
        const rows = db.prepare('SELECT * FROM eval_runs WHERE synced = 0 ORDER BY started_at, rowid LIMIT ?').all(limit) as SqliteRunRow[];
        return { runs: rows.map((row) => withCases(db, row)), total };
      },
      { runs: [], total: 0 },
    );
  }

  async localOnlyRuns(projectId: string, since: string | null = null): Promise<EvalRunRecord[]> {
    return this.read(
      (db) =>
        (
          db
            .prepare('SELECT * FROM eval_runs WHERE local_only = 1 AND project_id = ? AND (? IS NULL OR started_at >= ?) ORDER BY started_at, rowid')
            .all(projectId, since, since) as SqliteRunRow[]
        ).map((row) => withCases(db, row)),
      [],
    );
  }

  async markPushed(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    this.write((db) => {
      const update = db.prepare('UPDATE eval_runs SET local_only = 0, synced = 1 WHERE run_id = ?');
      for (const id of runIds) update.run(id);
    });
  }

  async markSynced(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    this.write((db) => {
      const update = db.prepare('UPDATE eval_runs SET synced = 1 WHERE run_id = ?');
      for (const id of runIds) update.run(id);
    });
  }

  async citedTraceIds(): Promise<string[]> {
    return this.read(
      (db) => (db.prepare('SELECT DISTINCT trace_id FROM eval_cases WHERE trace_id IS NOT NULL').all() as Array<{ trace_id: string }>).map((r) => r.trace_id),
      [],
    );
  }

  async close(): Promise<void> {}

  private read<T>(fn: (db: Database.Database) => T, empty: T): T {
    if (!existsSync(this.path)) return empty;
    const db = openLocalStore(this.path);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  private write(fn: (db: Database.Database) => void): void {
    const db = openLocalStore(this.path);
    try {
      db.transaction(() => fn(db)).immediate();
    } finally {
      db.close();
    }
  }
}

/** local.db keeps `synced` as 0/1. */
type SqliteRunRow = Omit<RunRow, 'synced'> & { synced: number };

function fromSqlite(row: SqliteRunRow): RunRow {
  return { ...row, synced: row.synced === 1 };
}

/** The run with its cases; with `project_id` only for the export readers (the UI's run detail has no such field). */
function withCases(db: Database.Database, row: SqliteRunRow, withProject = true): EvalRunRecord {
  const cases = (db.prepare('SELECT * FROM eval_cases WHERE run_id = ? ORDER BY ordinal').all(row.run_id) as CaseRow[]).map((c): EvalCaseRecord => caseOf(c));
  return { ...summaryOf(fromSqlite(row)), ...(withProject ? { project_id: row.project_id } : {}), cases };
}
