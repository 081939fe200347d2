/**
 * One drain pass of the checkpoint replication outbox (see replication.ts for the protocol): send unsynced rows oldest
 * first until none is left or something stops it. Runs on the drain thread (drain-worker.ts) with the thread's own
 * connection to the store, or inline on the caller's thread for a checkpointer no other connection can reach.
 */
import type { OutboxMarks, ReplicatingCheckpointer, UnsyncedCheckpoint } from '../durability/checkpointer.js';
import { supportsClaiming, supportsQuarantine } from '../durability/checkpointer.js';
import { clientFor, type Connection } from './current-connection.js';
import { PlatformError } from './errors.js';
import { toWire } from './wire.js';

/** What a drain did. */
export interface DrainResult {
  /** Rows acknowledged. */
  synced: number;
  /** Rows quarantined, id -> reason. */
  quarantined: Record<string, string>;
  /** `drained` (nothing left), `unavailable` (transport/5xx: retry scheduled), `refused` (another 4xx), `no-quarantine`. */
  outcome: 'drained' | 'unavailable' | 'refused' | 'no-quarantine';
  /** The error that stopped it, or null. */
  error: string | null;
}

/** Rows per request. */
const BATCH = 200;
const PAYLOAD_STATUSES = new Set([400, 413, 422]);

/**
 * One pass: send batches until nothing is left or something stops it. A store several processes drain (Postgres)
 * claims each batch (`withClaimedBatch`, FOR UPDATE SKIP LOCKED) and marks it in the claim's transaction, so each
 * row is sent once; others read and mark it through the checkpointer.
 */
export async function drainOnce(checkpointer: ReplicatingCheckpointer, connection: Connection): Promise<DrainResult> {
  const client = clientFor(connection);
  const result: DrainResult = { synced: 0, quarantined: {}, outcome: 'drained', error: null };
  for (;;) {
    let read = 0;
    let outcome: BatchOutcome;
    try {
      const send = async (rows: UnsyncedCheckpoint[], marks: Marks): Promise<BatchOutcome> => {
        read = rows.length;
        return rows.length === 0 ? { synced: 0, quarantined: {}, stop: null, error: null } : sendByProject(marks, client, rows);
      };
      outcome = supportsClaiming(checkpointer)
        ? await checkpointer.withClaimedBatch(BATCH, send)
        : await send(await checkpointer.fetchUnsynced(BATCH), marksOf(checkpointer));
    } catch (error) {
      return { ...result, outcome: 'unavailable', error: `cannot read the outbox: ${(error as Error).message}` };
    }
    if (read === 0) return result;
    result.synced += outcome.synced;
    Object.assign(result.quarantined, outcome.quarantined);
    if (outcome.stop) return { ...result, outcome: outcome.stop, error: outcome.error };
    if (outcome.synced === 0 && Object.keys(outcome.quarantined).length === 0) {
      return { ...result, outcome: 'refused', error: 'the Platform acknowledged none of the rows sent' };
    }
    // A short batch was all there was when it was read: the pass has caught up. Rows written since kicked the outbox
    // again, and go in the next pass after the linger, together; reading on at once would send them a few at a time
    // (one read, one request and one update for every few steps) while the steps keep writing.
    if (read < BATCH) return result;
  }
}

/** Where a batch's rows are marked: the claim's transaction, or the checkpointer itself. */
type Marks = Pick<OutboxMarks, 'markSynced'> & Partial<Pick<OutboxMarks, 'markQuarantined'>>;

function marksOf(checkpointer: ReplicatingCheckpointer): Marks {
  return {
    markSynced: (ids) => checkpointer.markSynced(ids),
    ...(supportsQuarantine(checkpointer) ? { markQuarantined: (reasons: Readonly<Record<string, string>>) => checkpointer.markQuarantined(reasons) } : {}),
  };
}

/**
 * Each row goes to the project stamped on it when it was written ('' for the key's default project), never to the
 * project in effect now (docs/adr/0054): one request per project, in write order.
 */
async function sendByProject(marks: Marks, client: ReturnType<typeof clientFor>, rows: UnsyncedCheckpoint[]): Promise<BatchOutcome> {
  const total: BatchOutcome = { synced: 0, quarantined: {}, stop: null, error: null };
  const projects = [...new Set(rows.map((row) => row.project_id))];
  for (const project of projects) {
    const wire = rows.filter((row) => row.project_id === project).map((r) => toWire(r.checkpoint, r.sequence));
    const outcome = await sendBatch(marks, client, project || null, wire);
    total.synced += outcome.synced;
    Object.assign(total.quarantined, outcome.quarantined);
    if (outcome.stop) return { ...total, stop: outcome.stop, error: outcome.error };
  }
  return total;
}

interface BatchOutcome {
  synced: number;
  quarantined: Record<string, string>;
  stop: DrainResult['outcome'] | null;
  error: string | null;
}

async function sendBatch(marks: Marks, client: ReturnType<typeof clientFor>, project: string | null, wire: ReturnType<typeof toWire>[]): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { synced: 0, quarantined: {}, stop: null, error: null };
  let answer;
  try {
    answer = await client.ingestCheckpoints(wire, project);
  } catch (error) {
    const status = error instanceof PlatformError ? error.httpStatus : undefined;
    if (error instanceof PlatformError && error.transient) return { ...outcome, stop: 'unavailable', error: error.message };
    if (status !== undefined && status !== null && PAYLOAD_STATUSES.has(status)) {
      // The whole body was refused: find the offending rows by sending each alone.
      if (wire.length > 1) {
        for (const row of wire) {
          const single = await sendBatch(marks, client, project, [row]);
          outcome.synced += single.synced;
          Object.assign(outcome.quarantined, single.quarantined);
          if (single.stop) return { ...outcome, stop: single.stop, error: single.error };
        }
        return outcome;
      }
      const reason = (error as PlatformError).detail ?? (error as Error).message;
      return quarantine(marks, outcome, [{ id: wire[0]!.checkpoint_id, reason }]);
    }
    return { ...outcome, stop: 'refused', error: (error as Error).message };
  }
  outcome.synced = answer.accepted.length > 0 ? await marks.markSynced(answer.accepted) : 0;
  // Rows resent after a lost acknowledgement come back accepted but are already synced: count what was sent.
  outcome.synced = Math.max(outcome.synced, answer.accepted.length);
  if (answer.rejected.length > 0) return quarantine(marks, outcome, answer.rejected);
  return outcome;
}

async function quarantine(marks: Marks, outcome: BatchOutcome, rejected: Array<{ id: string; reason: string }>): Promise<BatchOutcome> {
  const reasons = Object.fromEntries(rejected.map((r) => [r.id, r.reason]));
  if (!marks.markQuarantined) {
    return { ...outcome, stop: 'no-quarantine', error: `the Platform rejected ${rejected.length} row(s) and this checkpointer cannot quarantine them` };
  }
  await marks.markQuarantined(reasons);
  Object.assign(outcome.quarantined, reasons);
  return outcome;
}
