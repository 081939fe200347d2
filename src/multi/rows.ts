/** Reading a shared execution's rows the way coordinators need: newest first, filtered, in growing pages. */
import type { Checkpointer } from '../durability/checkpointer.js';
import type { Checkpoint } from '../types.js';

/**
 * The newest row of `executionId` matching `predicate`, or null. Reads newest-first in growing pages, because the
 * row sought (a handoff boundary, a worker's last step) may lie below many rows written after it.
 */
export async function newestRow(checkpointer: Checkpointer, executionId: string, predicate: (row: Checkpoint) => boolean): Promise<Checkpoint | null> {
  for (let limit = 64; ; limit *= 16) {
    const rows = await checkpointer.list(executionId, { limit, newestFirst: true });
    const found = rows.find(predicate);
    if (found) return found;
    if (rows.length < limit) return null;
  }
}

/**
 * The rows of `executionId`, newest first, down to and including the newest one matching `until` (all rows when none
 * matches), each page read by one query so the rows returned are one consistent snapshot even while another process
 * is writing to the execution.
 */
export async function rowsDownTo(checkpointer: Checkpointer, executionId: string, until: (row: Checkpoint) => boolean): Promise<Checkpoint[]> {
  for (let limit = 64; ; limit *= 16) {
    const rows = await checkpointer.list(executionId, { limit, newestFirst: true });
    const at = rows.findIndex(until);
    if (at >= 0) return rows.slice(0, at + 1);
    if (rows.length < limit) return rows;
  }
}

/** The oldest row of `executionId` matching `predicate`, or null (reads the whole history in write order). */
export async function oldestRow(checkpointer: Checkpointer, executionId: string, predicate: (row: Checkpoint) => boolean): Promise<Checkpoint | null> {
  for (let limit = 256; ; limit *= 16) {
    const rows = await checkpointer.list(executionId, { limit });
    const found = rows.find(predicate);
    if (found) return found;
    if (rows.length < limit) return null;
  }
}

/** True when `path` is `prefix` itself or lies under it (`prefix/...`). */
export function underPath(path: string | null, prefix: string): boolean {
  return path === prefix || path?.startsWith(`${prefix}/`) === true;
}
