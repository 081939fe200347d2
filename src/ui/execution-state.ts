/** Where an execution stands, read from its checkpoint rows (oldest first). */
import { isRunEnd } from '../durability/run-end.js';
import type { Checkpoint } from '../types.js';

/**
 * `completed` / `failed` from the terminal row, `paused` when the latest row is interrupted, else `incomplete`
 * (running, or stopped by a crash: resumable without a value).
 */
export function executionState(rows: readonly Checkpoint[]): 'completed' | 'failed' | 'paused' | 'incomplete' {
  const last = rows[rows.length - 1];
  if (!last) return 'incomplete';
  if (isRunEnd(last)) return last.run_status === 'failed' ? 'failed' : 'completed';
  return last.status === 'interrupted' ? 'paused' : 'incomplete';
}
