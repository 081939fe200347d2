/**
 * The writer thread: receives batches from the main thread, writes them (store-writer.ts), and publishes the number
 * of the last batch handled in shared memory so the main thread can wait for a flush without a message round trip.
 * Shared slots: [0] the last batch handled, [1] the thread's state (see writer-thread.ts).
 *
 * Batches that queued up while the thread was writing are taken together (one transaction per store for all of
 * them): under load, transactions grow instead of falling behind, and each row dirties fewer index pages.
 *
 * Rows held for a locked store (store-writer.ts) are tried again every `RETRY_MS` and with each new batch for that
 * store. A batch counts as handled once nothing is held, so a flush waits for held rows (up to its own limit) and
 * the main thread sees the thread busy meanwhile (its batches grow instead of piling up as messages).
 */
import Database from 'better-sqlite3';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { registerSecret } from '../config/secrets.js';
import { StoreWriter, type StoreBatch } from './store-writer.js';
import { THREAD_RUNNING, type WriterMessage } from './writer-thread.js';

const data = workerData as { shared: SharedArrayBuffer; busyTimeoutMs?: number };
/** Pause between tries of rows held for a locked store (each try itself waits up to the busy timeout). */
const RETRY_MS = 50;
const shared = new Int32Array(data.shared);
const writer = new StoreWriter((message) => parentPort!.postMessage({ type: 'warning', message }), {
  walKeeper: false,
  ...(data.busyTimeoutMs !== undefined ? { busyTimeoutMs: data.busyTimeoutMs } : {}),
});
const port = parentPort!;

/** The last batch received; published as handled once no rows are held. */
let received = 0;
let retry: NodeJS.Timeout | undefined;

function handled(seq: number): void {
  received = seq;
  if (writer.holding) {
    retry ??= setTimeout(() => {
      retry = undefined;
      writer.retryHeld();
      handled(received);
    }, RETRY_MS);
    return;
  }
  Atomics.store(shared, 0, seq);
  Atomics.notify(shared, 0);
}

/** `batches` merged per store, in order (a store's encoded span buffers are written one after the other). */
function merged(batches: StoreBatch[]): StoreBatch[] {
  const byStore = new Map<string, StoreBatch>();
  for (const batch of batches) {
    const known = byStore.get(batch.dbPath);
    if (!known) byStore.set(batch.dbPath, { ...batch });
    else
      byStore.set(batch.dbPath, {
        dbPath: batch.dbPath,
        spans: known.spans.concat(batch.spans),
        spanCount: known.spanCount + batch.spanCount,
        events: known.events.concat(batch.events),
      });
  }
  return [...byStore.values()];
}

port.on('message', (first: WriterMessage) => {
  let seq = first.seq;
  try {
    if (first.type === 'close') return close();
    for (const secret of first.secrets ?? []) registerSecret(secret);
    const taken = [...first.batches];
    let next: { message: WriterMessage } | undefined;
    while ((next = receiveMessageOnPort(port) as { message: WriterMessage } | undefined)) {
      if (next.message.type === 'close') break;
      for (const secret of next.message.secrets ?? []) registerSecret(secret);
      taken.push(...next.message.batches);
      seq = next.message.seq;
    }
    writer.write(taken.length > 1 ? merged(taken) : taken);
    if (next?.message.type === 'close') {
      seq = next.message.seq;
      close();
    }
  } finally {
    // Always: a flush waiting on the main thread must never wait for a batch that failed (held rows excepted).
    handled(seq);
  }
});

function close(): void {
  clearTimeout(retry);
  retry = undefined;
  writer.close();
  port.close();
}

// Load the native SQLite module now, while the main thread keeps this thread ref'd: a thread stopped while it loads a
// native module aborts the whole process (a fatal N-API error), so the process must not exit before this is done.
new Database(':memory:').close();
Atomics.store(shared, 1, THREAD_RUNNING);
Atomics.notify(shared, 1);
port.postMessage({ type: 'ready' });
