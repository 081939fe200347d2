/**
 * The writer thread: receives batches from the main thread, writes them (store-writer.ts), and publishes the number
 * of the last batch written in shared memory so the main thread can wait for a flush without a message round trip.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StoreWriter } from './store-writer.js';
import type { WriterMessage } from './writer-thread.js';

const done = new Int32Array((workerData as { done: SharedArrayBuffer }).done);
const writer = new StoreWriter((message) => parentPort!.postMessage({ type: 'warning', message }));

parentPort!.on('message', (message: WriterMessage) => {
  if (message.type === 'batch') {
    writer.write(message.batches);
    Atomics.store(done, 0, message.seq);
    Atomics.notify(done, 0);
  } else {
    writer.close();
    Atomics.store(done, 0, message.seq);
    Atomics.notify(done, 0);
    parentPort!.close();
  }
});
