/** The persisted shape of an eval run and its cases, as the eval store reads and writes them. */
import type { GateResult, Scorecard } from '../../generated/types/resources.js';
import type { EvalInput } from './dataset.js';
import type { ScorerVerdict } from './scorer.js';

/** One case of a stored run. */
export interface EvalCaseRecord {
  case_id: string;
  /** 0-based position in the dataset. */
  ordinal: number;
  input: EvalInput;
  expected_output: string | null;
  /** The target's output; null for an errored case. */
  actual_output: string | null;
  trace_id: string | null;
  per_scorer: Record<string, ScorerVerdict>;
  /** Why the case errored (the target threw or paused, or a scorer broke); null when scored. */
  error: string | null;
  latency_ms: number | null;
}

/** A run without its cases, as listings show it. */
export interface EvalRunSummary {
  run_id: string;
  run_name: string | null;
  dataset_name: string;
  agent_name: string;
  scorers: string[];
  started_at: string;
  finished_at: string;
  scorecard: Scorecard;
  /** The gate decided for the run (`eval run` with rules or a guard); null for a run without a gate. */
  gate: GateResult | null;
  /** The threshold rules as written, e.g. `exact_match.pass_rate=0.8`. */
  thresholds: string[];
  git_sha: string | null;
  git_branch: string | null;
  metadata: Record<string, unknown>;
  /** Whether connected mode has exported the run. */
  synced: boolean;
  /**
   * The project the run belongs to, stamped when it was written ('' for the key's default project): the export and
   * `platform push --evals` send it there. Absent on a run not yet stored (the store stamps '').
   */
  project_id?: string;
}

/** A run with every case in ordinal order. */
export interface EvalRunRecord extends EvalRunSummary {
  cases: EvalCaseRecord[];
}
