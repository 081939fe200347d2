import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SpanStatusCode } from '@opentelemetry/api';
import { suite } from '../../test-support/uvu.js';
import { isSecretKey } from '../tracing/redact.js';
import { SpanBatch } from '../tracing/span-encoding.js';
import { WriterThread } from '../tracing/writer-thread.js';
import { BACKGROUND_NICENESS, currentThreadId } from './thread-priority.js';
import { retainWalKeeper } from './wal-keeper.js';

const test = suite<{ dir: string }>('background threads yield the CPU', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-priority-'));
});
test.afterEach(async (ctx) => {
  // The keeper and writer threads close their connections after the test releases them: retry while they finish.
  await rm(ctx.dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

/** A thread's nice value from /proc (field 19 of its stat line; the name in parentheses may hold spaces). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** Threads of this process running at the background nice value. */
function backgroundThreads(): Set<number> {
  return new Set(
    readdirSync('/proc/self/task')
      .map(Number)
      .filter((tid) => {
        try {
          return niceOf(tid) >= BACKGROUND_NICENESS;
        } catch {
          return false;
        }
      }),
  );
}

async function waitForNewBackgroundThread(before: Set<number>): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const added = [...backgroundThreads()].filter((tid) => !before.has(tid));
    if (added.length > 0 || Date.now() > deadline) return added;
    await sleep(20);
  }
}

test('yieldThisThread lowers the calling thread only, never the main thread', async () => {
  const main = currentThreadId();
  if (main === null) return; // no /proc/thread-self: nothing to lower, and the function says so
  const mainNice = niceOf(main);
  // The worker listens on its port after answering, so its thread (and /proc/self/task/<tid>) lives until terminate():
  // a worker with nothing left to do exits at once, and reading its nice value then raced its exit (ESRCH).
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     parentPort.once('message', () => {});
     import(workerData.tsx).then((tsx) => tsx.register()).then(() => import(workerData.module))
       .then((m) => parentPort.postMessage({ yielded: m.yieldThisThread(), tid: m.currentThreadId() }));`,
    { eval: true, workerData: { tsx: import.meta.resolve('tsx/esm/api'), module: new URL('./thread-priority.ts', import.meta.url).href } },
  );
  const answer = await new Promise<{ yielded: boolean; tid: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    assert.is(answer.yielded, true);
    assert.is.not(answer.tid, main);
    assert.is(niceOf(answer.tid), BACKGROUND_NICENESS);
    assert.is(niceOf(main), mainNice, 'the main thread keeps its priority');
  } finally {
    await worker.terminate();
  }
});

test('the span writer thread and the WAL keeper run at the background priority', async ({ dir }) => {
  if (currentThreadId() === null) return;
  const before = backgroundThreads();
  const file = path.join(dir, 'local.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const release = retainWalKeeper(db, file);
  try {
    assert.is((await waitForNewBackgroundThread(before)).length, 1, 'the WAL keeper');
    const afterKeeper = backgroundThreads();
    const thread = WriterThread.start(() => undefined)!;
    const batch = new SpanBatch();
    batch.append('0000000000000001', 'a'.repeat(32), undefined, 'chain.c', 1, 2, SpanStatusCode.OK, {}, [], isSecretKey);
    thread.post([{ dbPath: path.join(dir, 'spans.db'), spans: [batch.take()], spanCount: 1, events: [] }]);
    thread.waitSync();
    assert.ok((await waitForNewBackgroundThread(afterKeeper)).length >= 1, 'the span writer');
    thread.close();
  } finally {
    release();
    db.close();
  }
});

test.run();
