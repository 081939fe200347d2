/**
 * Restore from the Platform (`restoreIfMissing`, installed into the durability layer by connected mode). Runs only
 * when connected, AGENTKIT_RESTORE_FROM_PLANE is not `0`, and the local store has no row of the execution. It
 * fetches every replicated checkpoint of the execution (`/checkpoints/{id}/history`; a Swarm or Supervisor resume
 * reads its handoff or delegation boundary and the active member's rows, not only the latest row) and writes them
 * locally, already synced (never sent back). An interrupted latest checkpoint is written with `recordInterrupt`,
 * which re-creates its pending row in the same transaction, so the claim still has exactly one winner. Concurrent
 * restores of one execution in a process share one fetch (handles on one store included); across processes the
 * checkpoint id is the row's primary key, so only the first write lands and the others read it back (a resumer that
 * already claimed the pending row is never given a second one).
 */
import type { Checkpointer } from '../durability/checkpointer.js';
import { supportsReplication } from '../durability/checkpointer.js';
import { setRestorer } from '../durability/run-end.js';
import type { Checkpoint } from '../types.js';
import type { WireCheckpoint } from './client.js';
import { clientFor, resolveConnection, type Connection } from './current-connection.js';
import { currentJob } from './job-context.js';
import { PlatformError } from './errors.js';
import { fromWire } from './wire.js';

/** Restores running in this process: per store source (shared by its handles), else per handle. */
const inFlight = new WeakMap<object, Map<string, Promise<Checkpoint | null>>>();
const sharedScope = {};

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
  // Handles on one store share one restore (the resumers of one process race through different handles).
  const source = supportsReplication(checkpointer) ? (checkpointer.replicaSource?.() ?? null) : null;
  const key = `${source ? JSON.stringify(source) : ''}\u0000${executionId}`;
  const scope: object = source ? sharedScope : checkpointer;
  let byExecution = inFlight.get(scope);
  if (!byExecution) inFlight.set(scope, (byExecution = new Map()));
  const running = byExecution.get(key);
  if (running) return running;
  const restore = (async () => {
    let history: WireCheckpoint[];
    try {
      history = await fetchHistory(connection, executionId);
    } catch (error) {
      throw restoreFailure(executionId, connection.target, error);
    }
    history = history.filter((row) => row.execution_id === executionId);
    if (history.length === 0) return null;
    // Another handle of this process may have restored it while this one fetched.
    if ((await checkpointer.getLast(executionId)) !== null) return null;
    const writes = history.map(fromWire);
    const latest = writes.at(-1)!;
    const earlier = writes.slice(0, -1);
    // The latest row goes first: a resumer in another process that starts before the earlier rows land sees the
    // latest row (all a Chain or an Agent reads) and the pending row, or finds a Swarm's or Supervisor's boundary
    // missing and fails before claiming anything; it never resumes from a partial history's older row. Ordering is by
    // created_at, so rows written afterwards still read as older (unless they share the latest's timestamp: then
    // they go first, in order).
    const tied = earlier.some((row) => row.created_at === latest.created_at);
    try {
      if (tied && earlier.length > 0) await checkpointer.putWrites(earlier);
      await writeLatest(checkpointer, latest);
    } catch (error) {
      // Another process restored it first (same primary keys): theirs stands, with its pending row.
      const existing = await checkpointer.getById(latest.checkpoint_id);
      if (!existing) throw error;
      return existing;
    }
    if (!tied && earlier.length > 0) await checkpointer.putWrites(earlier);
    if (supportsReplication(checkpointer)) await checkpointer.markSynced(writes.map((row) => row.checkpoint_id));
    return checkpointer.getById(latest.checkpoint_id);
  })().finally(() => byExecution.delete(key));
  byExecution.set(key, restore);
  return restore;
}

/** The replicated rows of the execution, oldest first; a Platform without the history route gives its latest row. */
async function fetchHistory(connection: Connection, executionId: string): Promise<WireCheckpoint[]> {
  const client = clientFor(connection);
  const history = await client.checkpointHistory(executionId);
  if (history !== null) return history;
  const latest = await client.latestCheckpoint(executionId);
  return latest ? [latest] : [];
}

/** Write the latest row: an interrupted one with its pending row, in one transaction. */
async function writeLatest(checkpointer: Checkpointer, write: ReturnType<typeof fromWire>): Promise<void> {
  if (write.status !== 'interrupted') {
    await checkpointer.put(write);
    return;
  }
  await checkpointer.recordInterrupt(write, {
    reason: write.interrupt_reason ?? 'interrupted',
    context: write.interrupt_context ?? {},
    chain_name: write.chain_name,
    node_id: write.node_id,
    agent_path: write.agent_path ?? null,
    created_at: write.created_at,
  });
}

/**
 * The one-line error of a restore the Platform could not answer: which execution, that the local store has no record
 * of it (so the resume cannot go on without the Platform), and why the Platform could not be asked. Refused keys
 * (401/403) keep their own errors.
 */
function restoreFailure(executionId: string, target: string, error: unknown): unknown {
  if (!(error instanceof PlatformError)) return error;
  const why =
    error.httpStatus === null ? `is unreachable (${unreachableReason(error)})` : `answered HTTP ${error.httpStatus}${error.detail ? `: ${error.detail}` : ''}`;
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
