/** Rows of the eval family as both engines hold them (JSON as text), and their mapping to records. */
import type { EvalCaseRecord, EvalRunRecord, EvalRunSummary } from './records.js';

export interface RunRow {
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
  synced: boolean;
  project_id: string;
}

export interface CaseRow {
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

/** A run's columns as written (everything but `synced` and the project). */
export function runColumns(run: EvalRunRecord) {
  const scored = run.cases.filter((c) => c.error === null);
  const passing = scored.filter((c) => Object.values(c.per_scorer).every((v) => v.passed)).length;
  return {
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
  };
}

export function summaryOf(row: RunRow): EvalRunSummary {
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
    synced: row.synced,
  };
}

export function caseOf(c: CaseRow): EvalCaseRecord {
  return {
    case_id: c.case_id,
    ordinal: c.ordinal,
    input: JSON.parse(c.input) as EvalCaseRecord['input'],
    expected_output: c.expected_output,
    actual_output: c.actual_output,
    trace_id: c.trace_id,
    per_scorer: JSON.parse(c.per_scorer) as EvalCaseRecord['per_scorer'],
    error: c.error,
    latency_ms: c.latency_ms,
  };
}
