/**
 * The report `agentkit eval run --json <path>` writes (`EvalRunReport`, schema_version 1): the scorecard, the gate
 * and every case's verdicts with its trace id. A run without a gate reports the gate with no rules and no guard.
 */
import type { EvalRunReport } from '../../generated/types/resources.js';
import { decideGate } from './gate.js';
import type { EvalRunRecord } from './records.js';

/** The report of a run. */
export function runReport(run: EvalRunRecord): EvalRunReport {
  return {
    schema_version: 1,
    run_id: run.run_id,
    run_name: run.run_name,
    started_at: run.started_at,
    finished_at: run.finished_at,
    scorecard: run.scorecard,
    gate: run.gate ?? decideGate(run.scorecard, [], null),
    cases: run.cases.map((c) => ({ ordinal: c.ordinal, trace_id: c.trace_id, error: c.error, per_scorer: c.per_scorer })),
  };
}
