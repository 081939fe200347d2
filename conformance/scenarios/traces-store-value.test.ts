/**
 * Traces on the store named by one value (issue 38), on both engines: an agent writes its trace to a SQLite file or a
 * `postgres://...?schema=` URL, and `traces list`, `traces export`, `replay show`, `export-trace` and `traces prune`
 * read it through `--db`. On Postgres: the trace names its writing process (`--process`), a retried batch is
 * harmless, no `.agentkit` file appears, and a password in the URL appears in no output.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, checkpointerFor, flushTraces, shutdownTracing, TraceStore } from '../../src/index.js';
import { processIdentity } from '../../src/config/process-identity.js';
import { PgSpanSink } from '../../src/tracing/pg-span-sink.js';
import { parseStoreValue } from '../../src/config/store-value.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { conformance, runTsFile, type Backend, type ScenarioContext } from '../harness/index.js';

const area = conformance('traces: a store named by one value');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PASSWORD = 'Tr4ceS3cretPw';

function storeValueOf(backend: Backend): string {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind === 'postgres') {
    const url = new URL(backend.url);
    url.password = PASSWORD;
    url.searchParams.set('schema', backend.schema);
    return url.toString();
  }
  throw new Error('no store');
}

async function runAgent(store: string): Promise<string> {
  const agent = new Agent({ name: 'fleet_agent', systemPrompt: 'Answer.', llm: new ScriptedModel([{ text: 'Hello from the fleet.' }]), traceDb: store });
  const result = await agent.run('hi');
  await flushTraces();
  if (result.trace_id === null) throw new Error('the run was not traced');
  return result.trace_id;
}

function noPassword(t: ScenarioContext, ...texts: string[]): void {
  for (const text of texts) assert.not.ok(text.includes(PASSWORD), `the password shows in: ${text}`);
  void t;
}

area.scenario('traces list, traces export, replay show and export-trace read the store --db names', { surfaces: ['cli'], timeoutMs: 40_000 }, async (t) => {
  const store = storeValueOf(t.backend);
  const traceId = await runAgent(store);
  const listed = await t.cli(['traces', 'list', '--db', store, '--json']);
  assert.is(listed.code, 0, listed.stderr);
  const items = (JSON.parse(listed.stdout) as { items: Array<{ trace_id: string; name: string; span_count: number }> }).items;
  assert.equal(
    items.map((item) => [item.trace_id, item.name]),
    [[traceId, 'agent.fleet_agent']],
  );
  const exported = await t.cli(['traces', 'export', traceId, '--db', store]);
  assert.is(exported.code, 0, exported.stderr);
  const trace = JSON.parse(exported.stdout) as { trace_id: string; spans: Array<{ name: string; attributes: Record<string, unknown> }> };
  assert.is(trace.trace_id, traceId);
  assert.ok(trace.spans.length >= 2, 'the agent span and its model span');
  const shown = await t.cli(['replay', 'show', traceId, '--db', store]);
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, traceId);
  const file = await t.cli(['export-trace', '--trace-id', traceId, '--output', 'out.json', '--db', store]);
  assert.is(file.code, 0, file.stderr);
  assert.is((JSON.parse(await readFile(path.join(t.cwd, 'out.json'), 'utf8')) as { trace: { trace_id: string } }).trace.trace_id, traceId);
  const missing = await t.cli(['traces', 'export', 'ffffffffffffffffffffffffffffffff', '--db', store]);
  assert.is(missing.code, 1);
  const label = t.backend.kind === 'postgres' ? store.replace(PASSWORD, '[REDACTED]') : store;
  assert.is(missing.stderr, `error: trace id 'ffffffffffffffffffffffffffffffff' not found in ${label}\n`);
  noPassword(t, listed.stdout, listed.stderr, exported.stderr, shown.stdout, shown.stderr, file.stdout, file.stderr, missing.stderr);
  if (t.backend.kind === 'postgres') assert.not.ok(existsSync(path.join(t.cwd, '.agentkit')), 'a URL store creates no .agentkit folder');
});

area.scenario('export-trace of a durable run lists its checkpoints, with their state on request, from either engine', { surfaces: ['cli'] }, async (t) => {
  const store = storeValueOf(t.backend);
  const checkpointer = checkpointerFor(store);
  t.defer(() => checkpointer.close());
  const agent = new Agent({
    name: 'durable_agent',
    systemPrompt: 'Answer.',
    llm: new ScriptedModel([{ text: 'Done.' }]),
    traceDb: store,
    checkpointer,
  });
  const result = await agent.run('hi', { executionId: 'exec-export-both' });
  await flushTraces();
  const rows = await checkpointer.list('exec-export-both');
  assert.ok(rows.length >= 2, `the run wrote its checkpoints (${rows.length})`);

  const plain = await t.cli(['export-trace', result.trace_id!, '--output', 'plain.json', '--db', store]);
  assert.is(plain.code, 0, plain.stderr);
  const doc = JSON.parse(await readFile(path.join(t.cwd, 'plain.json'), 'utf8')) as {
    trace: { execution_id: string; durable: boolean };
    checkpoints: Array<{ checkpoint_id: string; node_id: string; step_type: string | null; state_snapshot?: unknown }>;
  };
  assert.equal([doc.trace.execution_id, doc.trace.durable], ['exec-export-both', true]);
  assert.equal(
    doc.checkpoints.map((c) => [c.checkpoint_id, c.node_id, c.step_type]),
    rows.map((c) => [c.checkpoint_id, c.node_id, c.step_type]),
  );
  assert.ok(
    doc.checkpoints.every((c) => c.state_snapshot === undefined),
    'no state without --include-checkpoint-state',
  );

  const full = await t.cli(['export-trace', result.trace_id!, '--output', 'full.json', '--include-checkpoint-state', '--db', store]);
  assert.is(full.code, 0, full.stderr);
  const withState = JSON.parse(await readFile(path.join(t.cwd, 'full.json'), 'utf8')) as { checkpoints: Array<{ state_snapshot?: unknown }> };
  assert.equal(
    withState.checkpoints.map((c) => c.state_snapshot),
    rows.map((c) => c.state_snapshot),
  );
  noPassword(t, plain.stdout, plain.stderr, full.stdout, full.stderr);
});

area.scenario(
  'Postgres: a script that runs an agent and simply ends leaves its trace; with the store down it still ends, warned',
  { backends: ['postgres'], timeoutMs: 60_000 },
  async (t) => {
    if (t.backend.kind !== 'postgres') return;
    const example = path.join(root, 'examples/replay/ui-desk.ts');
    const store = storeValueOf(t.backend);
    // No flush, no shutdown: the process ends when its event loop empties, as a user's script does.
    const ran = await runTsFile([example], { cwd: t.cwd, env: { ...process.env, AGENTKIT_LOCAL_DB: store } });
    assert.is(ran.code, 0, ran.stderr);
    const traceId = /trace_id: (\S+)/.exec(ran.stdout)![1]!;
    const reader = new TraceStore({ dbPath: store });
    try {
      assert.ok((await reader.spans(traceId)).length >= 3, 'the agent, model and tool spans are in the store');
    } finally {
      await reader.close();
    }
    noPassword(t, ran.stdout, ran.stderr);

    const down = await runTsFile([example], { cwd: t.cwd, env: { ...process.env, AGENTKIT_LOCAL_DB: 'postgres://postgres@127.0.0.1:9/test?schema=nowhere' } });
    assert.is(down.code, 0, down.stderr);
    assert.match(down.stdout, /^Order 42 is delivered\.\n/);
    assert.is((down.stderr.match(/cannot be written \(connect ECONNREFUSED/g) ?? []).length, 1, down.stderr);
  },
);

area.scenario('traces prune --older-than deletes old runs on both engines', { surfaces: ['cli'] }, async (t) => {
  const store = storeValueOf(t.backend);
  const traceId = await runAgent(store);
  const kept = await t.cli(['traces', 'prune', '--older-than', '1h', '--db', store, '--json']);
  assert.equal([kept.code, kept.stdout, kept.stderr], [0, '{"pruned":0}\n', '']);
  const bad = await t.cli(['traces', 'prune', '--older-than', '3 weeks', '--db', store]);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, 'invalid value for --older-than: expected a duration such as 30d, 12h, 90m or 45s (got "3 weeks")');
  const pruned = await t.cli(['traces', 'prune', '--older-than', '0s', '--db', store]);
  assert.equal([pruned.code, pruned.stdout], [0, 'pruned 1 trace\n']);
  const reader = new TraceStore({ dbPath: store });
  try {
    assert.equal(await reader.listTraces(), []);
    await reader.getTrace(traceId).then(
      () => assert.unreachable('pruned trace still found'),
      (error: Error & { code?: string }) => assert.is(error.code, 'trace_not_found'),
    );
  } finally {
    await reader.close();
  }
});

area.scenario(
  'Postgres: each span names its process; --process filters; a retried batch is harmless',
  { backends: ['postgres'], surfaces: ['cli'] },
  async (t) => {
    if (t.backend.kind !== 'postgres') return;
    const store = storeValueOf(t.backend);
    const traceId = await runAgent(store);
    const me = processIdentity();
    const mine = await t.cli(['traces', 'list', '--db', store, '--process', me.instanceId, '--json']);
    assert.equal(
      (JSON.parse(mine.stdout) as { items: Array<{ trace_id: string }> }).items.map((i) => i.trace_id),
      [traceId],
    );
    const other = await t.cli(['traces', 'list', '--db', store, '--process', 'replica-that-never-ran', '--json']);
    assert.equal((JSON.parse(other.stdout) as { count: number }).count, 0);
    const sqliteFilter = await t.cli(['traces', 'list', '--process', 'x']);
    assert.is(sqliteFilter.code, 2, 'a SQLite store has one writer: the filter is refused');

    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      const rows = await client.query(
        `SELECT p.host, p.pid, p.instance_id, count(*)::int AS n FROM "${t.backend.schema}".spans s JOIN "${t.backend.schema}".processes p USING (process_id) GROUP BY 1, 2, 3`,
      );
      assert.equal(
        rows.rows.map((r) => [r.host, r.pid, r.instance_id]),
        [[me.host, me.pid, me.instanceId]],
      );
      const before = rows.rows[0].n as number;
      // The same span again (a retry after a lost reply), in a batch with a new one: the stored span keeps one row,
      // the new one is added (the plain insert fails on the duplicate; the batch is written again skipping it).
      const sink = new PgSpanSink(parseStoreValue(store) as Extract<ReturnType<typeof parseStoreValue>, { engine: 'postgres' }>, () => undefined);
      const row = {
        span_id: 'aaaaaaaaaaaaaaaa',
        trace_id: traceId,
        parent_span_id: null,
        name: 'retried\u0000name',
        start_time: '2026-01-01T00:00:00.000001Z',
        end_time: '2026-01-01T00:00:00.000002Z',
        status: 'OK' as const,
        attributes: '{"k":"v\\u0000"}',
        events: '[]',
      };
      sink.enqueue([row]);
      await sink.flush();
      sink.enqueue([row, { ...row, span_id: 'bbbbbbbbbbbbbbbb', parent_span_id: row.span_id }]);
      await sink.close();
      const after = await client.query(`SELECT count(*)::int AS n FROM "${t.backend.schema}".spans`);
      assert.is(after.rows[0].n, before + 2);
      const stored = await client.query(`SELECT span_id, name, attributes FROM "${t.backend.schema}".spans WHERE trace_id = $1 ORDER BY span_id`, [traceId]);
      assert.equal(
        stored.rows.filter((r) => r.span_id.startsWith('aaaa') || r.span_id.startsWith('bbbb')).map((r) => [r.span_id, r.name, r.attributes]),
        [
          ['aaaaaaaaaaaaaaaa', 'retried\uE0000name', '{"k":"v\\u0000"}'],
          ['bbbbbbbbbbbbbbbb', 'retried\uE0000name', '{"k":"v\\u0000"}'],
        ],
      );
      assert.is(sink.outageWarnings, 0, 'a duplicate is not an outage');
    } finally {
      await client.end();
    }
    const reader = new TraceStore({ dbPath: store });
    try {
      const spans = await reader.spans(traceId);
      const retried = spans.find((s) => s.span_id === 'aaaaaaaaaaaaaaaa')!;
      assert.is(retried.name, 'retried\u0000name', 'NUL survives the round trip');
      assert.equal(retried.attributes, { k: 'v\u0000' });
    } finally {
      await reader.close();
    }
  },
);

area.scenario('Postgres down: a run still answers; one warning, counted once', { backends: ['postgres'] }, async () => {
  const warnings: string[] = [];
  const sink = new PgSpanSink(
    parseStoreValue(`postgres://postgres:${PASSWORD}@127.0.0.1:1/none?schema=down`) as Extract<ReturnType<typeof parseStoreValue>, { engine: 'postgres' }>,
    (m) => warnings.push(m),
    {
      maxQueued: 3,
      retryMs: 50,
    },
  );
  const row = (id: string) => ({
    span_id: id,
    trace_id: 't'.repeat(32),
    parent_span_id: null,
    name: 'x',
    start_time: '2026-01-01T00:00:00.000001Z',
    end_time: null,
    status: 'UNSET' as const,
    attributes: '{}',
    events: '[]',
  });
  const started = performance.now();
  sink.enqueue([row('a'), row('b')]);
  sink.enqueue([row('c'), row('d'), row('e')]);
  assert.ok(performance.now() - started < 50, 'enqueue never waits for the database');
  await new Promise((resolve) => setTimeout(resolve, 300));
  await sink.flush();
  assert.is(sink.outageWarnings, 1, 'one warning for the outage, however many retries');
  assert.is(warnings.length, 1);
  assert.is(sink.dropped, 2, 'beyond the bound, spans are dropped and counted');
  assert.is(sink.pending, 3);
  assert.not.ok(warnings[0]!.includes(PASSWORD), warnings[0]);
  await sink.close().catch(() => undefined);
});

area.scenario('spans beyond the bound while a backlog is written are dropped with a count, never silently', { backends: ['postgres'] }, async (t) => {
  if (t.backend.kind !== 'postgres') return;
  const warnings: string[] = [];
  const sink = new PgSpanSink(
    parseStoreValue(storeValueOf(t.backend)) as Extract<ReturnType<typeof parseStoreValue>, { engine: 'postgres' }>,
    (m) => warnings.push(m),
    {
      maxQueued: 3,
    },
  );
  const row = (id: string) => ({
    span_id: id.repeat(16),
    trace_id: 'b'.repeat(32),
    parent_span_id: null,
    name: 'x',
    start_time: '2026-01-01T00:00:00.000001Z',
    end_time: null,
    status: 'UNSET' as const,
    attributes: '{}',
    events: '[]',
  });
  // The queue holds 3; the writer has not written any when 2 more arrive: they are dropped.
  sink.enqueue([row('1'), row('2'), row('3')]);
  sink.enqueue([row('4'), row('5')]);
  await sink.close();
  assert.is(sink.dropped, 2);
  assert.equal(
    warnings.map((w) => w.replace(/store \S+/, 'store S')),
    ['agentkit tracing: 2 more span(s) were dropped for the Postgres store S while its backlog was written'],
  );
  assert.not.ok(warnings[0]!.includes(PASSWORD), warnings[0]);
  const reader = new TraceStore({ dbPath: storeValueOf(t.backend) });
  t.defer(() => reader.close());
  assert.is((await reader.spans('b'.repeat(32))).length, 3, 'the 3 queued spans are written');
});

area.scenario(
  'a full queue keeps root spans: each takes the place of the newest waiting child span, counted as dropped',
  { backends: ['postgres'] },
  async (t) => {
    if (t.backend.kind !== 'postgres') return;
    const warnings: string[] = [];
    const sink = new PgSpanSink(
      parseStoreValue(storeValueOf(t.backend)) as Extract<ReturnType<typeof parseStoreValue>, { engine: 'postgres' }>,
      (m) => warnings.push(m),
      { maxQueued: 3 },
    );
    const span = (trace: string, id: string, parent: string | null) => ({
      span_id: id.repeat(16),
      trace_id: trace.repeat(32),
      parent_span_id: parent === null ? null : parent.repeat(16),
      name: parent === null ? 'root' : 'child',
      start_time: '2026-01-01T00:00:00.000001Z',
      end_time: '2026-01-01T00:00:00.000002Z',
      status: 'OK' as const,
      attributes: '{}',
      events: '[]',
    });
    // Three children of two runs fill the queue before anything is written; then both runs end (their roots), and one
    // more child arrives.
    sink.enqueue([span('c', '1', '8'), span('c', '2', '8'), span('d', '3', '9')]);
    sink.enqueue([span('c', '8', null), span('d', '9', null)]);
    sink.enqueue([span('d', '4', '9')]);
    assert.is(sink.pending, 3, 'the bound holds');
    await sink.close();
    assert.is(sink.dropped, 3, 'two children gave their places to the roots, the last child found the queue full of them');
    assert.equal(
      warnings.map((w) => w.replace(/store \S+/, 'store S')),
      ['agentkit tracing: 3 more span(s) were dropped for the Postgres store S while its backlog was written'],
    );
    const reader = new TraceStore({ dbPath: storeValueOf(t.backend) });
    t.defer(() => reader.close());
    assert.equal((await reader.spans('c'.repeat(32))).map((s) => s.name).sort(), ['child', 'root'], 'run c keeps its first child and its root');
    assert.equal(
      (await reader.spans('d'.repeat(32))).map((s) => s.name),
      ['root'],
      'run d is listed: its root was kept',
    );
  },
);

area.scenario('a run, then shutdownTracing() at once: its spans are written before the Postgres sink closes', { backends: ['postgres'] }, async (t) => {
  const store = storeValueOf(t.backend);
  const agent = new Agent({ name: 'stop_at_once', systemPrompt: 'Answer.', llm: new ScriptedModel([{ text: 'Done.' }]), traceDb: store });
  const traceId = (await agent.run('hi')).trace_id!;
  // No flushTraces(): a server stopping on SIGTERM right after its last answer shuts tracing down directly.
  await shutdownTracing();
  const reader = new TraceStore({ dbPath: store });
  t.defer(() => reader.close());
  assert.equal((await reader.getTrace(traceId)).spans.length, 2);
});

area.run();
