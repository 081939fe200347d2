/**
 * Restore from the Platform (`restoreIfMissing`, installed into the durability layer by connected mode). Runs only
 * when connected, AGENTKIT_RESTORE_FROM_PLANE is not `0`, and the local store has no row of the execution. It
 * fetches the latest replicated checkpoint and writes it locally, already synced (never sent back). An interrupted
 * latest checkpoint is written with `recordInterrupt`, which re-creates its pending row in the same transaction, so
 * the claim still has exactly one winner. Concurrent restores of one execution in a process share one fetch; across
 * processes the checkpoint id is the row's primary key, so only the first write lands and the others read it back
 * (a resumer that already claimed the pending row is never given a second one).
 */
import type { Checkpointer } from '../durability/checkpointer.js';
import { supportsReplication } from '../durability/checkpointer.js';
import { setRestorer } from '../durability/run-end.js';
import type { Checkpoint } from '../types.js';
import { clientFor, resolveConnection } from './connection.js';
import { currentJob } from './job-context.js';
import { PlatformError } from './errors.js';
import { fromWire } from './wire.js';

const inFlight = new WeakMap<Checkpointer, Map<string, Promise<Checkpoint | null>>>();

/** Is restore enabled by the environment (AGENTKIT_RESTORE_FROM_PLANE != `0`)? */
export function restoreEnabled(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.AGENTKIT_RESTORE_FROM_PLANE?.trim().toLowerCase();
  return value !== '0' && value !== 'false';
}

/** See the module comment. Throws a PlatformError when the Platform had to be asked and could not answer. */
export async function restoreFromPlatform(checkpointer: Checkpointer, executionId: string): Promise<Checkpoint | null> {
  const connection = resolveConnection();
  if (!connection || !(currentJob()?.restoreFromPlane ?? restoreEnabled())) return null;
  if ((await checkpointer.getLast(executionId)) !== null) return null;
  let byExecution = inFlight.get(checkpointer);
  if (!byExecution) inFlight.set(checkpointer, (byExecution = new Map()));
  const running = byExecution.get(executionId);
  if (running) return running;
  const restore = (async () => {
    let wire;
    try {
      wire = await clientFor(connection).latestCheckpoint(executionId);
    } catch (error) {
      throw restoreFailure(executionId, connection.target, error);
    }
    if (!wire) return null;
    if (wire.execution_id !== executionId) return null;
    const write = fromWire(wire);
    try {
      if (write.status === 'interrupted') {
        await checkpointer.recordInterrupt(write, {
          reason: write.interrupt_reason ?? 'interrupted',
          context: write.interrupt_context ?? {},
          chain_name: write.chain_name,
          node_id: write.node_id,
          agent_path: write.agent_path ?? null,
          created_at: write.created_at,
        });
      } else {
        await checkpointer.put(write);
      }
    } catch (error) {
      // Another process restored it first (same primary key): theirs stands, with its pending row.
      const existing = await checkpointer.getById(write.checkpoint_id);
      if (!existing) throw error;
      return existing;
    }
    if (supportsReplication(checkpointer)) await checkpointer.markSynced([write.checkpoint_id]);
    return checkpointer.getById(write.checkpoint_id);
  })().finally(() => byExecution.delete(executionId));
  byExecution.set(executionId, restore);
  return restore;
}

/**
 * The one-line error of a restore the Platform could not answer: which execution, that the local store has no record
 * of it (so the resume cannot go on without the Platform), and why the Platform could not be asked. Refused keys
 * (401/403) keep their own errors.
 */
function restoreFailure(executionId: string, target: string, error: unknown): unknown {
  if (!(error instanceof PlatformError)) return error;
  const why = error.httpStatus === null ? `is unreachable (${unreachableReason(error)})` : `answered HTTP ${error.httpStatus}${error.detail ? `: ${error.detail}` : ''}`;
  return new PlatformError(
    `cannot restore execution '${executionId}': the local store has no record of it and the Platform at ${target} ${why}; ` +
      'try again when the Platform answers, or set AGENTKIT_RESTORE_FROM_PLANE=0 to use the local store alone',
    error.httpStatus,
    error.detail,
    { cause: error },
  );
}

/** The reason inside `Platform at X is unreachable (REASON); ...`. */
function unreachableReason(error: PlatformError): string {
  return /is unreachable \(([^)]*)\)/.exec(error.message)?.[1] ?? 'no answer';
}

let installed = false;

/** Make `restoreIfMissing` restore from the Platform (idempotent). */
export function installRestore(): void {
  if (installed) return;
  installed = true;
  setRestorer(restoreFromPlatform);
}
