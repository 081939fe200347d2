/**
 * Eval export, inspect only: the posture (connected or not, export on or off and what turned it off), the runs
 * queued for export, and the literal JSON connected mode would send. Nothing here sends anything. The payload holds
 * run aggregates, the gate outcome and checks, thresholds, git provenance and per-case verdicts (passed, score) with
 * trace ids: never a case's input, expected or actual output, and neither scorer reasons nor error texts, which can
 * quote them.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VERSION } from '../version.js';
import type { EvalExportPosture, EvalExportPreview, ExportedEvalRun } from '../../generated/types/resources.js';
import type { EvalRunRecord } from './records.js';
import type { EvalStore } from './store.js';

/** The posture (`eval export --status --json`), as the contract defines it. */
export type ExportPosture = EvalExportPosture;

export interface PostureOptions {
  env?: Record<string, string | undefined>;
  /** Home directory holding `.agentkit/credentials.toml` (default `HOME`, else the OS's). */
  home?: string;
  /** The `exportEvals` option of `connect()`, when the process connected with one. */
  exportEvals?: boolean;
}

/** The export posture against `store`. Reads the environment and the credentials file's presence only. */
export async function exportPosture(store: EvalStore, options: PostureOptions = {}): Promise<ExportPosture> {
  const env = options.env ?? process.env;
  const credentials = path.join(options.home ?? env.HOME ?? os.homedir(), '.agentkit', 'credentials.toml');
  const source = env.AGENTKIT_API_KEY ? 'env' : existsSync(credentials) ? 'file' : null;
  const envValue = env.AGENTKIT_EXPORT_EVALS?.trim().toLowerCase();
  const disabledBy =
    options.exportEvals === false
      ? 'connect({ exportEvals: false })'
      : options.exportEvals === undefined && (envValue === '0' || envValue === 'false')
        ? 'AGENTKIT_EXPORT_EVALS=0'
        : source === null
          ? 'not connected'
          : null;
  return {
    connected: source !== null,
    source,
    credentials_file: credentials,
    enabled: disabledBy === null,
    disabled_by: disabledBy,
    queued_runs: (await store.unsyncedRuns(0)).total,
  };
}

export type { ExportedEvalRun };

/** The payload of one run. */
export function exportPayload(run: EvalRunRecord): ExportedEvalRun {
  const { scorecard, gate } = run;
  return {
    run_id: run.run_id,
    run_name: run.run_name,
    dataset_name: run.dataset_name,
    agent_name: run.agent_name,
    started_at: run.started_at,
    finished_at: run.finished_at,
    scorers: run.scorers,
    metrics: scorecard.metrics,
    overall_pass_rate: scorecard.overall_pass_rate,
    total_cases: scorecard.total_cases,
    errored_count: scorecard.errored,
    error_rate: scorecard.total_cases === 0 ? 0 : scorecard.errored / scorecard.total_cases,
    gate_outcome: gate?.outcome ?? null,
    gate_checks: gate?.checks ?? [],
    max_error_rate: gate?.max_error_rate ?? null,
    thresholds: run.thresholds,
    git_sha: run.git_sha,
    git_branch: run.git_branch,
    sdk_version: VERSION,
    cases: run.cases.map((c) => ({
      case_id: c.case_id,
      ordinal: c.ordinal,
      trace_id: c.trace_id,
      errored: c.error !== null,
      per_scorer: Object.fromEntries(Object.entries(c.per_scorer).map(([name, v]) => [name, { passed: v.passed, score: v.score }])),
    })),
  };
}

/** What a send would carry now: the oldest queued runs (at most `limit`, default 10), or the one run `runId`. */
export async function exportPreview(store: EvalStore, options: { limit?: number; runId?: string } = {}): Promise<EvalExportPreview> {
  if (options.runId !== undefined) return { runs: [exportPayload(await store.resolveRun(options.runId))] };
  return { runs: (await store.unsyncedRuns(options.limit ?? 10)).runs.map(exportPayload) };
}
