import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import { suite } from '../../test-support/uvu.js';
import { isSecretKey } from '../tracing/redact.js';
import { SpanBatch } from '../tracing/span-encoding.js';
import { StoreWriter } from '../tracing/store-writer.js';
import { openLocalStore } from './open.js';
import { MIN_ROWS_AFTER_YIELD, WritePriority, writePriorityBuffer } from './write-priority.js';

const test = suite<{ dir: string }>('write priority: span writers yield to waiting checkpoint commits (ADR 0031)', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-write-priority-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const trace = 'c'.repeat(32);

function spans(count: number): SpanBatch {
  const batch = new SpanBatch();
  for (let id = 1; id <= count; id++)
    batch.append(
      id.toString(16).padStart(16, '0'),
      trace,
      undefined,
      `s${id}`,
      1_767_225_600_000_000 + id,
      1_767_225_600_000_001 + id,
      SpanStatusCode.OK,
      { id },
      [],
      isSecretKey,
    );
  return batch;
}

function storedNames(file: string): string[] {
  const db = openLocalStore(file, { readonly: true });
  try {
    return db.prepare('SELECT name FROM spans ORDER BY span_id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

test('the counters: a waiting commit makes writers contended until it is served; yields wake it', () => {
  const priority = new WritePriority(new SharedArrayBuffer(8));
  assert.is(priority.contended, false);
  priority.want();
  priority.want();
  assert.is(priority.contended, true);
  priority.served();
  assert.is(priority.contended, true, 'one commit still waits');
  const seen = priority.yields();
  priority.yielded();
  assert.is(priority.yields(), seen + 1);
  priority.served();
  assert.is(priority.contended, false);
  // Nothing waits: returns at once.
  priority.waitForCommits(10_000);
  assert.instance(writePriorityBuffer(), SharedArrayBuffer);
  assert.is(writePriorityBuffer(), writePriorityBuffer(), 'one buffer per process');
});

test('while a commit waits, a batch of spans is written in several transactions, all of it, and the writer yields between them', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const priority = new WritePriority(new SharedArrayBuffer(8));
  const writer = new StoreWriter(() => undefined, { priority });
  priority.want();
  try {
    // 100 rows: the first transaction ends after one statement (8 rows), the next ones after at least
    // MIN_ROWS_AFTER_YIELD rows each (72 after the second), the last takes the remaining 28.
    writer.write([{ dbPath: file, spans: [spans(100).take()], spanCount: 100, events: [] }]);
  } finally {
    priority.served();
    writer.close();
  }
  assert.is(MIN_ROWS_AFTER_YIELD, 64);
  assert.is(priority.yields(), 2, 'ended its transaction twice for the waiting commit');
  assert.equal(
    storedNames(file),
    Array.from({ length: 100 }, (_, i) => `s${i + 1}`),
  );
});

test('with no commit waiting, a batch is one transaction and the writer never yields', ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const priority = new WritePriority(new SharedArrayBuffer(8));
  const writer = new StoreWriter(() => undefined, { priority });
  try {
    writer.write([{ dbPath: file, spans: [spans(100).take()], spanCount: 100, events: [] }]);
  } finally {
    writer.close();
  }
  assert.is(priority.yields(), 0);
  assert.is(storedNames(file).length, 100);
});

test.run();
