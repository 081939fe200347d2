/**
 * The checkpoint replication outbox. Every committed `put`, `putWrites` or `recordInterrupt` of a checkpointer that
 * implements the replication protocol kicks a drain (through the durability write hook) that runs OFF the step's
 * path: the writer never awaits it, and the pass itself (reading the rows, encoding them, the HTTP exchange, marking
 * them) runs on the drain thread with its own connection to the store (drain-thread.ts), or inline for a store no
 * other connection can reach (in-memory SQLite, a custom checkpointer). One drain per store and connection at a time
 * (handles on one store file or Postgres schema share their outbox); a kick during a drain makes it go round again.
 *
 * A drain sends unsynced rows oldest first (`fetchUnsynced`, 200 at a time) and:
 * - marks rows synced only after a 2xx that lists them as accepted;
 * - quarantines (`markQuarantined`, with the Platform's reason) rows rejected on payload grounds (listed in
 *   `rejected`, or a 400/413/422 for a row sent alone) and keeps going; a checkpointer without quarantine keeps them
 *   buffered and the drain stops;
 * - on transport errors, timeouts, 429 and 5xx (after the client's own retries) stops with every row kept and tries
 *   again later with exponential backoff (1 s doubling to 30 s), so the outbox drains when the Platform comes back;
 * - on any other 4xx (401, 403, ...) stops with every row kept until the next write or `drainReplication`.
 * Rows a previous process left unsent are flushed too: a store opened while connected kicks a drain, and `connect()`
 * (and a command's saved connection) kicks one for every store already open and for the default local store.
 * Only rows written while connected are queued, each stamped with the project then in effect and sent to it (rows
 * written while not connected are local-only until `agentkit platform push`, docs/adr/0054); migrated history is
 * stored synced and is never sent. Rows are sent with the key of the connection in effect where the write that
 * kicked the drain happened (the job's inside `jobScope`): give each key its own store.
 */
import { existsSync } from 'node:fs';
import type { Checkpointer, ReplicaSource, ReplicatingCheckpointer } from '../durability/checkpointer.js';
import { supportsReplication } from '../durability/checkpointer.js';
import { onCheckpointerOpened, onCheckpointWrite, openedCheckpointers, setWriteStampSource, type WriteStamp } from '../durability/write-hook.js';
import path from 'node:path';
import { checkpointDbPath } from '../config/paths.js';
import { resolveConnection, type Connection } from './current-connection.js';
import { drainOnce, type DrainResult } from './drain.js';
import { drainOnThread } from './drain-thread.js';

export type { DrainResult } from './drain.js';

interface Outbox {
  /** A handle to drain through inline (the latest one seen); null for a store known only by its source. */
  checkpointer: ReplicatingCheckpointer | null;
  /** Where the drain thread reaches the store; null when only the handle can. */
  source: ReplicaSource | null;
  connection: Connection;
  running: Promise<DrainResult> | null;
  /** Set while a kicked drain waits out the linger. */
  linger: NodeJS.Timeout | null;
  again: boolean;
  /** The linger between two rounds of a running drain (`again`): unref'd while nobody awaits the drain. */
  pause: NodeJS.Timeout | null;
  /** Callers of drainReplication awaiting this outbox: while any does, the process stays up for the drain. */
  waiters: number;
  retryTimer: NodeJS.Timeout | null;
  retryDelayMs: number;
  last: DrainResult | null;
}

/** Outboxes of stores with a source, by source and connection. */
const bySource = new Map<string, Outbox>();
/** Outboxes of handles without a source, by connection. */
const byHandle = new WeakMap<Checkpointer, Map<string, Outbox>>();
let installed = false;

/** Start listening for checkpoint writes and opened stores (idempotent). `connect()` and `jobScope()` call it. */
export function installReplication(): void {
  // Consent at write time (docs/adr/0054): a row is queued, with the project then in effect, only when written while
  // connected; everything else stays on the machine unless `agentkit platform push` sends it.
  setWriteStampSource(writeStamp);
  if (installed) return;
  installed = true;
  const onStore = (checkpointer: Checkpointer) => {
    const connection = resolveConnection();
    if (!connection || !supportsReplication(checkpointer)) return;
    kick(outboxFor(checkpointer, connection));
  };
  onCheckpointWrite(onStore);
  // A store opened while connected may hold rows a previous process wrote and never sent.
  onCheckpointerOpened(onStore);
}

/** The stamp of a row written here and now: queued to the connection's project when connected, else local-only. */
function writeStamp(): WriteStamp {
  const connection = resolveConnection();
  return connection ? { queued: true, project: connection.project ?? '' } : { queued: false, project: process.env.AGENTKIT_PROJECT ?? '' };
}

/**
 * Kick a drain (after the linger, off the caller's path) for every store this process has open and for the default
 * local store file when it exists, with the connection in effect: rows a previous process left unsent go out without
 * waiting for the next write. `connect()` and a command's saved connection call it.
 */
export function flushLeftovers(connection: Connection | null = resolveConnection()): void {
  if (!connection) return;
  const seen = new Set<string>();
  for (const checkpointer of openedCheckpointers()) {
    if (!supportsReplication(checkpointer)) continue;
    const outbox = outboxFor(checkpointer, connection);
    if (outbox.source) seen.add(sourceKey(outbox.source));
    kick(outbox);
  }
  let file: string;
  try {
    file = path.resolve(checkpointDbPath());
  } catch {
    return;
  }
  const source: ReplicaSource = { driver: 'sqlite', path: file };
  if (!seen.has(sourceKey(source)) && existsSync(file)) kick(outboxForSource(source, connection, null));
}

function connectionId(connection: Connection): string {
  return `${connection.target}\u0000${connection.project ?? ''}\u0000${connection.apiKey}`;
}

function sourceKey(source: ReplicaSource): string {
  return source.driver === 'sqlite' ? `sqlite\u0000${source.path}` : `postgres\u0000${source.url}\u0000${source.schema}`;
}

function newOutbox(checkpointer: ReplicatingCheckpointer | null, source: ReplicaSource | null, connection: Connection): Outbox {
  return {
    checkpointer,
    source,
    connection,
    running: null,
    linger: null,
    again: false,
    pause: null,
    waiters: 0,
    retryTimer: null,
    retryDelayMs: 1000,
    last: null,
  };
}

function outboxForSource(source: ReplicaSource, connection: Connection, checkpointer: ReplicatingCheckpointer | null): Outbox {
  const id = `${sourceKey(source)}\u0000${connectionId(connection)}`;
  let outbox = bySource.get(id);
  if (!outbox) bySource.set(id, (outbox = newOutbox(checkpointer, source, connection)));
  if (checkpointer) outbox.checkpointer = checkpointer;
  return outbox;
}

function outboxFor(checkpointer: ReplicatingCheckpointer, connection: Connection): Outbox {
  const source = checkpointer.replicaSource?.() ?? null;
  if (source) return outboxForSource(source, connection, checkpointer);
  let byConnection = byHandle.get(checkpointer);
  if (!byConnection) byHandle.set(checkpointer, (byConnection = new Map()));
  const id = connectionId(connection);
  let outbox = byConnection.get(id);
  if (!outbox) byConnection.set(id, (outbox = newOutbox(checkpointer, null, connection)));
  return outbox;
}

/**
 * How long a kicked drain waits before reading the outbox, so the rows of a burst of steps go in one request instead
 * of one request per step.
 */
export const DRAIN_LINGER_MS = 250;

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
    result = await drainPass(outbox);
    if (outbox.again && result.outcome === 'drained') await lingerBetweenRounds(outbox);
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
 * The linger before a drain's next round. It keeps the process up only while someone awaits the drain: a process that
 * is done must not stay up for it, but one awaiting `drainReplication` (which waits for the running drain) would
 * otherwise end with that await unsettled (seen in CI: the connected walkthrough exited mid-resume).
 */
function lingerBetweenRounds(outbox: Outbox): Promise<void> {
  return new Promise((resolve) => {
    outbox.pause = setTimeout(() => {
      outbox.pause = null;
      resolve();
    }, DRAIN_LINGER_MS);
    if (outbox.waiters === 0) outbox.pause.unref();
  });
}

/**
 * One pass on the drain thread when the store can be reached from there (reading, encoding, the HTTP exchange and
 * marking rows all stay off the writer's thread), else inline through the handle.
 */
async function drainPass(outbox: Outbox): Promise<DrainResult> {
  const onThread = outbox.source ? drainOnThread(outbox.source, outbox.connection) : null;
  if (onThread) return onThread;
  if (outbox.checkpointer) return drainOnce(outbox.checkpointer, outbox.connection);
  // Known only by its source and no thread: nothing to drain through until the process opens the store.
  return { synced: 0, quarantined: {}, outcome: 'drained', error: null };
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
  outbox.waiters++;
  outbox.pause?.ref();
  try {
    while (outbox.running) await outbox.running;
    outbox.running = runLoop(outbox);
    return await outbox.running;
  } finally {
    outbox.waiters--;
  }
}

/** The last drain's result for this checkpointer and the connection in effect, or null. */
export function replicationStatus(checkpointer: Checkpointer, connection: Connection | null = resolveConnection()): DrainResult | null {
  if (!connection || !supportsReplication(checkpointer)) return null;
  return outboxFor(checkpointer, connection).last;
}
