/**
 * The eval store: persisted runs in local.db (`eval_runs`, `eval_cases`). A run is written whole in one transaction
 * (never a run without its cases). Readers: list runs, get one run with its cases, resolve a reference (a run id, else
 * the latest run of that name), the runs not yet exported. A store file that does not exist reads as empty.
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { localDbPath, type Where } from '../config/paths.js';
import { openLocalStore } from '../store/open.js';
import { EvalError } from './errors.js';
import { ConfigError } from '../errors.js';
import { isStoreUrl, redactStoreValue } from '../config/store-value.js';
import type { EvalCaseRecord, EvalRunRecord, EvalRunSummary } from './records.js';

export interface EvalStoreOptions extends Where {
  /** The store file (default: `AGENTKIT_LOCAL_DB` in `env`, else `./.agentkit/local.db` under `cwd`); `null`: a Postgres store (no eval runs). */
  dbPath?: string | null;
}

interface RunRow {
  run_id: string;
  run_name: string | null;
  dataset_name: string;
  agent_name: string;
  scorers: string;
  started_at: string;
  finished_at: string;
  scorecard: string;
  gate: string | null;
  thresholds: string;
  git_sha: string | null;
  git_branch: string | null;
  metadata: string;
  synced: number;
  project_id: string;
}

interface CaseRow {
  case_id: string;
  ordinal: number;
  input: string;
  expected_output: string | null;
  actual_output: string | null;
  trace_id: string | null;
  per_scorer: string;
  error: string | null;
  latency_ms: number | null;
}

/** Eval runs of one local store. */
export class EvalStore {
  /** The store file; `null` for a Postgres store, which holds no eval runs yet (reads are empty, writes refused). */
  readonly dbPath: string | null;

  constructor(options: EvalStoreOptions = {}) {
    if (typeof options.dbPath === 'string' && isStoreUrl(options.dbPath)) {
      throw new ConfigError(
        `eval runs are not stored on a Postgres store yet (${redactStoreValue(options.dbPath)}); keep them in a SQLite file and name it with --db`,
      );
    }
    this.dbPath = options.dbPath === null ? null : (options.dbPath ?? localDbPath(options));
  }

  /**
   * Write a run and its cases in one transaction, with the project it belongs to (`projectId`, default the run's
   * `project_id`, else '' for the key's default project). Throws if the run id exists.
   */
  saveRun(run: EvalRunRecord, projectId: string = run.project_id ?? ''): void {
    this.write((db) => {
      const scored = run.cases.filter((c) => c.error === null);
      const passing = scored.filter((c) => Object.values(c.per_scorer).every((v) => v.passed)).length;
      db.prepare(
        `INSERT INTO eval_runs (run_id, run_name, dataset_name, agent_name, scorers, started_at, finished_at, total_cases, errored_count,
           pass_count, fail_count, pass_rate, scorecard, gate, thresholds, git_sha, git_branch, metadata, synced, local_only, project_id)
         VALUES (@run_id, @run_name, @dataset_name, @agent_name, @scorers, @started_at, @finished_at, @total_cases, @errored_count,
           @pass_count, @fail_count, @pass_rate, @scorecard, @gate, @thresholds, @git_sha, @git_branch, @metadata, @synced, @synced, @project_id)`,
      ).run({
        run_id: run.run_id,
        run_name: run.run_name,
        dataset_name: run.dataset_name,
        agent_name: run.agent_name,
        scorers: JSON.stringify(run.scorers),
        started_at: run.started_at,
        finished_at: run.finished_at,
        total_cases: run.scorecard.total_cases,
        errored_count: run.scorecard.errored,
        pass_count: passing,
        fail_count: scored.length - passing,
        pass_rate: run.scorecard.overall_pass_rate,
        scorecard: JSON.stringify(run.scorecard),
        gate: run.gate === null ? null : JSON.stringify(run.gate),
        thresholds: JSON.stringify(run.thresholds),
        git_sha: run.git_sha,
        git_branch: run.git_branch,
        metadata: JSON.stringify(run.metadata),
        synced: run.synced ? 1 : 0,
        project_id: projectId,
      });
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

  /** Runs newest first (optionally only those named `runName`), at most `limit` (default 100). */
  listRuns(options: { runName?: string; limit?: number } = {}): EvalRunSummary[] {
    const limit = options.limit ?? 100;
    return this.read((db) => {
      const rows = (
        options.runName === undefined
          ? db.prepare('SELECT * FROM eval_runs ORDER BY started_at DESC, rowid DESC LIMIT ?').all(limit)
          : db.prepare('SELECT * FROM eval_runs WHERE run_name = ? ORDER BY started_at DESC, rowid DESC LIMIT ?').all(options.runName, limit)
      ) as RunRow[];
      return rows.map(summaryOf);
    }, []);
  }

  /** One run with its cases, or null. */
  getRun(runId: string): EvalRunRecord | null {
    return this.read((db) => {
      const row = db.prepare('SELECT * FROM eval_runs WHERE run_id = ?').get(runId) as RunRow | undefined;
      return row ? withCases(db, row) : null;
    }, null);
  }

  /** The run `ref` names: a run id, else the latest run named `ref`. Throws EvalError when neither exists. */
  resolveRun(ref: string): EvalRunRecord {
    const found = this.read((db) => {
      const row = (db.prepare('SELECT * FROM eval_runs WHERE run_id = ?').get(ref) ??
        db.prepare('SELECT * FROM eval_runs WHERE run_name = ? ORDER BY started_at DESC, rowid DESC LIMIT 1').get(ref)) as RunRow | undefined;
      return row ? withCases(db, row) : null;
    }, null);
    if (!found) throw new EvalError(`eval run '${ref}' not found in ${this.dbPath} (neither a run id nor a run name)`);
    return found;
  }

  /**
   * Runs not yet exported, oldest first, at most `limit`; and how many there are in all. Each carries the
   * `project_id` stamped when it was written: the export sends it to that project.
   */
  unsyncedRuns(limit = 10): { runs: EvalRunRecord[]; total: number } {
    return this.read(
      (db) => {
        const total = (db.prepare('SELECT count(*) AS n FROM eval_runs WHERE synced = 0').get() as { n: number }).n;
        const rows = db.prepare('SELECT * FROM eval_runs WHERE synced = 0 ORDER BY started_at, rowid LIMIT ?').all(limit) as RunRow[];
        return { runs: rows.map((row) => ({ ...withCases(db, row), project_id: row.project_id })), total };
      },
      { runs: [], total: 0 },
    );
  }

  /**
   * Local-only runs of `projectId` ('' for the default project), oldest first, started at or after `since` when
   * given: what `agentkit platform push --evals` sends on request (docs/adr/0054).
   */
  localOnlyRuns(projectId: string, since: string | null = null): EvalRunRecord[] {
    return this.read(
      (db) =>
        (
          db
            .prepare('SELECT * FROM eval_runs WHERE local_only = 1 AND project_id = ? AND (? IS NULL OR started_at >= ?) ORDER BY started_at, rowid')
            .all(projectId, since, since) as RunRow[]
        ).map((row) => ({ ...withCases(db, row), project_id: row.project_id })),
      [],
    );
  }

  /** Mark pushed runs sent: no longer local-only, never pushed again. */
  markPushed(runIds: readonly string[]): void {
    if (runIds.length === 0) return;
    this.write((db) => {
      const update = db.prepare('UPDATE eval_runs SET local_only = 0, synced = 1 WHERE run_id = ?');
      for (const id of runIds) update.run(id);
    });
  }

  /** Mark runs exported (connected mode calls this after the Platform accepted them). */
  markSynced(runIds: readonly string[]): void {
    if (runIds.length === 0) return;
    this.write((db) => {
      const update = db.prepare('UPDATE eval_runs SET synced = 1 WHERE run_id = ?');
      for (const id of runIds) update.run(id);
    });
  }

  private read<T>(fn: (db: Database.Database) => T, empty: T): T {
    if (this.dbPath === null || !existsSync(this.dbPath)) return empty;
    const db = openLocalStore(this.dbPath);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  private write(fn: (db: Database.Database) => void): void {
    if (this.dbPath === null) throw new EvalError('eval runs are not stored on a Postgres store yet; name a SQLite store with --db');
    const db = openLocalStore(this.dbPath);
    try {
      db.transaction(() => fn(db)).immediate();
    } finally {
      db.close();
    }
  }
}

function summaryOf(row: RunRow): EvalRunSummary {
  return {
    run_id: row.run_id,
    run_name: row.run_name,
    dataset_name: row.dataset_name,
    agent_name: row.agent_name,
    scorers: JSON.parse(row.scorers) as string[],
    started_at: row.started_at,
    finished_at: row.finished_at,
    scorecard: JSON.parse(row.scorecard) as EvalRunSummary['scorecard'],
    gate: row.gate === null ? null : (JSON.parse(row.gate) as EvalRunSummary['gate']),
    thresholds: JSON.parse(row.thresholds) as string[],
    git_sha: row.git_sha,
    git_branch: row.git_branch,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    synced: row.synced === 1,
  };
}

function withCases(db: Database.Database, row: RunRow): EvalRunRecord {
  const cases = (db.prepare('SELECT * FROM eval_cases WHERE run_id = ? ORDER BY ordinal').all(row.run_id) as CaseRow[]).map(
    (c): EvalCaseRecord => ({
      case_id: c.case_id,
      ordinal: c.ordinal,
      input: JSON.parse(c.input) as EvalCaseRecord['input'],
      expected_output: c.expected_output,
      actual_output: c.actual_output,
      trace_id: c.trace_id,
      per_scorer: JSON.parse(c.per_scorer) as EvalCaseRecord['per_scorer'],
      error: c.error,
      latency_ms: c.latency_ms,
    }),
  );
  return { ...summaryOf(row), cases };
}
