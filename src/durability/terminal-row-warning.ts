/**
 * The warning for a failed run whose terminal row could not be written (every runner: Chain, Agent, Swarm,
 * Supervisor). The run's own error is what its caller sees; without the row the run reads as crashed and resumes from
 * its last real checkpoint, so this is a warning, not an error.
 *
 * While the store is down every failing run hits it, so storage outages are warned once per window (10 s): the first
 * names its execution and says the rest are counted; the next one shown says how many were not. Other store errors
 * (a row the store refused) are warned each time.
 */
import { findStorageError } from '../store/storage-errors.js';
import { ExecutionBusy } from './errors.js';

const WINDOW_MS = 10_000;
let windowStart = -Infinity;
let suppressed = 0;

/**
 * Warn that `executionId`'s failed terminal row was not written because of `storeError`. `kind` names the runner in
 * the message (`swarm `, `supervisor `, or empty). A lost lease (`ExecutionBusy`) is silent: that run says so itself.
 */
export function warnTerminalRowLost(executionId: string, storeError: unknown, kind = '', now = Date.now()): void {
  if (storeError instanceof ExecutionBusy) return;
  const reason = storeError instanceof Error ? storeError.message : String(storeError);
  const line = `agentkit: could not write the failed terminal row of ${kind}execution '${executionId}': ${reason}`;
  if (!findStorageError(storeError)) {
    process.emitWarning(line);
    return;
  }
  if (now - windowStart < WINDOW_MS) {
    suppressed++;
    return;
  }
  const more =
    suppressed > 0 ? ` (${suppressed} more in the last ${WINDOW_MS / 1000} s not shown)` : ` (more while the store is unavailable are counted, not shown)`;
  windowStart = now;
  suppressed = 0;
  process.emitWarning(`${line}${more}`);
}
