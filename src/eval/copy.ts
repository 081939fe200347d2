/**
 * Copying a local store's eval runs and cases into a Postgres store (`agentkit store copy`, ADR 0064), through the
 * owner's two engines. Idempotent: a run the target already holds (same run id) is left as the target has it, so a
 * copy run again adds only what is missing. Each run keeps its project and its export state: queued (not synced),
 * local-only, or already sent (synced and not local-only, so `platform push --evals` never sends it again).
 */
import type Database from 'better-sqlite3';
import type { Store } from '../store/store-handle.js';
import { PgEvalRunStore } from './pg-eval-store.js';
import { SqliteEvalRunStore } from './sqlite-eval-store.js';

/** Runs the target did not hold yet, and their cases. */
export interface EvalCopyResult {
  runs: number;
  cases: number;
}

/** Copy the eval runs of the local store file `sourcePath` (open as `source`) into the Postgres store `target`. */
export async function copyEvalRuns(source: Database.Database, sourcePath: string, target: Store, project = ''): Promise<EvalCopyResult> {
  // The export state and project of each run: columns the EvalRunStore interface does not read back.
  const states = source.prepare('SELECT run_id, project_id, synced, local_only FROM eval_runs ORDER BY started_at, rowid').all() as Array<{
    run_id: string;
    project_id: string;
    synced: number;
    local_only: number;
  }>;
  const from = new SqliteEvalRunStore(sourcePath);
  const to = new PgEvalRunStore(target, project);
  const result: EvalCopyResult = { runs: 0, cases: 0 };
  const sent: string[] = [];
  for (const state of states) {
    if (state.synced === 1 && state.local_only === 0) sent.push(state.run_id);
    if ((await to.getRun(state.run_id)) !== null) continue;
    const run = await from.getRun(state.run_id);
    if (!run) continue;
    // saveRun stores a synced run as local-only; a sent one is then marked pushed below (also on a resumed copy).
    await to.saveRun({ ...run, synced: state.synced === 1 }, state.project_id);
    result.runs++;
    result.cases += run.cases.length;
  }
  await to.markPushed(sent);
  return result;
}
