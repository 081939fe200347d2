/**
 * A store another connection keeps locked loses no spans: the writer (inline or on its thread) holds the rows and
 * writes them, in order, once the lock is gone; only the bound on held spans, or closing while still locked, drops
 * any, and each drop is counted in a warning.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import type Database from 'better-sqlite3';
import { chainSpanRow } from '../../test-support/span-rows.js';
import { suite } from '../../test-support/uvu.js';
import { openLocalStore } from '../store/open.js';
import { StoreWriter, type GuardrailEventRow, type StoreBatch } from './store-writer.js';
import { BatchedTraceWriter } from './writer.js';

const test = suite<{ dir: string; file: string; lock: Database.Database | undefined }>('tracing: a locked store', {
  state: { dir: '', file: '', lock: undefined },
});

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-locked-'));
  ctx.file = path.join(ctx.dir, 'local.db');
  // Another connection (as another process would) holds the write lock until the test commits.
  ctx.lock = openLocalStore(ctx.file);
  ctx.lock.exec('BEGIN IMMEDIATE');
});
test.afterEach(async (ctx) => {
  if (ctx.lock?.inTransaction) ctx.lock.exec('COMMIT');
  ctx.lock?.close();
  await rm(ctx.dir, { recursive: true, force: true });
});

/** A batch of spans `ids` for `file`, named chain.s<id>, started in id order. */
function batch(file: string, ids: number[], events: GuardrailEventRow[] = []): StoreBatch {
  return { dbPath: file, spans: ids.map((id) => chainSpanRow(id)), events };
}

function event(id: string): GuardrailEventRow {
  return {
    event_id: id,
    trace_id: null,
    span_id: null,
    agent_name: 'weather',
    guardrail_name: 'no_forbidden',
    position: 'input',
    outcome: 'blocked',
    blocking: true,
    message: 'no',
    created_at: '2026-11-27T00:00:00.000Z',
  };
}

function stored(file: string): { spans: string[]; events: string[] } {
  const db = openLocalStore(file, { readonly: true });
  try {
    return {
      spans: (db.prepare('SELECT name FROM spans ORDER BY start_time').all() as Array<{ name: string }>).map((r) => r.name),
      events: (db.prepare('SELECT event_id FROM guardrail_events ORDER BY event_id').all() as Array<{ event_id: string }>).map((r) => r.event_id),
    };
  } finally {
    db.close();
  }
}

/**
 * A retry while `lock` still holds the store keeps the rows held; after the lock commits, a retry writes them
 * (`spans` is then the store's content) and the writer is closed. Returns how long the first (locked) retry took, in ms.
 */
async function retryUntilUnlocked(writer: StoreWriter, file: string, lock: Database.Database, spans: string[]): Promise<number> {
  const started = Date.now();
  writer.retryHeld();
  const waited = Date.now() - started;
  assert.is(writer.holding, true);
  lock.exec('COMMIT');
  writer.retryHeld();
  assert.is(writer.holding, false);
  assert.equal(stored(file).spans, spans);
  await writer.close();
  return waited;
}

test('inline: rows for a locked store are held, then written before the next rows once it is free', async ({ file, lock }) => {
  const warnings: string[] = [];
  const writer = new StoreWriter((m) => warnings.push(m), { busyTimeoutMs: 20 });
  writer.write([batch(file, [1, 2], [event('e1')])]);
  assert.is(writer.holding, true);
  assert.equal(stored(file), { spans: [], events: [] });
  writer.write([batch(file, [3])]);
  assert.is(writer.holding, true, 'still locked: the new rows join the held ones');
  assert.is(warnings.length, 1, warnings.join('\n'));
  assert.match(
    warnings[0]!,
    new RegExp(
      `^agentkit tracing: ${escape(file)} is locked by another connection \\(database is locked\\); 2 span\\(s\\) and 1 guardrail event\\(s\\) held and written once it is free$`,
    ),
  );

  lock!.exec('COMMIT');
  writer.write([batch(file, [4])]);
  assert.is(writer.holding, false);
  assert.equal(stored(file), { spans: ['chain.s1', 'chain.s2', 'chain.s3', 'chain.s4'], events: ['e1'] });
  assert.is(warnings.length, 2);
  assert.match(warnings[1]!, /is writable again; the 3 span\(s\) and 1 guardrail event\(s\) held for it are written$/);
  await writer.close();
});

test('inline: held rows are tried again without new rows (retryHeld), and another store is not held up', async ({ dir, file, lock }) => {
  const warnings: string[] = [];
  const writer = new StoreWriter((m) => warnings.push(m), { busyTimeoutMs: 20 });
  const other = path.join(dir, 'other.db');
  writer.write([batch(file, [1]), batch(other, [2])]);
  assert.equal(stored(other).spans, ['chain.s2']);
  await retryUntilUnlocked(writer, file, lock!, ['chain.s1']);
});

test('inline (retryWaitMs 0): a retry that finds the store still locked returns without waiting for the lock', async ({ file, lock }) => {
  const writer = new StoreWriter(() => undefined, { busyTimeoutMs: 600, retryWaitMs: 0 });
  const first = Date.now();
  writer.write([batch(file, [1])]);
  assert.ok(Date.now() - first >= 500, 'a write waits for the lock as long as its busy timeout');
  const waited = await retryUntilUnlocked(writer, file, lock!, ['chain.s1']);
  assert.ok(waited < 300, `the retry waited ${waited} ms for the lock`);
});

test('held spans are bounded: past the bound the oldest are dropped and counted; events are kept', async ({ file, lock }) => {
  const warnings: string[] = [];
  const writer = new StoreWriter((m) => warnings.push(m), { busyTimeoutMs: 20, maxHeldSpans: 3 });
  writer.write([batch(file, [1, 2], [event('e1')])]);
  writer.write([batch(file, [3, 4, 5], [event('e2')])]);
  assert.match(
    warnings.join('\n'),
    new RegExp(`agentkit tracing: dropped 2 span\\(s\\) for ${escape(file)}: more than 3 span\\(s\\) held while stores stay locked`),
  );
  lock!.exec('COMMIT');
  writer.retryHeld();
  assert.equal(stored(file), { spans: ['chain.s3', 'chain.s4', 'chain.s5'], events: ['e1', 'e2'] });
  await writer.close();
});

test('closing while the store is still locked reports what is dropped', async ({ file }) => {
  const warnings: string[] = [];
  const writer = new StoreWriter((m) => warnings.push(m), { busyTimeoutMs: 20 });
  writer.write([batch(file, [1, 2], [event('e1')])]);
  await writer.close();
  assert.is(writer.holding, false);
  assert.match(
    warnings.at(-1)!,
    new RegExp(`^agentkit tracing: dropped 2 span\\(s\\) and 1 guardrail event\\(s\\) for ${escape(file)}: it was still locked when the writer closed$`),
  );
});

test('the batched writer: its timer writes the held rows once the store is free, with no new spans', async ({ file, lock }) => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  const writer = new BatchedTraceWriter({ busyTimeoutMs: 20, flushIntervalMs: 30 });
  try {
    writer.enqueueGuardrailEvent(file, event('e9'));
    writer.flush();
    assert.equal(stored(file).events, []);
    lock!.exec('COMMIT');
    for (let i = 0; i < 50 && stored(file).events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(stored(file).events, ['e9']);
  } finally {
    await writer.close();
    process.off('warning', onWarning);
  }
  assert.match(warnings.join('\n'), /is locked by another connection/);
});

test('the batched writer: past maxQueued spans waiting for a locked store, new ones are dropped and counted; the rest land', async ({ file, lock }) => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  const ended: ReadableSpan[] = [];
  const provider = new TracerProvider({
    spanProcessors: [{ onStart: () => undefined, onEnd: (s) => void ended.push(s), forceFlush: async () => undefined, shutdown: async () => undefined }],
  });
  for (let i = 0; i < 101; i++) provider.getTracer('test').startSpan(`chain.s${i}`).end();
  const writer = new BatchedTraceWriter({ busyTimeoutMs: 20, maxQueued: 40, maxBatch: 10 });
  try {
    for (const span of ended.slice(0, 100)) writer.enqueueSpan(file, span);
    assert.is(writer.dropped, 60, 'forty wait (held for the store); the other sixty are dropped');
    lock!.exec('COMMIT');
    await writer.flushAsync();
    assert.is(stored(file).spans.length, 40);
    writer.enqueueSpan(file, ended[100]!);
    await writer.flushAsync();
    assert.is(stored(file).spans.length, 41);
    assert.is(writer.dropped, 60);
  } finally {
    await writer.close();
    // process.emitWarning delivers on a later tick: let the last ones arrive before listening stops.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
  }
  const text = warnings.join('\n');
  assert.match(text, /more than 40 spans waiting to be written \(a store locked, or the writer behind\); dropping new spans until half of them are written/);
  assert.match(text, /spans are written again; 60 span\(s\) were dropped while too many waited/);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test.run();
