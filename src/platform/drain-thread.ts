/**
 * The main thread's side of the replication drain thread. A drain pass reads the unsynced rows, decodes them, encodes
 * the request, waits for the Platform and marks the rows: about 25-45 µs of CPU per row on SQLite that a step running
 * on the same thread would pay for. On the drain thread (drain-worker.ts) the pass uses its own connection to the
 * store, so the writer's thread only posts one message per pass and reads back the result. The thread starts at the
 * first pass, is unref'd (it never keeps a process alive; `drainReplication` refs it while someone waits), and when
 * it cannot start or fails, passes run inline again (`drainOnThread` returns null).
 * The thread is started by ../store/worker-module.ts.
 */
import type { Worker } from 'node:worker_threads';
import type { ReplicaSource } from '../durability/checkpointer.js';
import { threadErrorText } from '../store/thread-error.js';
import { startWorkerModule, workerModuleUrl } from '../store/worker-module.js';
import type { Connection } from './current-connection.js';
import type { DrainResult } from './drain.js';

/** A pass the thread is asked to run. */
export interface DrainRequest {
  id: number;
  source: ReplicaSource;
  connection: Connection;
}

/** The thread's answer: the pass's result, or why it could not run one. */
export type DrainReply = { id: number; result: DrainResult } | { id: number; error: string };

let worker: Worker | null = null;
let failed = false;
let nextId = 0;
const waiting = new Map<number, { resolve: (result: DrainResult) => void }>();

/**
 * Run one drain pass of the store at `source` on the drain thread; null when there is no usable thread (the caller
 * drains inline). A thread that dies mid-pass answers `unavailable`: the rows stay unsynced and the retry runs inline.
 */
export function drainOnThread(source: ReplicaSource, connection: Connection): Promise<DrainResult> | null {
  const thread = startThread();
  if (!thread) return null;
  const id = ++nextId;
  return new Promise<DrainResult>((resolve) => {
    waiting.set(id, { resolve });
    // Someone waits for this pass (a drain loop, maybe `drainReplication`): the process stays up until it answers.
    thread.ref();
    thread.postMessage({ id, source, connection } satisfies DrainRequest);
  });
}

function settle(id: number, result: DrainResult): void {
  const entry = waiting.get(id);
  if (!entry) return;
  waiting.delete(id);
  if (waiting.size === 0) worker?.unref();
  entry.resolve(result);
}

function startThread(): Worker | null {
  if (failed) return null;
  if (worker) return worker;
  try {
    const thread = startWorkerModule(workerModuleUrl(import.meta.url, 'drain-worker'));
    thread.on('message', (reply: DrainReply) => {
      settle(reply.id, 'result' in reply ? reply.result : { synced: 0, quarantined: {}, outcome: 'unavailable', error: reply.error });
    });
    const fail = (reason: string) => {
      failed = true;
      worker = null;
      for (const id of [...waiting.keys()])
        settle(id, { synced: 0, quarantined: {}, outcome: 'unavailable', error: `the replication drain thread stopped (${reason})` });
    };
    thread.on('error', (error) => fail(threadErrorText(error)));
    thread.on('exit', (code) => fail(`exit code ${code}`));
    thread.unref();
    worker = thread;
    return thread;
  } catch {
    failed = true;
    return null;
  }
}
