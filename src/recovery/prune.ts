/**
 * `pruneEndedExecutions`: the execution-level prune beside the checkpointer's row-level `prune` (issue 38). It deletes
 * whole executions that are over (their latest row is the run's own `run_end` at the root) and whose last row is older
 * than the cutoff: every checkpoint, decision row, idempotency record, lease and recovery record of each. Never an
 * execution that is paused, running, orphaned or parked (those hold a pending interrupt or a lease), whatever its age.
 *
 * Deletes in batches of `batch` ids, each execution in its own short transaction (`deleteExecution`), so no lock is
 * held for long and a stop between batches leaves only whole executions. The traces of a pruned execution are left to
 * `traces prune` (they have their own retention; an eval case may cite them).
 */
import type { Checkpointer } from '../durability/checkpointer.js';
import { supportsRecovery } from '../durability/recovery-store.js';
import { pruneCutoff } from '../durability/rows.js';
import { ConfigError } from '../errors.js';

export interface PruneExecutionsOptions {
  /** Ids read per batch (default 200). */
  batch?: number;
  /** List what would be deleted, delete nothing (at most `limit` ids are listed). */
  dryRun?: boolean;
  /** With `dryRun`, the most ids returned (default 1000). */
  limit?: number;
  /** Called after each batch with the executions deleted so far. */
  onProgress?: (deleted: number) => void;
}

export interface PruneExecutionsResult {
  /** Executions deleted (with `dryRun`: that would be). */
  executions: number;
  /** Rows deleted over every table (0 with `dryRun`). */
  rows: number;
  /** With `dryRun`, the ids that would be deleted (oldest first); otherwise empty. */
  execution_ids: string[];
}

/**
 * Delete the ended executions of `checkpointer`'s store whose last row is older than `olderThan` (an age in ms, or a
 * Date). ConfigError for a checkpointer without the recovery protocol or a bad age.
 */
export async function pruneEndedExecutions(
  checkpointer: Checkpointer,
  olderThan: number | Date,
  options: PruneExecutionsOptions = {},
): Promise<PruneExecutionsResult> {
  if (!supportsRecovery(checkpointer)) throw new ConfigError('this checkpointer cannot prune executions (it does not implement the recovery protocol)');
  const before = pruneCutoff(olderThan);
  const batch = options.batch ?? 200;
  if (options.dryRun) {
    const ids = await checkpointer.endedExecutions({ before, limit: options.limit ?? 1000 });
    return { executions: ids.length, rows: 0, execution_ids: ids };
  }
  let executions = 0;
  let rows = 0;
  for (;;) {
    const ids = await checkpointer.endedExecutions({ before, limit: batch });
    for (const id of ids) {
      rows += await checkpointer.deleteExecution(id);
      executions++;
    }
    options.onProgress?.(executions);
    if (ids.length < batch) return { executions, rows, execution_ids: [] };
  }
}
