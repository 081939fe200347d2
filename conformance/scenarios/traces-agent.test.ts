/**
 * What an agent run leaves in its store (a local.db file or a Postgres schema): the spans, their names, parents, statuses and attributes; the root
 * span's reconstruction attributes (and an agent rebuilt from them); payloads off; no secret on any span; one process
 * writing many stores; spans other code creates; failures; OTLP export from a real child process.
 */
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import Type from 'typebox';
import pg from 'pg';
import { conformance, startFakeProvider, type ScenarioContext, runTsFile } from '../harness/index.js';
import {
  Agent,
  agentDefinitionFromAttributes,
  ensureTracing,
  LLMProviderError,
  OpenAICompatibleModel,
  tool,
  TraceStore,
  flushTraces,
  type Span,
} from '../../src/index.js';
import { FunctionModel, ScriptedModel } from '../../src/testing/index.js';
import { openLocalStore } from '../../src/store/index.js';
import { createTestSchema, dropTestSchema } from '../harness/postgres.js';

const area = conformance('traces: agent runs');

/** The variant's store as one value: the local.db file or the Postgres URL with its schema. */
function dbOf(t: ScenarioContext): string {
  if (t.store === undefined) throw new Error('trace scenarios need a store');
  return t.store;
}

/**
 * Run `sql` (on the `spans` table, `?` placeholders) directly against the variant's engine, no reader in between: as
 * written for SQLite, or on Postgres with the table schema-qualified and numbered placeholders. The rows it returns.
 */
async function spansQuery(t: ScenarioContext, sql: string, params: unknown[]): Promise<unknown[]> {
  if (t.backend.kind === 'postgres') {
    let n = 0;
    const text = sql.replace(/\bspans\b/, `"${t.backend.schema}".spans`).replace(/\?/g, () => `$${++n}`);
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }
  const db = openLocalStore(dbOf(t));
  try {
    const statement = db.prepare(sql);
    if (statement.reader) return statement.all(...params);
    statement.run(...params);
    return [];
  } finally {
    db.close();
  }
}

/** Every stored span row as JSON text, as the engine holds it (no reader in between). */
async function rawSpans(t: ScenarioContext): Promise<string> {
  if (t.backend.kind === 'postgres') {
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      return JSON.stringify((await client.query(`SELECT * FROM "${t.backend.schema}".spans`)).rows);
    } finally {
      await client.end();
    }
  }
  const db = openLocalStore(dbOf(t), { readonly: true });
  try {
    return JSON.stringify(db.prepare('SELECT * FROM spans').all());
  } finally {
    db.close();
  }
}

function byName(spans: Span[], name: string): Span[] {
  return spans.filter((s) => s.name === name);
}

async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

/** The tools of the traced agent; registered globally so the agent can be rebuilt from its trace. */
const convert = tool({
  name: 'convert_currency',
  description: 'Convert an amount between currencies',
  parameters: Type.Object({ amount: Type.Number(), from: Type.String(), to: Type.String() }),
  replayClass: 'read_only',
  execute: ({ amount, from, to }) => ({ amount: from === 'EUR' && to === 'USD' ? amount * 2 : amount, currency: to }),
});
const book = tool({
  name: 'book_flight',
  description: 'Book a flight',
  parameters: Type.Object({ to: Type.String(), budget: Type.Number() }),
  replayClass: 'side_effecting',
  execute: ({ to, budget }) => `booked ${to} under ${budget}`,
});

function travelScript() {
  return new ScriptedModel([
    { toolCalls: [{ name: 'convert_currency', arguments: { amount: 500, from: 'EUR', to: 'USD' } }], usage: { inputTokens: 50, outputTokens: 20 } },
    { text: 'Booking now.', toolCalls: [{ name: 'book_flight', arguments: { to: 'Lisbon', budget: 550 } }], usage: { inputTokens: 80, outputTokens: 25 } },
    { text: 'Booked Lisbon for under $550.', usage: { inputTokens: 120, outputTokens: 10 } },
  ]);
}

function travelAgent(llm = travelScript(), traceDb?: string) {
  return new Agent({
    name: 'travel',
    systemPrompt: ({ context }) => `You book trips for ${(context as { user: string }).user}.`,
    llm,
    tools: [convert, book],
    config: { maxIterations: 5, temperature: 0.1 },
    traceDb,
  });
}

area.scenario('an agent run with two tool calls leaves the spans, names and attributes the spec names', {}, async (t) => {
  const agent = travelAgent(undefined, dbOf(t));
  const result = await agent.run('Book Lisbon for 500 EUR', { context: { user: 'Ada' }, executionId: 'exec-travel-1' });
  const stored = await new TraceStore({ dbPath: dbOf(t) }).getTrace(result.trace_id!);
  const spans = stored.spans;
  assert.equal(
    spans.map((s) => s.name),
    ['agent.travel', 'llm.chat_completion', 'tool.convert_currency', 'llm.chat_completion', 'tool.book_flight', 'llm.chat_completion'],
  );
  const [root, ...children] = spans;
  assert.is(root!.parent_span_id, null);
  assert.ok(
    children.every((s) => s.parent_span_id === root!.span_id),
    'every step is a child of the root',
  );
  assert.ok(spans.every((s) => s.trace_id === result.trace_id && s.status === 'OK' && s.end_time !== null));
  assert.equal({ name: stored.name, status: stored.status }, { name: 'agent.travel', status: 'OK' });

  const a = root!.attributes;
  assert.is(a['agent.name'], 'travel');
  assert.is(a['agentkit.runner.type'], 'agent');
  assert.is(a['agent.execution_id'], 'exec-travel-1');
  assert.is(a['agent.input'], 'Book Lisbon for 500 EUR');
  assert.is(a['agent.output'], 'Booked Lisbon for under $550.');
  assert.is(a['agent.system_prompt'], 'You book trips for Ada.');
  assert.is(a['agent.tokens_used'], 305);
  assert.is(typeof a['agent.latency_ms'], 'number');
  assert.is(a['agent.llm.provider'], 'scripted');
  assert.is(a['agent.llm.model'], 'scripted-model');
  assert.equal(JSON.parse(a['agent.llm.config'] as string), { provider: 'scripted', model: 'scripted-model' });
  assert.equal(JSON.parse(a['agent.config'] as string), {
    max_iterations: 5,
    tool_choice: null,
    temperature: 0.1,
    max_tokens: null,
    top_p: null,
    seed: null,
    stop: null,
    parallel_tool_calls: null,
  });
  assert.equal(JSON.parse(a['agent.tools'] as string), [convert.toDict(), book.toDict()]);
  assert.equal(JSON.parse(a['agent.guardrails'] as string), []);

  const llm = byName(spans, 'llm.chat_completion');
  assert.equal(
    llm.map((s) => [
      s.attributes['gen_ai.system'],
      s.attributes['gen_ai.request.model'],
      s.attributes['gen_ai.usage.input_tokens'],
      s.attributes['gen_ai.usage.output_tokens'],
      s.attributes['agentkit.llm.turn'],
    ]),
    [
      ['scripted', 'scripted-model', 50, 20, 0],
      ['scripted', 'scripted-model', 80, 25, 1],
      ['scripted', 'scripted-model', 120, 10, 2],
    ],
  );
  assert.is(llm[0]!.attributes['gen_ai.request.temperature'], 0.1);
  assert.equal(llm[0]!.attributes['gen_ai.request.tools'], ['convert_currency', 'book_flight']);
  assert.equal(JSON.parse(llm[0]!.attributes['gen_ai.request.messages'] as string), [
    { role: 'system', content: 'You book trips for Ada.' },
    { role: 'user', content: 'Book Lisbon for 500 EUR' },
  ]);
  assert.equal(JSON.parse(llm[1]!.attributes['gen_ai.response.tool_calls'] as string), [
    { id: 'call_2', name: 'book_flight', arguments: { to: 'Lisbon', budget: 550 } },
  ]);
  assert.is(llm[2]!.attributes['gen_ai.response.content'], 'Booked Lisbon for under $550.');
  assert.equal(llm[2]!.attributes['gen_ai.response.finish_reasons'], ['stop']);

  const [conversion] = byName(spans, 'tool.convert_currency');
  assert.equal(
    Object.fromEntries(
      ['tool.name', 'agentkit.tool.name', 'agentkit.tool.replay_class', 'tool.call_id', 'tool.origin', 'tool.status', 'tool.args', 'tool.result'].map((k) => [
        k,
        conversion!.attributes[k],
      ]),
    ),
    {
      'tool.name': 'convert_currency',
      'agentkit.tool.name': 'convert_currency',
      'agentkit.tool.replay_class': 'read_only',
      'tool.call_id': 'call_1',
      'tool.origin': 'function',
      'tool.status': 'ok',
      'tool.args': '{"amount":500,"from":"EUR","to":"USD"}',
      'tool.result': '{"amount":1000,"currency":"USD"}',
    },
  );
  assert.is(byName(spans, 'tool.book_flight')[0]!.attributes['agentkit.tool.replay_class'], 'side_effecting');
});

area.scenario('the agent definition rebuilt from the root span equals the original, and runs the same', {}, async (t) => {
  const original = travelAgent(undefined, dbOf(t));
  const first = await original.run('Book Lisbon for 500 EUR', { context: { user: 'Ada' } });
  const root = (await new TraceStore({ dbPath: dbOf(t) }).spans(first.trace_id!))[0]!;
  const definition = agentDefinitionFromAttributes(root.attributes, root.name);
  assert.equal(definition, original.toDefinition('You book trips for Ada.'));

  const rebuilt = Agent.fromDefinition(definition, { llm: travelScript() });
  assert.equal(rebuilt.toDefinition(), definition, 'rebuilt definition equals the recorded one');
  assert.is(rebuilt.tools[0], convert, 'tools are rebound by name through the registry');
  assert.is(rebuilt.tools[1], book);
  const again = await rebuilt.run(root.attributes['agent.input'] as string, { traceDb: dbOf(t) });
  assert.is(again.output, first.output);
  assert.equal(again.tool_calls, first.tool_calls);

  // A real provider's configuration rebuilds the model itself; the key comes from the environment, never the trace.
  const server = await startFakeProvider(() => ({
    json: {
      model: 'gpt-4o-mini',
      choices: [{ message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    },
  }));
  t.defer(() => server.close());
  const live = new Agent({
    name: 'hosted',
    systemPrompt: 'Be brief.',
    llm: new OpenAICompatibleModel({ model: 'gpt-4o-mini', apiKey: 'sk-original-0123456789abcdef', baseUrl: `${server.url}/v1`, maxRetries: 1 }),
    tools: [convert],
    traceDb: dbOf(t),
  });
  const hosted = await live.run('hi');
  const hostedRoot = (await new TraceStore({ dbPath: dbOf(t) }).spans(hosted.trace_id!))[0]!;
  const fromTrace = Agent.fromDefinition(agentDefinitionFromAttributes(hostedRoot.attributes), {
    secrets: { env: { OPENAI_API_KEY: 'sk-from-env-0123456789abcdef' } },
  });
  assert.equal(fromTrace.toDefinition(), live.toDefinition());
  await fromTrace.run('hi', { trace: false });
  assert.is(server.requests[1]!.raw, server.requests[0]!.raw, 'the rebuilt agent sends the same request');
  assert.is(server.requests[1]!.headers.authorization, 'Bearer sk-from-env-0123456789abcdef');

  assert.throws(
    () => agentDefinitionFromAttributes({ 'agent.name': 'old', 'agent.input': 'x' }),
    /has no agent.config, agent.tools, agent.guardrails, agent.llm.config: this trace was not recorded with reconstruction attributes/,
  );
  assert.throws(
    () => Agent.fromDefinition({ ...definition, tools: [{ ...convert.toDict(), name: 'never_registered' }] }, { llm: travelScript() }),
    /tool 'never_registered' is not registered/,
  );
  assert.throws(() => Agent.fromDefinition(definition), /cannot rebuild the model of agent 'travel': cannot build a 'scripted' model/);
});

area.scenario('AGENTKIT_TRACE_PAYLOADS=0 records no prompt, messages, responses, tool args or results', {}, async (t) => {
  const result = await withEnv({ AGENTKIT_TRACE_PAYLOADS: '0' }, () =>
    travelAgent(undefined, dbOf(t)).run('Book Lisbon for 500 EUR', { context: { user: 'Ada' } }),
  );
  const spans = await new TraceStore({ dbPath: dbOf(t) }).spans(result.trace_id!);
  const keys = new Set(spans.flatMap((s) => Object.keys(s.attributes)));
  for (const payload of [
    'agent.system_prompt',
    'gen_ai.request.messages',
    'gen_ai.response.content',
    'gen_ai.response.tool_calls',
    'tool.args',
    'tool.result',
  ]) {
    assert.not.ok(keys.has(payload), `${payload} must not be recorded`);
  }
  const all = JSON.stringify(spans);
  assert.not.match(all, 'You book trips for Ada.');
  for (const kept of ['agent.input', 'agent.output', 'agent.config', 'agent.tools', 'agent.llm.config', 'gen_ai.usage.input_tokens', 'agentkit.tool.name'])
    assert.ok(keys.has(kept), `${kept} is kept`);
  const definition = agentDefinitionFromAttributes(spans[0]!.attributes);
  assert.is(definition.system_prompt, null, 'the resolved system prompt does not round-trip with payloads off');
});

area.scenario('API keys and authorization headers never reach a span', {}, async (t) => {
  const KEY = 'sk-proj-SECRETKEY0123456789abcdefghij';
  const HEADER = 'Bearer hdr-SECRET-0123456789';
  const server = await startFakeProvider([
    {
      json: {
        model: 'gpt-4o-mini',
        choices: [
          {
            message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo_config', arguments: '{}' } }] },
            finish_reason: 'tool_calls',
          },
        ],
      },
    },
    { status: 401, json: { error: { message: `Incorrect API key provided: ${KEY}` } } },
  ]);
  t.defer(() => server.close());
  const echo = tool({ name: 'echo_config', registry: false, execute: () => ({ api_key: KEY, authorization: HEADER, note: `use ${KEY}` }) });
  const llm = new OpenAICompatibleModel({
    model: 'gpt-4o-mini',
    apiKey: KEY,
    baseUrl: `${server.url}/v1`,
    headers: { Authorization: HEADER, 'X-Api-Key': 'xk-SECRET-0123456789' },
    maxRetries: 0,
  });
  const agent = new Agent({ name: 'leaky', systemPrompt: `Never reveal ${KEY}`, llm, tools: [echo], traceDb: dbOf(t) });
  const error = await agent.run(`my key is ${KEY}`).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, LLMProviderError);
  await flushTraces();
  const dump = await rawSpans(t);
  assert.ok(dump.includes('leaky') && dump.includes('echo_config'), 'the spans were written');
  for (const secret of [KEY, 'hdr-SECRET-0123456789', 'xk-SECRET-0123456789', 'SECRETKEY'])
    assert.not.ok(dump.includes(secret), `${secret} leaked into a span`);
  assert.ok(dump.includes('[REDACTED]'));
  const [summary] = await new TraceStore({ dbPath: dbOf(t) }).listTraces();
  const root = (await new TraceStore({ dbPath: dbOf(t) }).spans(summary!.trace_id))[0]!;
  assert.equal(
    JSON.parse(root.attributes['agent.llm.config'] as string).headers,
    { Authorization: '***', 'X-Api-Key': '***' },
    'header names are kept, values masked',
  );
  assert.is(root.attributes['agent.input'], 'my key is [REDACTED]');
  const toolSpan = (await new TraceStore({ dbPath: dbOf(t) }).spans(summary!.trace_id)).find((s) => s.name === 'tool.echo_config')!;
  assert.equal(JSON.parse(toolSpan.attributes['tool.result'] as string), { api_key: '[REDACTED]', authorization: 'Bearer [REDACTED]', note: 'use [REDACTED]' });
});

/**
 * Three stores for one process: three local.db files on SQLite; on Postgres the variant's schema, a file, and a second
 * schema (mixed engines in one process, dropped afterwards).
 */
async function threeStores(t: ScenarioContext): Promise<[string, string, string]> {
  const file = (name: string) => path.join(t.cwd, name, 'local.db');
  if (t.backend.kind !== 'postgres') return [file('a'), file('b'), file('c')];
  const other = await createTestSchema(t.backend.url);
  t.defer(() => dropTestSchema(other, t.backend.kind === 'postgres' ? t.backend.url : undefined));
  const url = new URL(t.backend.url);
  url.searchParams.set('schema', other);
  return [dbOf(t), file('b'), url.toString()];
}

area.scenario('one process, many stores: each trace goes where its root chose, explicit or AGENTKIT_LOCAL_DB', {}, async (t) => {
  const [a, b, c] = await threeStores(t);
  const [ra, rb] = await Promise.all([
    travelAgent(undefined, a).run('to A', { context: { user: 'A' } }),
    travelAgent(undefined, b).run('to B', { context: { user: 'B' } }),
  ]);
  const rc = await withEnv({ AGENTKIT_LOCAL_DB: c }, () => travelAgent().run('to C', { context: { user: 'C' } }));
  const listed = async (store: string) => {
    const reader = new TraceStore({ dbPath: store });
    t.defer(() => reader.close());
    return (await reader.listTraces()).map((s) => s.trace_id);
  };
  assert.equal(await listed(a), [ra.trace_id]);
  assert.equal(await listed(b), [rb.trace_id]);
  assert.equal(await listed(c), [rc.trace_id]);
  assert.is((await new TraceStore({ dbPath: a }).spans(ra.trace_id!)).length, 6);
});

area.scenario('spans other code makes with trace.getTracer("agentkit") are recorded, with agents nested under them', {}, async (t) => {
  ensureTracing();
  const file = dbOf(t);
  const agent = travelAgent();
  const traceId = await withEnv({ AGENTKIT_LOCAL_DB: file }, () =>
    trace.getTracer('agentkit').startActiveSpan('chain.trip', async (span) => {
      span.setAttribute('chain.execution_id', 'chain-exec-1');
      await agent.run('Book Lisbon', { context: { user: 'Ada' } });
      span.end();
      return span.spanContext().traceId;
    }),
  );
  const stored = await new TraceStore({ dbPath: file }).getTrace(traceId);
  assert.is(stored.name, 'chain.trip');
  assert.is(stored.status, 'UNSET', 'a span nobody gave a status stays UNSET');
  const chain = stored.spans[0]!;
  const agentRoot = stored.spans.find((s) => s.name === 'agent.travel')!;
  assert.is(agentRoot.parent_span_id, chain.span_id);
  assert.is(stored.spans.length, 7);
});

area.scenario('a failing run: the failing step and the root are ERROR, with the exception recorded', {}, async (t) => {
  const llm = new ScriptedModel([{ toolCalls: [{ name: 'convert_currency', arguments: { amount: 1, from: 'EUR', to: 'USD' } }] }]);
  const error = await travelAgent(llm, dbOf(t))
    .run('x', { context: { user: 'A' } })
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.ok(error instanceof Error);
  const [summary] = await new TraceStore({ dbPath: dbOf(t) }).listTraces();
  assert.equal([summary!.name, summary!.status, summary!.span_count], ['agent.travel', 'ERROR', 4]);
  const spans = await new TraceStore({ dbPath: dbOf(t) }).spans(summary!.trace_id);
  assert.equal(
    spans.map((s) => `${s.name}:${s.status}`),
    ['agent.travel:ERROR', 'llm.chat_completion:OK', 'tool.convert_currency:OK', 'llm.chat_completion:ERROR'],
  );
  const failed = spans[3]!;
  assert.is(failed.events[0]!.name, 'exception');
  assert.match(String(failed.events[0]!.attributes['exception.message']), /ScriptedModel: call 2 but the script has 1 turn/);
});

area.scenario('a nested agent (an agent used as a tool) nests in the parent trace and its store', {}, async (t) => {
  const inner = new Agent({ name: 'researcher', llm: new ScriptedModel(['Lisbon is sunny.']) });
  const ask = tool({
    name: 'ask_researcher',
    registry: false,
    parameters: Type.Object({ q: Type.String() }),
    execute: async ({ q }) => (await inner.run(q)).output,
  });
  const outer = new Agent({
    name: 'planner',
    llm: new ScriptedModel([{ toolCalls: [{ name: 'ask_researcher', arguments: { q: 'weather?' } }] }, 'Go.']),
    tools: [ask],
    traceDb: dbOf(t),
  });
  const result = await outer.run('plan');
  const spans = await new TraceStore({ dbPath: dbOf(t) }).spans(result.trace_id!);
  assert.equal(
    spans.map((s) => s.name),
    ['agent.planner', 'llm.chat_completion', 'tool.ask_researcher', 'agent.researcher', 'llm.chat_completion', 'llm.chat_completion'],
  );
  assert.is(spans[3]!.parent_span_id, spans[2]!.span_id);
  assert.equal((await new TraceStore({ dbPath: dbOf(t) }).listTraces()).length, 1);
});

area.scenario('tracing off: no spans, no trace id', {}, async (t) => {
  const result = await travelAgent(undefined, dbOf(t)).run('x', { context: { user: 'A' }, trace: false });
  assert.is(result.trace_id, null);
  assert.equal(await new TraceStore({ dbPath: dbOf(t) }).listTraces(), []);
});

area.scenario('OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set (a real child process, a local collector)', { timeoutMs: 30_000 }, async (t) => {
  const collector = await startFakeProvider(() => ({ json: {} }));
  t.defer(() => collector.close());
  const script = path.join(t.cwd, 'otlp-child.mts');
  const src = path.resolve('src');
  await writeFile(
    script,
    `import { Agent, shutdownTracing } from ${JSON.stringify(path.join(src, 'index.ts'))};
     import { ScriptedModel } from ${JSON.stringify(path.join(src, 'testing/index.ts'))};
     const agent = new Agent({ name: 'exported', systemPrompt: 'x', llm: new ScriptedModel(['done', 'noted']) });
     const result = await agent.run('hello');
     await agent.run('my key is sk-proj-OTLPSECRET0123456789abcdef');
     await shutdownTracing();
     process.stdout.write(result.trace_id ?? '');`,
  );
  const { code, stdout, stderr } = await runTsFile([script], {
    cwd: t.cwd,
    env: {
      ...process.env,
      AGENTKIT_LOCAL_DB: dbOf(t),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=collector-SECRET-123',
    },
  });
  assert.is(code, 0, stderr);
  assert.match(stdout, /^[0-9a-f]{32}$/);
  const exports = collector.requests.filter((r) => r.path === '/v1/traces');
  assert.ok(exports.length >= 1, `the collector received ${collector.requests.map((r) => r.path).join(', ') || 'nothing'}`);
  assert.is(exports[0]!.headers['x-collector-token'], 'collector-SECRET-123');
  const body = exports.map((r) => r.raw).join('\n');
  assert.ok(body.includes('agent.exported') && body.includes('llm.chat_completion'), 'span names are exported');
  assert.ok(body.includes(Buffer.from(stdout, 'hex').toString('base64')) || body.includes(stdout), "the run's trace id is exported");
  assert.not.ok(body.includes('OTLPSECRET'), 'credentials are masked before export, as in local.db');
  assert.ok(body.includes('[REDACTED]'));
  const local = await new TraceStore({ dbPath: dbOf(t) }).listTraces();
  assert.ok(
    local.some((s) => s.trace_id === stdout),
    'and the local store still has the trace',
  );
});

area.scenario(
  'model spans store the messages they add; every reader gets the whole conversation back; OTLP exports it whole',
  { timeoutMs: 30_000 },
  async (t) => {
    const seen: unknown[][] = [];
    const lookup = tool({
      name: 'lookup',
      description: 'Look up',
      parameters: Type.Object({ n: Type.Number() }),
      registry: false,
      execute: ({ n }) => `result ${n} `.repeat(20),
    });
    const llm = new FunctionModel((messages) => {
      seen.push(JSON.parse(JSON.stringify(messages)) as unknown[]);
      return seen.length <= 3 ? { toolCalls: [{ name: 'lookup', arguments: { n: seen.length } }] } : 'all looked up';
    });
    const agent = new Agent({ name: 'looker', systemPrompt: 'You look things up.', llm, tools: [lookup], traceDb: dbOf(t) });
    const result = await agent.run('look up three things');
    assert.is(result.output, 'all looked up');
    await flushTraces();
    // As stored: the first model span holds the conversation, each later one what was added since the one before.
    const rows = (await spansQuery(t, "SELECT span_id, attributes FROM spans WHERE trace_id = ? AND name = 'llm.chat_completion' ORDER BY start_time", [
      result.trace_id,
    ])) as Array<{ span_id: string; attributes: string }>;
    const stored = rows.map((row) => JSON.parse(row.attributes) as Record<string, unknown>);
    assert.is(stored.length, 4);
    assert.equal(JSON.parse(stored[0]!['gen_ai.request.messages'] as string), seen[0]);
    assert.is(stored[0]!['agentkit.llm.messages_base'], undefined);
    for (let i = 1; i < 4; i++) {
      assert.is(stored[i]!['agentkit.llm.messages_base'], rows[i - 1]!.span_id, `model span ${i} is stored against the one before`);
      assert.is(stored[i]!['agentkit.llm.messages_offset'], seen[i - 1]!.length);
      assert.equal(
        JSON.parse(stored[i]!['gen_ai.request.messages'] as string),
        seen[i]!.slice(seen[i - 1]!.length),
        `model span ${i} stores only what was added`,
      );
    }
    // As read: every model span with exactly the conversation the model was sent, and no trace of the stored form.
    const llmSpans = byName(await new TraceStore({ dbPath: dbOf(t) }).spans(result.trace_id!), 'llm.chat_completion');
    assert.equal(
      llmSpans.map((s) => JSON.parse(s.attributes['gen_ai.request.messages'] as string)),
      seen,
    );
    assert.ok(llmSpans.every((s) => !('agentkit.llm.messages_base' in s.attributes) && !('agentkit.llm.messages_offset' in s.attributes)));
    // A row whose base is gone keeps what it stored, and the keys that say it is only the added messages.
    await spansQuery(t, 'DELETE FROM spans WHERE span_id = ?', [rows[0]!.span_id]);
    const orphan = byName(await new TraceStore({ dbPath: dbOf(t) }).spans(result.trace_id!), 'llm.chat_completion')[0]!;
    assert.is(orphan.attributes['agentkit.llm.messages_base'], rows[0]!.span_id);
    assert.equal(JSON.parse(orphan.attributes['gen_ai.request.messages'] as string), seen[1]!.slice(seen[0]!.length));

    // Exported over OTLP, each model span carries the whole conversation: the input appears in both model spans.
    const collector = await startFakeProvider(() => ({ json: {} }));
    t.defer(() => collector.close());
    const script = path.join(t.cwd, 'otlp-whole.mts');
    const src = path.resolve('src');
    await writeFile(
      script,
      `import { Agent, shutdownTracing, tool, Type } from ${JSON.stringify(path.join(src, 'index.ts'))};
     import { FunctionModel } from ${JSON.stringify(path.join(src, 'testing/index.ts'))};
     const echo = tool({ name: 'echo', description: 'Echo', parameters: Type.Object({}), registry: false, execute: () => 'echoed' });
     let calls = 0;
     const llm = new FunctionModel(() => (calls++ === 0 ? { toolCalls: [{ name: 'echo', arguments: {} }] } : 'done'));
     await new Agent({ name: 'exported', systemPrompt: 'x', llm, tools: [echo] }).run('marker-WHOLE-7Qz');
     await shutdownTracing();`,
    );
    const { code, stderr } = await runTsFile([script], {
      cwd: t.cwd,
      env: { ...process.env, AGENTKIT_LOCAL_DB: path.join(t.cwd, 'otlp.db'), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    });
    assert.is(code, 0, stderr);
    const body = collector.requests
      .filter((r) => r.path === '/v1/traces')
      .map((r) => r.raw)
      .join('\n');
    // The agent span's input, and the user message in each of the two model spans' conversations.
    assert.is(body.split('marker-WHOLE-7Qz').length - 1, 3, 'the input is in the agent span and in both model spans');
  },
);

area.run();
