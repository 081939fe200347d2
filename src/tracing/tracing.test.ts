import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { chainSpanRow } from '../../test-support/span-rows.js';
import { suite } from '../../test-support/uvu.js';
import { ConfigError, NotFoundError } from '../errors.js';
import { openLocalStore } from '../store/open.js';
import { REDACTED, maskSecrets, redactAttributes } from './redact.js';
import { StoreWriter, type StoreBatch } from './store-writer.js';
import { agentkitTracer, ensureTracing, flushTraces, shutdownTracing } from './setup.js';
import { withTraceDestination } from './spans.js';
import { BatchedTraceWriter } from './writer.js';
import { hrTimeToIso } from './span-row.js';
import { inStartOrder, TraceStore } from './trace-store.js';
import type { Span } from '../types.js';

const test = suite<{ dir: string }>('tracing: processor, writer, store', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-tracing-'));
  ensureTracing();
});
test.afterEach(async (ctx) => {
  await flushTraces();
  await rm(ctx.dir, { recursive: true, force: true });
});

function withEnv<T>(name: string, value: string, fn: () => T): T {
  const saved = process.env[name];
  process.env[name] = value;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}

test('a trace goes to the store AGENTKIT_LOCAL_DB names when its root starts, children follow the root', async ({ dir }) => {
  const a = path.join(dir, 'a.db');
  const b = path.join(dir, 'b.db');
  const tracer = trace.getTracer('agentkit');
  const root = withEnv('AGENTKIT_LOCAL_DB', a, () => tracer.startSpan('chain.first'));
  const child = withEnv('AGENTKIT_LOCAL_DB', b, () => tracer.startSpan('chain.step', {}, trace.setSpan(context.active(), root)));
  const other = withEnv('AGENTKIT_LOCAL_DB', b, () => tracer.startSpan('chain.second'));
  const routed = withTraceDestination(b, () => withEnv('AGENTKIT_LOCAL_DB', a, () => tracer.startSpan('chain.routed')));
  child.end();
  root.end();
  other.setStatus({ code: SpanStatusCode.ERROR });
  other.end();
  routed.end();
  const inA = await new TraceStore({ dbPath: a }).listTraces();
  const inB = await new TraceStore({ dbPath: b }).listTraces();
  assert.equal(
    inA.map((s) => [s.name, s.span_count, s.status]),
    [['chain.first', 2, 'UNSET']],
  );
  assert.equal(inB.map((s) => [s.name, s.span_count, s.status]).sort(), [
    ['chain.routed', 1, 'UNSET'],
    ['chain.second', 1, 'ERROR'],
  ]);
});

test("spans still waiting at process exit are written (the timer is unref'd, the exit hook flushes)", async ({ dir }) => {
  const file = path.join(dir, 'exit.db');
  const script = path.join(dir, 'child.mts');
  await writeFile(
    script,
    `import { agentkitTracer } from ${JSON.stringify(path.resolve('src/tracing/setup.ts'))};
     const span = agentkitTracer().startSpan('chain.exiting');
     span.end();`,
  );
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--conditions=agentkit-source', '--import', import.meta.resolve('tsx'), script], {
      cwd: path.resolve('.'),
      env: { ...process.env, AGENTKIT_LOCAL_DB: file },
      stdio: 'inherit',
    });
    child.on('close', resolve);
  });
  assert.is(code, 0, 'the process exits on its own: no timer keeps it alive');
  assert.equal(
    (await new TraceStore({ dbPath: file }).listTraces()).map((s) => s.name),
    ['chain.exiting'],
  );
});

test('the batched writer stores a span and a guardrail event, a credential masked', async ({ dir }) => {
  const ended: ReadableSpan[] = [];
  const provider = new TracerProvider({
    spanProcessors: [{ onStart: () => undefined, onEnd: (s) => void ended.push(s), forceFlush: async () => undefined, shutdown: async () => undefined }],
  });
  const tracer = provider.getTracer('test');
  const root = tracer.startSpan('agent.same', { attributes: { 'agent.input': 'hi', authorization: 'Bearer abcdefghijklmnop', count: 3, tags: ['a', 'b'] } });
  root.addEvent('note', { detail: 'x' });
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  const rows: unknown[] = [];
  {
    const file = path.join(dir, 'spans.db');
    const writer = new BatchedTraceWriter();
    writer.enqueueSpan(file, ended[0]!);
    writer.enqueueGuardrailEvent(file, {
      event_id: 'e1',
      trace_id: 't',
      span_id: 's',
      agent_name: 'a',
      guardrail_name: 'g',
      position: 'input',
      outcome: 'warned',
      blocking: false,
      message: 'm',
      created_at: '2026-01-01T00:00:00.000000Z',
    });
    await writer.close();
    const db = openLocalStore(file, { readonly: true });
    rows.push([
      db.prepare('SELECT span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events FROM spans').all(),
      db.prepare('SELECT * FROM guardrail_events').all(),
    ]);
    db.close();
  }
  assert.is((rows[0] as [unknown[], unknown[]])[1].length, 1, 'the guardrail event is stored');
  const [spans] = rows[0] as [Array<{ attributes: string; status: string }>];
  assert.equal(JSON.parse(spans[0]!.attributes), { 'agent.input': 'hi', authorization: REDACTED, count: 3, tags: ['a', 'b'] });
  assert.is(spans[0]!.status, 'OK');
});

test('the built package writes spans and flushes at exit', async ({ dir }) => {
  const file = path.join(dir, 'dist.db');
  const script = path.join(dir, 'dist-child.mjs');
  const dist = path.resolve('dist/src');
  await writeFile(
    script,
    `import { Agent } from ${JSON.stringify(path.join(dist, 'index.js'))};
     import { ScriptedModel } from ${JSON.stringify(path.join(dist, 'testing/index.js'))};
     const result = await new Agent({ name: 'built', llm: new ScriptedModel(['ok']), traceDb: ${JSON.stringify(file)} }).run('hi');
     process.stdout.write(result.trace_id);`,
  );
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [script], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.on('close', (exit) => resolve({ code: exit, out }));
  });
  assert.is(code, 0);
  assert.equal(
    (await new TraceStore({ dbPath: file }).listTraces()).map((s) => [s.trace_id, s.name, s.span_count]),
    [[out, 'agent.built', 2]],
  );
});

test('a kept connection that fails (its store deleted or replaced under it) is replaced once, not reported', async ({ dir }) => {
  const warnings: string[] = [];
  const writer = new StoreWriter((m) => warnings.push(m));
  const file = path.join(dir, 'kept.db');
  const batch = (id: number): StoreBatch => ({ dbPath: file, spans: [chainSpanRow(id, {})], events: [] });
  writer.write([batch(1)]);
  // Break the kept connection the way a vanished file does: its next write throws.
  (writer as unknown as { connections: Map<string, { db: { close(): void } }> }).connections.get(file)!.db.close();
  writer.write([batch(2)]);
  await writer.close();
  assert.equal(warnings, []);
  const db = openLocalStore(file, { readonly: true });
  assert.equal(
    (db.prepare('SELECT name FROM spans ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name),
    ['chain.s1', 'chain.s2'],
  );
  db.close();
});

test('shutdownTracing, then tracing again in the same process', async ({ dir }) => {
  const file = path.join(dir, 'again.db');
  withTraceDestination(file, () => agentkitTracer().startSpan('chain.before').end());
  await shutdownTracing();
  withTraceDestination(file, () => agentkitTracer().startSpan('chain.after').end());
  await flushTraces();
  assert.equal((await new TraceStore({ dbPath: file }).listTraces()).map((s) => s.name).sort(), ['chain.after', 'chain.before']);
});

test('an unwritable store is a warning, never an exception', async ({ dir }) => {
  const blocker = path.join(dir, 'not-a-dir');
  await writeFile(blocker, 'x');
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  try {
    withTraceDestination(path.join(blocker, 'local.db'), () => trace.getTracer('agentkit').startSpan('chain.lost').end());
    await flushTraces();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  assert.is(warnings.length, 1);
  assert.match(warnings[0]!, /agentkit tracing: could not write 1 span\(s\) and 0 guardrail event\(s\) to .*not-a-dir\/local\.db/);
});

test('secrets are redacted by key and masked inside text', () => {
  const cleaned = redactAttributes({
    'http.request.header.authorization': 'Bearer abcdefghijklmnop',
    api_key: 'anything',
    'llm.x-api-key': 'k',
    'gen_ai.usage.input_tokens': 12,
    'agent.tokens_used': 30,
    'agent.input': 'my key is sk-abcdefghijklmnopqrstuvwx, header Bearer zyxwvutsrqponmlk',
    tags: ['ok', 'sk-abcdefghijklmnopqrstuvwx'],
  });
  assert.equal(cleaned, {
    'http.request.header.authorization': REDACTED,
    api_key: REDACTED,
    'llm.x-api-key': REDACTED,
    'gen_ai.usage.input_tokens': 12,
    'agent.tokens_used': 30,
    'agent.input': `my key is ${REDACTED}, header Bearer ${REDACTED}`,
    tags: ['ok', REDACTED],
  });
  assert.is(maskSecrets('gsk_ABCDEFGHIJKLMNOPQRST and sk-ant-api03-abcdefghijklmnop'), `${REDACTED} and ${REDACTED}`);
  assert.is(maskSecrets('a skeleton key, Bearer token'), 'a skeleton key, Bearer token', 'ordinary words are left alone');
});

test('TraceStore: a real time window, search, unknown ids, and ordering of equal start times', async ({ dir }) => {
  const file = path.join(dir, 'store.db');
  const db = openLocalStore(file);
  const insert = db.prepare(
    'INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const at = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString().replace('Z', '000Z');
  insert.run('s1', 't-new', null, 'agent.new', at(1), at(0.9), 'OK', '{"agent.input":"refund 100%"}');
  insert.run('s2', 't-new', 's1', 'tool.refund', at(0.95), at(0.94), 'ERROR', '{}');
  insert.run('s3', 't-old', null, 'agent.old', at(30), at(29.9), 'OK', '{"agent.input":"hello_world"}');
  db.close();
  const store = new TraceStore({ dbPath: file });
  assert.equal(
    (await store.listTraces()).map((s) => [s.trace_id, s.status, s.span_count]),
    [['t-new', 'ERROR', 2]],
  );
  assert.equal(
    (await store.listTraces({ lastHours: 48 })).map((s) => s.trace_id),
    ['t-new', 't-old'],
  );
  assert.equal(
    (await store.search('100%')).map((s) => s.trace_id),
    ['t-new'],
    '% is matched literally',
  );
  assert.equal(
    (await store.search('hello_')).map((s) => s.trace_id),
    ['t-old'],
  );
  assert.equal(
    (await store.search('HELLO')).map((s) => s.trace_id),
    ['t-old'],
    'case-insensitive',
  );
  assert.equal(await store.search('nothing-like-this'), []);
  const full = await store.getTrace('t-new');
  assert.equal([full.name, full.status, full.metadata.span_count], ['agent.new', 'ERROR', 2]);
  const missing = await store.getTrace('nope').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(missing, NotFoundError);
  assert.is((missing as NotFoundError).code, 'trace_not_found');
  const invalid = await store.listTraces({ lastHours: -1 }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(invalid, ConfigError);
  assert.equal(await new TraceStore({ dbPath: path.join(dir, 'absent.db') }).listTraces(), []);

  const span = (id: string, parent: string | null, start: string): Span => ({
    span_id: id,
    trace_id: 't',
    parent_span_id: parent,
    name: id,
    start_time: start,
    end_time: start,
    status: 'OK',
    attributes: {},
    events: [],
  });
  const same = '2026-01-01T00:00:00.000000Z';
  assert.equal(
    inStartOrder([
      span('grandchild', 'child', same),
      span('child', 'root', same),
      span('root', null, same),
      span('later', 'root', '2026-01-01T00:00:00.000001Z'),
    ]).map((s) => s.span_id),
    ['root', 'child', 'grandchild', 'later'],
  );
  assert.equal(
    inStartOrder([span('inner', 'tool', same), span('outer-next', 'root', same), span('tool', 'root', '2025-12-31T23:59:59.999999Z')]).map((s) => s.span_id),
    ['tool', 'inner', 'outer-next'],
    'unrelated spans keep their stored order',
  );
  assert.equal(
    inStartOrder([span('a', 'b', same), span('b', 'a', same)]).map((s) => s.span_id),
    ['a', 'b'],
    'a parent loop does not hang',
  );
});

test('timestamps keep microseconds', () => {
  assert.is(hrTimeToIso([1767225600, 123456789]), '2026-01-01T00:00:00.123456Z');
  assert.is(hrTimeToIso([1767225600, 0]), '2026-01-01T00:00:00.000000Z');
});

test.run();
