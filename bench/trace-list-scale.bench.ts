/**
 * `traces list --last-hours 24` over a large store (issue 38): 1,000,000 spans (100,000 traces of 10 spans, start
 * times spread over 30 days, 3% of the traces in the last 24 hours), on SQLite and on Postgres. Prints the p50 and p95
 * of `TraceStore.listTraces({ lastHours: 24 })` over BENCH_REPEATS calls (default 7) on each engine, and the ratio of
 * Postgres to SQLite. Target: p50 at most 500 ms on each engine.
 *
 * The rows are written straight into each engine's spans table in the stored format (a bench seeds; it does not
 * measure writing here: trace-store-cost does).
 *
 *   node scripts/bench.mjs trace-list-scale      BENCH_TRACES (default 100000), BENCH_REPEATS (default 7)
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { TraceStore } from '../src/tracing/trace-store.js';
import { openLocalStore } from '../src/store/open.js';
import { openStore } from '../src/store/store-handle.js';
import { insertSpanRows } from '../src/tracing/pg-span-sink.js';
import { migrateTraceSchema } from '../src/tracing/pg-schema.js';
import type { SpanRow } from '../src/tracing/span-record.js';
import { withScratchSchema } from './lib/pg-scratch.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 100_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);
const SPANS_PER_TRACE = 10;
const DAY = 86_400_000;

const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** The spans of trace number `i` (3% of traces in the last 24 h, the rest over the 29 days before). */
function traceRows(i: number, now: number): SpanRow[] {
  const recent = i % 100 < 3;
  const start = recent ? now - Math.random() * DAY * 0.99 : now - DAY - Math.random() * 29 * DAY;
  const traceId = randomBytes(16).toString('hex');
  const rootId = randomBytes(8).toString('hex');
  const rows: SpanRow[] = [];
  for (let s = 0; s < SPANS_PER_TRACE; s++) {
    const at = start + s * 40;
    rows.push({
      trace_id: traceId,
      span_id: s === 0 ? rootId : randomBytes(8).toString('hex'),
      parent_span_id: s === 0 ? null : rootId,
      name: s === 0 ? 'agent.support' : s % 2 ? 'llm.chat_completion' : 'tool.lookup_order',
      start_time: iso(at),
      end_time: iso(at + (s === 0 ? 400 : 30)),
      status: 'OK',
      attributes: JSON.stringify({ 'agent.name': 'support', 'gen_ai.usage.input_tokens': 120 + s, 'tool.args': `{"order_id":"${i}"}` }),
      events: '[]',
      caller_trace_id: null,
    });
  }
  return rows;
}

function* batches(now: number, size: number): Generator<SpanRow[]> {
  let batch: SpanRow[] = [];
  for (let i = 0; i < TRACES; i++) {
    batch.push(...traceRows(i, now));
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function timeList(value: string): Promise<{ p50: number; p95: number; traces: number }> {
  const store = new TraceStore({ dbPath: value });
  try {
    const times: number[] = [];
    let traces = 0;
    await store.listTraces({ lastHours: 24 });
    for (let r = 0; r < REPEATS; r++) {
      const started = performance.now();
      traces = (await store.listTraces({ lastHours: 24 })).length;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50: times[times.length >> 1]!, p95: times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]!, traces };
  } finally {
    await store.close();
  }
}

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-'));
const now = Date.now();
const file = path.join(dir, 'local.db');
let seeded = performance.now();
const db = openLocalStore(file);
const insert = db.prepare(`INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events)
  VALUES (@span_id, @trace_id, @parent_span_id, @name, @start_time, @end_time, @status, @attributes, @events)`);
const many = db.transaction((rows: SpanRow[]) => {
  for (const row of rows) insert.run(row);
});
for (const batch of batches(now, 10_000)) many(batch);
db.close();
console.log(`SQLite: ${TRACES * SPANS_PER_TRACE} spans seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
const sqlite = await timeList(file);
console.log(`SQLite   traces list --last-hours 24: p50 ${sqlite.p50.toFixed(0)} ms, p95 ${sqlite.p95.toFixed(0)} ms (${sqlite.traces} traces listed)`);

const outcome = await withScratchSchema(async (url, schema) => {
  const value = new URL(url);
  value.searchParams.set('schema', schema);
  const store = openStore(value.toString(), { min: 0, max: 2 });
  try {
    seeded = performance.now();
    await migrateTraceSchema(store.pool(), schema);
    for (const batch of batches(now, 5000)) await insertSpanRows(store.pool(), schema, { project: '', processId: null, maxAttributesChars: 1 << 20 }, batch);
    await store.pool().query(`ANALYZE "${schema}".spans`);
    console.log(`Postgres: ${TRACES * SPANS_PER_TRACE} spans seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  } finally {
    await store.close();
  }
  const pg = await timeList(value.toString());
  console.log(`Postgres traces list --last-hours 24: p50 ${pg.p50.toFixed(0)} ms, p95 ${pg.p95.toFixed(0)} ms (${pg.traces} traces listed)`);
  console.log(`ratio Postgres / SQLite (p50): ${(pg.p50 / sqlite.p50).toFixed(2)}x`);
  console.log(`target: p50 at most 500 ms on each engine: SQLite ${sqlite.p50 <= 500 ? 'met' : 'NOT met'}, Postgres ${pg.p50 <= 500 ? 'met' : 'NOT met'}`);
  return undefined;
});
if (typeof outcome === 'string') console.log(`Postgres ${outcome}: skipped`);
await rm(dir, { recursive: true, force: true });
