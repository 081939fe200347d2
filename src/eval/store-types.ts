/**
 * The eval family's owner interface (issue 39): eval runs and their cases, kept in a local.db file
 * (`SqliteEvalRunStore`) or a Postgres store (`PgEvalRunStore`). Every method answers from the store itself, so a run
 * written by another process (CI's `agentkit eval run --db <url>`) is seen at the next call.
 */
import type { EvalRunRecord, EvalRunSummary } from './records.js';

export interface EvalRunStore {
  /** How messages name the store (a Postgres URL with its password redacted). */
  readonly label: string;
  /**
   * Write a run and its cases in one transaction, with the project it belongs to (`projectId`, default the run's
   * `project_id`, else ''). A run is never stored without its cases. Rejects if the run id exists (the first is kept).
   */
  saveRun(run: EvalRunRecord, projectId?: string): Promise<void>;
  /** Runs newest first (ties: the later written first), optionally only those named `runName`, at most `limit` (default 100). */
  listRuns(options?: { runName?: string; limit?: number }): Promise<EvalRunSummary[]>;
  /** One run with its cases in ordinal order, or null. */
  getRun(runId: string): Promise<EvalRunRecord | null>;
  /** Runs not yet exported (`synced` false), oldest first, at most `limit`, each with its `project_id`; and how many in all. */
  unsyncedRuns(limit?: number): Promise<{ runs: EvalRunRecord[]; total: number }>;
  /** Local-only runs of `projectId`, oldest first, started at or after `since` when given (ADR 0054). */
  localOnlyRuns(projectId: string, since?: string | null): Promise<EvalRunRecord[]>;
  /** Mark pushed runs sent: no longer local-only and synced. Unknown ids are ignored. */
  markPushed(runIds: readonly string[]): Promise<void>;
  /** Mark runs exported (synced). Unknown ids are ignored. */
  markSynced(runIds: readonly string[]): Promise<void>;
  /** The distinct trace ids the stored cases cite (a trace prune keeps them), in no particular order. */
  citedTraceIds(): Promise<string[]>;
  /** Give back connections (a Postgres store's pool hold). Idempotent. */
  close(): Promise<void>;
}
