/**
 * `agentkit platform push --evals` (docs/adr/0054): eval runs persisted while not connected are local-only, like
 * checkpoint rows; this sends those of the current project on request, with exactly the payload
 * `agentkit eval export --dry-run` prints (aggregates, verdicts and trace ids; never a case's input or output), and
 * marks them sent (a second push sends nothing). A run the Platform refuses on payload grounds is marked sent too
 * (it would be refused again) and reported with its reason. `dryRun` lists the runs and sends nothing.
 */
import { exportPayload } from '../eval/export.js';
import type { EvalStore } from '../eval/store.js';
import { clientFor, type Connection } from './current-connection.js';
import { PlatformError } from './errors.js';

/** One eval run a push sends (or, dry, would send). */
export interface PushedEvalRun {
  run_id: string;
  run_name: string | null;
  dataset_name: string;
  started_at: string;
}

/** What an eval push did. */
export interface EvalPushResult {
  runs: PushedEvalRun[];
  /** Runs the Platform accepted (0 on a dry run). */
  sent: number;
  /** Runs the Platform refused, id -> reason. */
  rejected: Record<string, string>;
}

const BATCH = 10;

/** Send (or list, `dryRun`) the local-only eval runs of `connection`'s project in `store`, oldest first. */
export async function pushLocalEvalRuns(
  store: EvalStore,
  connection: Connection,
  options: { since?: string | null; dryRun?: boolean } = {},
): Promise<EvalPushResult> {
  const project = connection.project ?? '';
  const runs = await store.localOnlyRuns(project, options.since ?? null);
  const result: EvalPushResult = {
    runs: runs.map((r) => ({ run_id: r.run_id, run_name: r.run_name, dataset_name: r.dataset_name, started_at: r.started_at })),
    sent: 0,
    rejected: {},
  };
  if (options.dryRun) return result;
  const client = clientFor(connection);
  for (let i = 0; i < runs.length; i += BATCH) {
    const batch = runs.slice(i, i + BATCH);
    const answer = await client.ingestEvalRuns(batch.map(exportPayload), project || null);
    const refused = answer.rejected.map((r) => r.id);
    await store.markPushed([...answer.accepted, ...refused]);
    result.sent += answer.accepted.length;
    for (const r of answer.rejected) result.rejected[r.id] = r.reason;
    if (answer.accepted.length === 0 && refused.length === 0) {
      throw new PlatformError(`Platform at ${connection.target} acknowledged none of the eval runs pushed`, null, null);
    }
  }
  return result;
}
