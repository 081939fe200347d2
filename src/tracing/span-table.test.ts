import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { MIGRATIONS } from '../store/migrations.js';
import { LATEST_SCHEMA_VERSION, openLocalStore, schemaVersion } from '../store/index.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { isSecretKey, REDACTED } from './redact.js';
import { keyedHash } from './redaction-hash.js';
import { spanRowOf } from './span-encoding.js';
import type { SpanRow } from './span-record.js';
import { StoreWriter } from './store-writer.js';
import { TraceStore } from './trace-store.js';

const test = suite<{ dir: string }>('tracing: the spans table (one index, old rows migrated)', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-span-table-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** The schema version of the step that rebuilt the spans table (found by what it creates: the merger may renumber). */
const REBUILT_AT = MIGRATIONS.findIndex((m) => m.sql.includes('idx_spans_trace_span')) + 1;

const trace = 'a'.repeat(32);
const other = 'b'.repeat(32);

test('spans written before the rebuild keep every column, their rowids and their read order', async ({ dir }) => {
  assert.ok(REBUILT_AT > 1, 'the rebuild step exists');
  const file = path.join(dir, 'local.db');
  const old = openLocalStore(file, { targetVersion: REBUILT_AT - 1 });
  const insert = old.prepare(
    'INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events, project_id, synced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // Two spans at the same instant: only the rowid orders them, and a child stored before its parent.
  insert.run(
    '0000000000000002',
    trace,
    '0000000000000001',
    'gen_ai.chat',
    '2026-01-01T00:00:00.000001Z',
    '2026-01-01T00:00:00.000003Z',
    'OK',
    '{"gen_ai.request.messages":"[{\\"role\\":\\"user\\"}]"}',
    '[]',
    'p1',
    1,
  );
  insert.run(
    '0000000000000001',
    trace,
    null,
    'agent.fx',
    '2026-01-01T00:00:00.000001Z',
    '2026-01-01T00:00:00.000004Z',
    'ERROR',
    '{"agent.input":"hi"}',
    '[{"name":"exception","timestamp":"2026-01-01T00:00:00.000002Z","attributes":{}}]',
    'p1',
    0,
  );
  insert.run('0000000000000003', other, null, 'chain.c', '2026-01-02T00:00:00.000000Z', null, 'UNSET', '{}', '[]', '', 0);
  const before = old.prepare('SELECT rowid, * FROM spans ORDER BY rowid').all();
  old.close();

  const db = openLocalStore(file);
  try {
    assert.is(schemaVersion(db), LATEST_SCHEMA_VERSION);
    // Every column the rows had, unchanged; the caller's trace id (v31) is NULL on rows written before it.
    const after = db.prepare('SELECT rowid, * FROM spans ORDER BY rowid').all() as Array<Record<string, unknown>>;
    assert.equal(
      after.map(({ caller_trace_id, ...row }) => row),
      before,
    );
    assert.ok(after.every((row) => row.caller_trace_id === null));
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'spans' ORDER BY name").pluck().all();
    // The trace index, the partial index of callers' trace ids (holding no row here), and that of root start times (v36).
    assert.equal(indexes, ['idx_spans_caller_trace', 'idx_spans_root_start', 'idx_spans_trace_span']);
    const listing = db.prepare('EXPLAIN QUERY PLAN SELECT trace_id FROM spans WHERE parent_span_id IS NULL AND start_time >= ?').all('2026') as Array<{
      detail: string;
    }>;
    assert.match(listing.map((p) => p.detail).join('\n'), /USING INDEX idx_spans_root_start/, 'a listing by time reads the roots index');
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT * FROM spans WHERE trace_id = ? ORDER BY start_time, rowid').all(trace) as Array<{ detail: string }>;
    assert.match(plan.map((p) => p.detail).join('\n'), /USING INDEX idx_spans_trace_span/);
  } finally {
    db.close();
  }
  const spans = await new TraceStore({ dbPath: file }).spans(trace);
  assert.equal(
    spans.map((s) => [s.name, s.status]),
    [
      ['agent.fx', 'ERROR'],
      ['gen_ai.chat', 'OK'],
    ],
    'the parent first at a tie, as before',
  );
  const listed = await new TraceStore({ dbPath: file }).listTraces({ lastHours: 24 * 365 * 20 });
  assert.equal(
    listed.map((t) => [t.trace_id, t.name, t.span_count, t.status]),
    [
      [other, 'chain.c', 1, 'UNSET'],
      [trace, 'agent.fx', 2, 'ERROR'],
    ],
  );
});

test('a span written again (same trace and span id) replaces its row; the same span id in another trace is its own row', ({ dir }) => {
  const db = openLocalStore(path.join(dir, 'local.db'));
  try {
    const write = db.prepare(
      "INSERT OR REPLACE INTO spans (span_id, trace_id, name, start_time, status) VALUES ('00000000000000aa', ?, ?, '2026-01-01T00:00:00.000000Z', ?)",
    );
    write.run(trace, 'first', 'UNSET');
    write.run(trace, 'second', 'OK');
    write.run(other, 'elsewhere', 'OK');
    assert.equal(db.prepare('SELECT trace_id, name, status FROM spans ORDER BY trace_id').all(), [
      { trace_id: trace, name: 'second', status: 'OK' },
      { trace_id: other, name: 'elsewhere', status: 'OK' },
    ]);
  } finally {
    db.close();
  }
});

test('the writer stores attributes as text, searchable and masked where needed', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const writer = new StoreWriter(() => undefined);
  const batch: SpanRow[] = [];
  batch.push(
    spanRowOf(
      '0000000000000001',
      trace,
      undefined,
      'agent.fx',
      1_767_225_600_000_000,
      1_767_225_600_000_001,
      SpanStatusCode.OK,
      { 'agent.input': 'Grüße, convert 250 EUR' },
      [],
      isSecretKey,
    ),
  );
  batch.push(
    spanRowOf(
      '0000000000000002',
      trace,
      '0000000000000001',
      'tool.t',
      1_767_225_600_000_000,
      1_767_225_600_000_001,
      SpanStatusCode.OK,
      { 'tool.args': 'use Bearer abcdefghijklmnop' },
      [],
      isSecretKey,
    ),
  );
  writer.write([{ dbPath: file, spans: batch, events: [] }]);
  await writer.close();
  const db = openLocalStore(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT span_id, typeof(attributes) AS type, attributes FROM spans ORDER BY span_id').all() as Array<{
      span_id: string;
      type: string;
      attributes: string;
    }>;
    assert.equal(
      rows.map((r) => r.type),
      ['text', 'text'],
    );
    assert.equal(JSON.parse(rows[0]!.attributes), { 'agent.input': 'Grüße, convert 250 EUR' });
    // Masked arguments keep the keyed hash of what they were (the store's own key), for replay (docs/adr/0010).
    const key = db.prepare("SELECT key FROM trace_keys WHERE name = 'redaction_hmac'").pluck().get() as Buffer;
    assert.is(key.length, 32);
    assert.equal(JSON.parse(rows[1]!.attributes), {
      'tool.args': `use Bearer ${REDACTED}`,
      'agentkit.redaction.hmac': JSON.stringify({ 'tool.args': keyedHash(key)('use Bearer abcdefghijklmnop') }),
    });
  } finally {
    db.close();
  }
  assert.equal(
    (await new TraceStore({ dbPath: file }).search('grüße')).map((t) => t.trace_id),
    [trace],
    'non-ASCII text matches as text',
  );
  assert.equal(
    (await new TraceStore({ dbPath: file }).search('250 eur')).map((t) => t.trace_id),
    [trace],
  );
});

test('a batch of many spans is written whole, eight rows a statement and the rest one by one; a repeated span keeps its last row', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const writer = new StoreWriter(() => undefined);
  const batch: SpanRow[] = [];
  for (let id = 1; id <= 18; id++)
    batch.push(
      spanRowOf(
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
      ),
    );
  // The same span again, ended later, inside the third statement's window.
  batch.push(
    spanRowOf(
      (3).toString(16).padStart(16, '0'),
      trace,
      undefined,
      's3-again',
      1_767_225_600_000_003,
      1_767_225_600_000_009,
      SpanStatusCode.ERROR,
      { id: 3 },
      [],
      isSecretKey,
    ),
  );
  writer.write([{ dbPath: file, spans: batch, events: [] }]);
  await writer.close();
  const db = openLocalStore(file, { readonly: true });
  try {
    const names = db.prepare('SELECT name FROM spans ORDER BY span_id').pluck().all();
    assert.equal(
      names,
      Array.from({ length: 18 }, (_, i) => (i === 2 ? 's3-again' : `s${i + 1}`)),
    );
    assert.is(db.prepare("SELECT status FROM spans WHERE name = 's3-again'").pluck().get(), 'ERROR');
  } finally {
    db.close();
  }
});

test.run();
