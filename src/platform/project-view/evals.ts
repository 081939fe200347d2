/**
 * A Platform project's eval runs read as an eval run store (issue 42): what hosts exported under that project's keys
 * (`agentkit eval export`, the eval outbox), for `agentkit ui --db <platform store> --project <p>`. An exported run
 * carries scores and verdicts, never a case's input, expected or actual output, nor an error's text (spec/evals
 * `ExportedEvalRun`): those read as empty here. Read-only: writes are refused.
 */
import type { ExportedEvalRun } from '../../../generated/types/resources.js';
import { EvalError } from '../../eval/errors.js';
import type { EvalRunRecord, EvalRunSummary } from '../../eval/records.js';
import type { EvalRunStore } from '../../eval/store-types.js';
import type { PlatformStore } from '../server/store-types.js';

/** The eval runs of one project of a Platform store. */
export class ProjectEvalRuns implements EvalRunStore {
  readonly label: string;
  readonly #platform: PlatformStore;
  readonly #project: string;

  constructor(platform: PlatformStore, project: string) {
    this.#platform = platform;
    this.#project = project;
    this.label = `project '${project}' of the Platform store ${platform.label}`;
  }

  async listRuns(options: { runName?: string; limit?: number } = {}): Promise<EvalRunSummary[]> {
    const runs = (await this.#platform.evalRuns(this.#project))
      .map((row) => recordOf(row.body as unknown as ExportedEvalRun, this.#project))
      .filter((run) => options.runName === undefined || run.run_name === options.runName)
      // Newest first; ties: the later arrival first (the rows come in arrival order).
      .reverse()
      .sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0));
    return runs.slice(0, options.limit ?? 100).map(({ cases: _cases, ...summary }) => summary);
  }

  async getRun(runId: string): Promise<EvalRunRecord | null> {
    const body = await this.#platform.evalRun(this.#project, runId);
    return body ? recordOf(body as unknown as ExportedEvalRun, this.#project) : null;
  }

  async citedTraceIds(): Promise<string[]> {
    const ids = new Set<string>();
    for (const row of await this.#platform.evalRuns(this.#project))
      for (const c of (row.body as unknown as ExportedEvalRun).cases ?? []) if (c.trace_id) ids.add(c.trace_id);
    return [...ids];
  }

  async unsyncedRuns(): Promise<{ runs: EvalRunRecord[]; total: number }> {
    return { runs: [], total: 0 };
  }

  async localOnlyRuns(): Promise<EvalRunRecord[]> {
    return [];
  }

  saveRun(): Promise<void> {
    return this.#readOnly();
  }

  markPushed(): Promise<void> {
    return this.#readOnly();
  }

  markSynced(): Promise<void> {
    return this.#readOnly();
  }

  async close(): Promise<void> {}

  #readOnly(): Promise<never> {
    return Promise.reject(new EvalError(`the eval runs of ${this.label} are read-only here`));
  }
}

/** An exported run as a stored run: the scorecard and gate it carries, cases with their verdicts only. */
function recordOf(run: ExportedEvalRun, project: string): EvalRunRecord {
  return {
    run_id: run.run_id,
    run_name: run.run_name,
    dataset_name: run.dataset_name,
    agent_name: run.agent_name,
    scorers: run.scorers,
    started_at: run.started_at,
    finished_at: run.finished_at,
    scorecard: { metrics: run.metrics, overall_pass_rate: run.overall_pass_rate, total_cases: run.total_cases, errored: run.errored_count },
    gate:
      run.gate_outcome === null
        ? null
        : {
            outcome: run.gate_outcome,
            checks: run.gate_checks,
            scored: run.total_cases - run.errored_count,
            errored: run.errored_count,
            error_rate: run.error_rate,
            max_error_rate: run.max_error_rate,
          },
    thresholds: run.thresholds,
    git_sha: run.git_sha,
    git_branch: run.git_branch,
    metadata: { sdk_version: run.sdk_version },
    synced: true,
    project_id: project,
    cases: run.cases.map((c) => ({
      case_id: c.case_id,
      ordinal: c.ordinal,
      input: '',
      expected_output: null,
      actual_output: null,
      trace_id: c.trace_id,
      per_scorer: Object.fromEntries(Object.entries(c.per_scorer).map(([name, v]) => [name, { passed: v.passed, score: v.score, reason: null }])),
      error: c.errored ? 'errored (the Platform keeps no error text)' : null,
      latency_ms: null,
    })),
  };
}
