/**
 * `agentkit traces list`, `traces export` and `export-trace` through the CLI, on the store an agent run wrote: the
 * local.db file, or a Postgres schema named by `AGENTKIT_LOCAL_DB` (issue 38).
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Type from 'typebox';
import pg from 'pg';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { Agent, flushTraces, tool, TraceStore, VERSION } from '../../src/index.js';
import { openLocalStore, utcNow } from '../../src/store/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { validator } from '../../generated/schemas/resources.js';

const area = conformance('traces: CLI');

function dbOf(t: ScenarioContext): string {
  if (t.backend.kind !== 'sqlite') throw new Error('trace scenarios run on the local store');
  return t.backend.dbPath;
}

const lookup = tool({ name: 'lookup_order', registry: false, parameters: Type.Object({ id: Type.String() }), execute: ({ id }) => ({ id, total: 50 }) });

async function runAgent(t: ScenarioContext, executionId = 'exec-cli-1', traceDb = t.store!) {
  const agent = new Agent({
    name: 'support',
    systemPrompt: 'Help with orders.',
    llm: new ScriptedModel([
      { toolCalls: [{ name: 'lookup_order', arguments: { id: '42' } }], usage: { inputTokens: 30, outputTokens: 8 } },
      { text: 'Order 42 costs 50.', usage: { inputTokens: 44, outputTokens: 6 } },
    ]),
    tools: [lookup],
    traceDb,
  });
  return agent.run('What does order 42 cost?', { executionId });
}

/**
 * Insert finished one-span traces directly, each `hoursAgo` in the past, as another process would have written them,
 * into the variant's engine (its trace tables exist already: an agent run wrote to the store first). Their trace ids.
 */
async function insertOldTraces(t: ScenarioContext, traces: ReadonlyArray<{ hoursAgo: number; name: string }>): Promise<string[]> {
  const rows = traces.map(({ hoursAgo, name }) => ({
    spanId: randomBytes(8).toString('hex'),
    traceId: randomBytes(16).toString('hex'),
    name,
    start: new Date(Date.now() - hoursAgo * 3_600_000).toISOString().replace('Z', '000Z'),
  }));
  if (t.backend.kind === 'postgres') {
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      for (const r of rows)
        await client.query(
          `INSERT INTO "${t.backend.schema}".spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status) VALUES ($1, $2, NULL, $3, $4, $4, 'OK')`,
          [r.spanId, r.traceId, r.name, r.start],
        );
    } finally {
      await client.end();
    }
    return rows.map((r) => r.traceId);
  }
  const db = openLocalStore(dbOf(t));
  const insert = db.prepare("INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status) VALUES (?, ?, NULL, ?, ?, ?, 'OK')");
  for (const r of rows) insert.run(r.spanId, r.traceId, r.name, r.start, r.start);
  db.close();
  return rows.map((r) => r.traceId);
}

/** Whether the store holds trace tables yet: the local.db file exists, or the schema has its trace version table. */
async function storeCreated(t: ScenarioContext): Promise<boolean> {
  if (t.backend.kind !== 'postgres') return existsSync(dbOf(t));
  const client = new pg.Client({ connectionString: t.backend.url });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1', [t.backend.schema]);
    return (found.rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

area.scenario(
  'traces list: empty store, a table of the window, --last-hours, --json, no row cap',
  { rows: ['cli:traces list'], surfaces: ['cli'], storeEnv: true },
  async (t) => {
    const empty = await t.cli(['traces', 'list']);
    assert.equal(empty, { code: 0, stdout: 'No traces found.\n', stderr: '' });
    assert.not.ok(await storeCreated(t), 'listing does not create a store');

    const result = await runAgent(t);
    await flushTraces();
    const [old] = await insertOldTraces(t, [{ hoursAgo: 30, name: 'agent.old' }]);
    const listed = await t.cli(['traces', 'list']);
    assert.is(listed.code, 0, listed.stderr);
    const reader = new TraceStore({ dbPath: t.store! });
    t.defer(() => reader.close());
    const summary = (await reader.listTraces())[0]!;
    assert.is(
      listed.stdout,
      [
        `TRACE ID${' '.repeat(26)}NAME           STATUS  SPANS  TIME`,
        `${result.trace_id}  agent.support  OK          4  ${summary.start_time.slice(0, 19).replace('T', ' ')}`,
        '',
      ].join('\n'),
    );

    const wide = await t.cli(['traces', 'list', '--last-hours', '48', '--json']);
    const body = JSON.parse(wide.stdout) as { items: Array<{ trace_id: string; name: string; status: string; span_count: number }>; count: number };
    assert.is(body.count, 2);
    assert.equal(
      body.items.map((i) => [i.trace_id, i.name, i.status, i.span_count]),
      [
        [result.trace_id, 'agent.support', 'OK', 4],
        [old, 'agent.old', 'OK', 1],
      ],
    );

    await insertOldTraces(
      t,
      Array.from({ length: 150 }, (_, i) => ({ hoursAgo: 1 + i / 1000, name: `agent.bulk${i}` })),
    );
    const all = JSON.parse((await t.cli(['traces', 'list', '--json'])).stdout) as { count: number };
    assert.is(all.count, 151, 'every trace in the window, no row cap');

    const bad = await t.cli(['traces', 'list', '--last-hours', '0']);
    assert.equal(bad, {
      code: 2,
      stdout: '',
      stderr: 'error: --last-hours must be a positive number of hours, got 0; usage: agentkit traces list [options]\n',
    });
    const notNumber = await t.cli(['traces', 'list', '--last-hours', 'many']);
    assert.is(notNumber.code, 2);
    assert.match(notNumber.stderr, /--last-hours/);

    const binary = await t.bin(['traces', 'list', '--last-hours', '48', '--json']);
    assert.is(binary.code, 0, binary.stderr);
    assert.equal(
      JSON.parse(binary.stdout),
      JSON.parse((await t.cli(['traces', 'list', '--last-hours', '48', '--json'])).stdout),
      'the real binary reads the same store',
    );
  },
);

area.scenario(
  'traces export: the trace as JSON on stdout; json is the only format; unknown ids fail',
  { rows: ['cli:traces export'], surfaces: ['cli'], storeEnv: true },
  async (t) => {
    const result = await runAgent(t, 'exec-cli-1', t.store!);
    await flushTraces();
    const exported = await t.cli(['traces', 'export', result.trace_id!]);
    assert.is(exported.code, 0, exported.stderr);
    assert.is(exported.stderr, '');
    const trace = JSON.parse(exported.stdout);
    const reader = new TraceStore({ dbPath: t.store! });
    t.defer(() => reader.close());
    assert.equal(trace, await reader.getTrace(result.trace_id!));
    assert.ok(validator('Trace').Check(trace), 'matches the Trace contract');
    assert.equal(
      trace.spans.map((s: { name: string }) => s.name),
      ['agent.support', 'llm.chat_completion', 'tool.lookup_order', 'llm.chat_completion'],
    );
    assert.is(trace.spans[0].attributes['agent.output'], 'Order 42 costs 50.');

    const explicit = await t.cli(['traces', 'export', result.trace_id!, '--format', 'json']);
    assert.is(explicit.stdout, exported.stdout);
    const csv = await t.cli(['traces', 'export', result.trace_id!, '--format', 'csv']);
    assert.equal(csv, {
      code: 2,
      stdout: '',
      stderr: "error: unsupported format 'csv': the only format is json; usage: agentkit traces export <trace_id> [options]\n",
    });
    const unknown = await t.cli(['traces', 'export', 'feedfacefeedfacefeedfacefeedface']);
    assert.equal(unknown, { code: 1, stdout: '', stderr: `error: trace id 'feedfacefeedfacefeedfacefeedface' not found in ${reader.label}\n` });
    const missing = await t.cli(['traces', 'export']);
    assert.is(missing.code, 2);
  },
);

area.scenario(
  'export-trace: one self-contained file with spans, checkpoints and attachments, state and bytes on request',
  // SQLite only: it inserts attachments, a family that has no Postgres table yet (docs/adr/0017).
  { rows: ['cli:export-trace'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const result = await runAgent(t, 'exec-export-1');
    const db = openLocalStore(dbOf(t));
    const insertCheckpoint = db.prepare(
      `INSERT INTO checkpoints (id, checkpoint_id, chain_name, execution_id, node_id, node_index, status, state_snapshot, node_input, node_output, agent_path, created_at, step_type, run_status)
     VALUES (@id, @id, 'support', 'exec-export-1', @node, @index, 'completed', @state, @input, NULL, 'agent:support', @at, @step, @run)`,
    );
    insertCheckpoint.run({ id: 'cp-1', node: 'turn:0', index: 0, state: '{"messages":[],"turn":0}', input: null, at: utcNow(), step: 'llm_call', run: null });
    insertCheckpoint.run({
      id: 'cp-2',
      node: 'turn:0/tool:lookup_order',
      index: 1,
      state: '{"messages":[1],"turn":0}',
      input: '{"id":"42"}',
      at: utcNow(),
      step: 'tool_call',
      run: null,
    });
    insertCheckpoint.run({
      id: 'cp-3',
      node: 'run_end',
      index: 2,
      state: '{"run_status":"completed"}',
      input: null,
      at: utcNow(),
      step: 'run_end',
      run: 'completed',
    });
    const rootSpan = (await new TraceStore({ dbPath: dbOf(t) }).spans(result.trace_id!))[0]!;
    db.prepare(
      "INSERT INTO attachments (attachment_id, trace_id, span_id, media_type, size_bytes, data, metadata, created_at) VALUES ('att-1', ?, ?, 'image/png', 4, ?, '{\"name\":\"receipt.png\"}', ?)",
    ).run(result.trace_id, rootSpan.span_id, Buffer.from([137, 80, 78, 71]), utcNow());
    db.close();

    const run = await t.cli(['export-trace', '--trace-id', result.trace_id!]);
    const file = path.join(t.cwd, 'trace.json');
    assert.equal(run, { code: 0, stdout: `wrote ${file}\n`, stderr: '' });
    assert.is((await stat(file)).mode & 0o777, 0o600);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    assert.ok(validator('ExportTraceDocument').Check(doc), 'matches ExportTraceDocument');
    assert.is(doc.export_version, '1.0');
    assert.is(doc.sdk_version, VERSION);
    assert.equal(
      { ...doc.trace, started_at: '', duration_ms: 0 },
      {
        trace_id: result.trace_id,
        name: 'agent.support',
        status: 'OK',
        started_at: '',
        duration_ms: 0,
        total_tokens: 88,
        total_cost: null,
        workflow_type: 'agent',
        runner: 'support',
        execution_id: 'exec-export-1',
        durable: true,
      },
    );
    assert.equal(
      doc.spans.map((s: { name: string }) => s.name),
      ['agent.support', 'llm.chat_completion', 'tool.lookup_order', 'llm.chat_completion'],
    );
    const [root, llm, toolSpan] = doc.spans;
    assert.equal(root.input, { 'agent.input': 'What does order 42 cost?' });
    assert.equal(root.output, { 'agent.output': 'Order 42 costs 50.' });
    assert.equal(root.attributes['agent.tools'] === undefined, false, 'non-payload attributes stay in attributes');
    assert.equal(llm.input['gen_ai.request.messages'], [
      { role: 'system', content: 'Help with orders.' },
      { role: 'user', content: 'What does order 42 cost?' },
    ]);
    assert.equal([llm.model, llm.tokens], ['scripted-model', { input: 30, output: 8 }]);
    assert.equal([toolSpan.input, toolSpan.output], [{ 'tool.args': { id: '42' } }, { 'tool.result': { id: '42', total: 50 } }]);
    assert.equal(
      doc.checkpoints.map((c: { node_id: string; step: number; step_type: string | null }) => [c.node_id, c.step, c.step_type]),
      [
        ['turn:0', 0, 'llm_call'],
        ['turn:0/tool:lookup_order', 1, 'tool_call'],
        ['run_end', 2, 'run_end'],
      ],
    );
    assert.not.ok('state_snapshot' in doc.checkpoints[0], 'state blocks are off by default');
    assert.equal(doc.multimodal_attachments, [
      {
        attachment_id: 'att-1',
        span_id: rootSpan.span_id,
        media_type: 'image/png',
        size_bytes: 4,
        metadata: { name: 'receipt.png' },
        created_at: doc.multimodal_attachments[0].created_at,
        included: false,
        note: 'Attachment data excluded; export with --include-attachments to embed it.',
      },
    ]);

    const full = await t.cli(
      ['export-trace', '--trace-id', result.trace_id!, '--output', 'full.json', '--include-attachments', '--include-checkpoint-state', '--db', dbOf(t)],
      { env: { AGENTKIT_LOCAL_DB: path.join(t.cwd, 'elsewhere.db') } },
    );
    assert.is(full.code, 0, full.stderr);
    const fullDoc = JSON.parse(await readFile(path.join(t.cwd, 'full.json'), 'utf8'));
    assert.ok(validator('ExportTraceDocument').Check(fullDoc));
    assert.equal(fullDoc.checkpoints[1].state_snapshot, { messages: [1], turn: 0 });
    assert.equal(fullDoc.checkpoints[1].node_input, { id: '42' });
    assert.is(fullDoc.multimodal_attachments[0].included, true);
    assert.is(fullDoc.multimodal_attachments[0].attachment_data, Buffer.from([137, 80, 78, 71]).toString('base64'));

    const unknown = await t.cli(['export-trace', '--trace-id', 'feedfacefeedfacefeedfacefeedface', '--output', 'none.json']);
    assert.equal(unknown, { code: 1, stdout: '', stderr: `error: trace id 'feedfacefeedfacefeedfacefeedface' not found in ${dbOf(t)}\n` });
    assert.not.ok(existsSync(path.join(t.cwd, 'none.json')), 'nothing is written for an unknown trace');
    const noId = await t.cli(['export-trace']);
    assert.is(noId.code, 2);
    assert.match(noId.stderr, /--trace-id/);

    const binary = await t.bin(['export-trace', '--trace-id', result.trace_id!, '--output', 'bin.json']);
    assert.is(binary.code, 0, binary.stderr);
    const binDoc = JSON.parse(await readFile(path.join(t.cwd, 'bin.json'), 'utf8'));
    assert.equal({ ...binDoc, exported_at: '' }, { ...doc, exported_at: '' }, 'the real binary writes the same document');
  },
);

area.scenario(
  'export-trace on either engine: the trace and its spans from the store AGENTKIT_LOCAL_DB names, --db as the value',
  { rows: ['cli:export-trace'], surfaces: ['cli'], storeEnv: true },
  async (t) => {
    const result = await runAgent(t, 'exec-export-2');
    await flushTraces();
    const run = await t.cli(['export-trace', '--trace-id', result.trace_id!, '--output', 'either.json']);
    const file = path.join(t.cwd, 'either.json');
    assert.equal(run, { code: 0, stdout: `wrote ${file}\n`, stderr: '' });
    const doc = JSON.parse(await readFile(file, 'utf8'));
    assert.ok(validator('ExportTraceDocument').Check(doc), 'matches ExportTraceDocument');
    const reader = new TraceStore({ dbPath: t.store! });
    t.defer(() => reader.close());
    const stored = await reader.getTrace(result.trace_id!);
    assert.equal(
      doc.spans.map((s: { span_id: string; name: string; status: string }) => [s.span_id, s.name, s.status]),
      stored.spans.map((s) => [s.span_id, s.name, s.status]),
    );
    assert.equal([doc.trace.trace_id, doc.trace.name, doc.trace.total_tokens, doc.trace.execution_id], [result.trace_id, 'agent.support', 88, 'exec-export-2']);
    assert.equal(doc.spans[2].input, { 'tool.args': { id: '42' } });

    const viaFlag = await t.cli(['export-trace', '--trace-id', result.trace_id!, '--output', 'flag.json', '--db', t.store!], {
      env: { AGENTKIT_LOCAL_DB: path.join(t.cwd, 'elsewhere.db') },
    });
    assert.is(viaFlag.code, 0, viaFlag.stderr);
    const flagDoc = JSON.parse(await readFile(path.join(t.cwd, 'flag.json'), 'utf8'));
    assert.equal({ ...flagDoc, exported_at: '' }, { ...doc, exported_at: '' }, '--db names the same store');

    const unknown = await t.cli(['export-trace', '--trace-id', 'feedfacefeedfacefeedfacefeedface', '--output', 'none.json']);
    assert.equal(unknown, { code: 1, stdout: '', stderr: `error: trace id 'feedfacefeedfacefeedfacefeedface' not found in ${reader.label}\n` });
    assert.not.ok(existsSync(path.join(t.cwd, 'none.json')), 'nothing is written for an unknown trace');
  },
);

area.run();
