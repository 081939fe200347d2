/**
 * The writer thread: receives batches from the main thread, writes them (store-writer.ts), and publishes the number
 * of the last batch handled in shared memory so the main thread can wait for a flush without a message round trip.
 * Shared slots: [0] the last batch handled, [1] the thread's state (see writer-thread.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StoreWriter } from './store-writer.js';
import { THREAD_RUNNING, type WriterMessage } from './writer-thread.js';

const shared = new Int32Array((workerData as { shared: SharedArrayBuffer }).shared);
const writer = new StoreWriter((message) => parentPort!.postMessage({ type: 'warning', message }));

function handled(seq: number): void {
  Atomics.store(shared, 0, seq);
  Atomics.notify(shared, 0);
}

parentPort!.on('message', (message: WriterMessage) => {
  try {
    if (message.type === 'batch') writer.write(message.batches);
    else {
      writer.close();
      parentPort!.close();
    }
  } finally {
    // Always: a flush waiting on the main thread must never wait for a batch that failed.
    handled(message.seq);
  }
});

Atomics.store(shared, 1, THREAD_RUNNING);
Atomics.notify(shared, 1);
