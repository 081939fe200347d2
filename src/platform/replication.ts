/**
 * The checkpoint replication outbox. Every committed `put`, `putWrites` or `recordInterrupt` of a checkpointer that
 * implements the replication protocol kicks a drain (through the durability write hook) that runs OFF the step's
 * path: the writer never awaits it. One drain per checkpointer and connection at a time; a kick during a drain makes
 * it go round once more.
 *
 * A drain sends unsynced rows oldest first (`fetchUnsynced`, 200 at a time) and:
 * - marks rows synced only after a 2xx that lists them as accepted;
 * - quarantines (`markQuarantined`, with the Platform's reason) rows rejected on payload grounds (listed in
 *   `rejected`, or a 400/413/422 for a row sent alone) and keeps going; a checkpointer without quarantine keeps them
 *   buffered and the drain stops;
 * - on transport errors, timeouts, 429 and 5xx (after the client's own retries) stops with every row kept and tries
 *   again later with exponential backoff (1 s doubling to 30 s), so the outbox drains when the Platform comes back;
 * - on any other 4xx (401, 403, ...) stops with every row kept until the next write or `drainReplication`.
 * Migrated history is stored synced and is never sent. Rows of a checkpointer are sent with the connection in effect
 * where the write that kicked the drain happened (the job's inside `jobScope`): give each connection its own store.
 */
import type { Checkpointer, ReplicatingCheckpointer } from '../durability/checkpointer.js';
import { supportsQuarantine, supportsReplication } from '../durability/checkpointer.js';
import { onCheckpointWrite } from '../durability/write-hook.js';
import { clientFor, resolveConnection, type Connection } from './connection.js';
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

const BATCH = 200;
const PAYLOAD_STATUSES = new Set([400, 413, 422]);

interface Outbox {
  checkpointer: ReplicatingCheckpointer;
  connection: Connection;
  running: Promise<DrainResult> | null;
  /** Set while a kicked drain waits out the linger. */
  linger: NodeJS.Timeout | null;
  again: boolean;
  retryTimer: NodeJS.Timeout | null;
  retryDelayMs: number;
  last: DrainResult | null;
}

const outboxes = new WeakMap<Checkpointer, Map<string, Outbox>>();
let installed = false;

/** Start listening for checkpoint writes (idempotent). `connect()` and `jobScope()` call it. */
export function installReplication(): void {
  if (installed) return;
  installed = true;
  onCheckpointWrite((checkpointer) => {
    const connection = resolveConnection();
    if (!connection || !supportsReplication(checkpointer)) return;
    kick(outboxFor(checkpointer, connection));
  });
}

function connectionId(connection: Connection): string {
  return `${connection.target}\u0000${connection.project ?? ''}\u0000${connection.apiKey}`;
}

function outboxFor(checkpointer: ReplicatingCheckpointer, connection: Connection): Outbox {
  let byConnection = outboxes.get(checkpointer);
  if (!byConnection) outboxes.set(checkpointer, (byConnection = new Map()));
  const id = connectionId(connection);
  let outbox = byConnection.get(id);
  if (!outbox) {
    outbox = { checkpointer, connection, running: null, linger: null, again: false, retryTimer: null, retryDelayMs: 1000, last: null };
    byConnection.set(id, outbox);
  }
  return outbox;
}

/**
 * How long a kicked drain waits before reading the outbox, so the rows of a burst of steps go in one request instead
 * of one request per step (the drain shares the event loop with the steps; fewer, larger passes cost them less).
 */
export const DRAIN_LINGER_MS = 100;

/** Schedule a drain after the linger: never on the writer's path. */
function kick(outbox: Outbox): void {
  if (outbox.running || outbox.linger) {
    outbox.again = true;
    return;
  }
  outbox.linger = setTimeout(() => {
    outbox.linger = null;
    outbox.running = runLoop(outbox);
  }, DRAIN_LINGER_MS);
  // A process that is done must not stay up for the linger: drainReplication is how a process waits for the outbox.
  outbox.linger.unref();
}

async function runLoop(outbox: Outbox): Promise<DrainResult> {
  let result: DrainResult;
  do {
    outbox.again = false;
    result = await drainOnce(outbox.checkpointer, outbox.connection);
    if (outbox.again && result.outcome === 'drained') await new Promise((resolve) => setTimeout(resolve, DRAIN_LINGER_MS).unref());
  } while (outbox.again && result.outcome === 'drained');
  outbox.last = result;
  outbox.running = null;
  if (outbox.retryTimer) clearTimeout(outbox.retryTimer);
  outbox.retryTimer = null;
  if (result.outcome === 'unavailable') {
    const delay = outbox.retryDelayMs;
    outbox.retryDelayMs = Math.min(delay * 2, 30_000);
    outbox.retryTimer = setTimeout(() => {
      outbox.retryTimer = null;
      kick(outbox);
    }, delay);
    outbox.retryTimer.unref();
  } else {
    outbox.retryDelayMs = 1000;
  }
  return result;
}

/**
 * Drain `checkpointer` now with the connection in effect (or `connection`) and wait for it: for tests, shutdown
 * hooks and `agentkit` commands that must not exit with rows in flight. Waits for a drain already running first.
 * Returns null when not connected or the checkpointer does not replicate.
 */
export async function drainReplication(checkpointer: Checkpointer, connection: Connection | null = resolveConnection()): Promise<DrainResult | null> {
  if (!connection || !supportsReplication(checkpointer)) return null;
  const outbox = outboxFor(checkpointer, connection);
  if (outbox.linger) {
    clearTimeout(outbox.linger);
    outbox.linger = null;
  }
  while (outbox.running) await outbox.running;
  outbox.running = runLoop(outbox);
  return outbox.running;
}

/** The last drain's result for this checkpointer and the connection in effect, or null. */
export function replicationStatus(checkpointer: Checkpointer, connection: Connection | null = resolveConnection()): DrainResult | null {
  if (!connection || !supportsReplication(checkpointer)) return null;
  return outboxes.get(checkpointer)?.get(connectionId(connection))?.last ?? null;
}

/** One pass: send batches until nothing is left or something stops it. */
async function drainOnce(checkpointer: ReplicatingCheckpointer, connection: Connection): Promise<DrainResult> {
  const client = clientFor(connection);
  const result: DrainResult = { synced: 0, quarantined: {}, outcome: 'drained', error: null };
  for (;;) {
    let rows;
    try {
      rows = await checkpointer.fetchUnsynced(BATCH);
    } catch (error) {
      return { ...result, outcome: 'unavailable', error: `cannot read the outbox: ${(error as Error).message}` };
    }
    if (rows.length === 0) return result;
    const outcome = await sendBatch(checkpointer, client, connection, rows.map((r) => toWire(r.checkpoint, r.sequence)));
    result.synced += outcome.synced;
    Object.assign(result.quarantined, outcome.quarantined);
    if (outcome.stop) return { ...result, outcome: outcome.stop, error: outcome.error };
    if (outcome.synced === 0 && Object.keys(outcome.quarantined).length === 0) {
      return { ...result, outcome: 'refused', error: 'the Platform acknowledged none of the rows sent' };
    }
  }
}

interface BatchOutcome {
  synced: number;
  quarantined: Record<string, string>;
  stop: DrainResult['outcome'] | null;
  error: string | null;
}

async function sendBatch(
  checkpointer: ReplicatingCheckpointer,
  client: ReturnType<typeof clientFor>,
  connection: Connection,
  wire: ReturnType<typeof toWire>[],
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { synced: 0, quarantined: {}, stop: null, error: null };
  let answer;
  try {
    answer = await client.ingestCheckpoints(wire, connection.project);
  } catch (error) {
    const status = error instanceof PlatformError ? error.httpStatus : undefined;
    if (error instanceof PlatformError && error.transient) return { ...outcome, stop: 'unavailable', error: error.message };
    if (status !== undefined && status !== null && PAYLOAD_STATUSES.has(status)) {
      // The whole body was refused: find the offending rows by sending each alone.
      if (wire.length > 1) {
        for (const row of wire) {
          const single = await sendBatch(checkpointer, client, connection, [row]);
          outcome.synced += single.synced;
          Object.assign(outcome.quarantined, single.quarantined);
          if (single.stop) return { ...outcome, stop: single.stop, error: single.error };
        }
        return outcome;
      }
      const reason = (error as PlatformError).detail ?? (error as Error).message;
      return quarantine(checkpointer, outcome, [{ id: wire[0]!.checkpoint_id, reason }]);
    }
    return { ...outcome, stop: 'refused', error: (error as Error).message };
  }
  outcome.synced = answer.accepted.length > 0 ? await checkpointer.markSynced(answer.accepted) : 0;
  // Rows resent after a lost acknowledgement come back accepted but are already synced: count what was sent.
  outcome.synced = Math.max(outcome.synced, answer.accepted.length);
  if (answer.rejected.length > 0) return quarantine(checkpointer, outcome, answer.rejected);
  return outcome;
}

async function quarantine(checkpointer: ReplicatingCheckpointer, outcome: BatchOutcome, rejected: Array<{ id: string; reason: string }>): Promise<BatchOutcome> {
  const reasons = Object.fromEntries(rejected.map((r) => [r.id, r.reason]));
  if (!supportsQuarantine(checkpointer)) {
    return { ...outcome, stop: 'no-quarantine', error: `the Platform rejected ${rejected.length} row(s) and this checkpointer cannot quarantine them` };
  }
  await checkpointer.markQuarantined(reasons);
  Object.assign(outcome.quarantined, reasons);
  return outcome;
}
