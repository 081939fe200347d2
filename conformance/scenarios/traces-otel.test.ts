/**
 * OpenTelemetry the way collectors and callers expect (issue 44): the resource from the standard environment, W3C
 * context in (`/run`, `/run/stream`, MCP `_meta`) and out (the model provider), a record of its own in the store for
 * every run under a caller's trace (docs/adr/0009). Real served agents (the built binary), a real OTLP receiver and a
 * fake provider speaking OpenAI's protocol, all on loopback; the CLI for addressing.
 */
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { conformance, startCli, startFakeProvider, startOtlpReceiver, type ScenarioContext } from '../harness/index.js';
import { BIN } from '../harness/cli.js';
import { providerReply } from '../fixtures/serving/provider-agent.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { createServeApp } from '../../src/serve/app.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { Replay } from '../../src/replay/index.js';
import { flushTraces, TraceStore } from '../../src/tracing/index.js';
import { openLocalStore } from '../../src/store/index.js';

const area = conformance('OpenTelemetry: resource, W3C context, trace identity');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const moduleUrl = (file: string) => JSON.stringify(pathToFileURL(path.join(root, file)).href);

const hexId = (bytes: number) => randomBytes(bytes).toString('hex');
const traceparent = (traceId: string, spanId: string, flags = '01') => `00-${traceId}-${spanId}-${flags}`;

/** The variant's store as one value: the local.db file or the Postgres URL with its schema. */
function dbOf(t: ScenarioContext): string {
  if (t.store === undefined) throw new Error('trace scenarios need a store');
  return t.store;
}

/** Move every span of `traceId` to 2020, in the variant's engine, as an old run would have been stored. */
async function ageTrace(t: ScenarioContext, traceId: string): Promise<void> {
  if (t.backend.kind === 'postgres') {
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      await client.query(`UPDATE "${t.backend.schema}".spans SET start_time = '2020-01-01T00:00:00Z' WHERE trace_id = $1`, [traceId]);
    } finally {
      await client.end();
    }
    return;
  }
  const db = openLocalStore(dbOf(t));
  db.prepare("UPDATE spans SET start_time = '2020-01-01T00:00:00.000000Z' WHERE trace_id = ?").run(traceId);
  db.close();
}

/** Runner files for the served processes: the weather agent and the desk agent on the fake provider at `baseUrl`. */
async function writeRunners(t: ScenarioContext, baseUrl = 'http://127.0.0.1:9/v1'): Promise<void> {
  await writeFile(
    path.join(t.cwd, 'runners.mts'),
    `import { weatherAgent } from ${moduleUrl('conformance/fixtures/serving/runners.ts')};
import { providerAgent } from ${moduleUrl('conformance/fixtures/serving/provider-agent.ts')};
export const weather = weatherAgent();
export const desk = () => providerAgent({ baseUrl: ${JSON.stringify(baseUrl)} });
`,
  );
}

async function serveProcess(t: ScenarioContext, target: string, env: Record<string, string>) {
  const proc = startCli(['agent', 'serve', target, '--port', '0', '--host', '127.0.0.1'], { cwd: t.cwd, env: { ...t.env, ...env } });
  t.defer(() => proc.kill());
  const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 30_000);
  return { proc, url: url! };
}

async function stop(proc: ReturnType<typeof startCli>): Promise<void> {
  proc.child.kill('SIGTERM');
  assert.equal(await proc.exited, { code: 0, signal: null }, proc.stderr());
}

async function run(url: string, input: string, headers: Record<string, string> = {}): Promise<{ trace_id: string; output: string }> {
  const response = await fetch(`${url}/run`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ input }) });
  const text = await response.text();
  assert.is(response.status, 200, text);
  return JSON.parse(text) as { trace_id: string; output: string };
}

/** Wait until the store holds `count` spans of `traceId` (another process writes them on its writer's timer). */
async function stored(store: TraceStore, traceId: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const spans = await store.spans(traceId).catch(() => []);
    if (spans.length >= count) return;
    if (Date.now() > deadline) throw new Error(`trace ${traceId} has ${spans.length} of ${count} spans in the store`);
    await sleep(50);
  }
}

area.scenario(
  'the resource: service.name from OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, and a service.instance.id per process (two replicas differ)',
  { surfaces: ['cli'], timeoutMs: 60_000, storeEnv: true },
  async (t) => {
    const receiver = await startOtlpReceiver();
    t.defer(() => receiver.close());
    await writeRunners(t);
    const common = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'support-desk' };
    const a = await serveProcess(t, 'runners.mts:weather', common);
    const b = await serveProcess(t, 'runners.mts:weather', {
      ...common,
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored,deployment.environment=staging,service.instance.id=replica-b',
    });
    const fromA = await run(a.url, 'weather in Oslo');
    const fromB = await run(b.url, 'weather in Rome');
    await Promise.all([stop(a.proc), stop(b.proc)]);
    const spans = receiver.spans();
    const resourceOf = (traceId: string) => {
      const found = spans.filter((s) => s.traceId === traceId);
      // The agent, its input guardrail, two model calls and the tool call.
      assert.is(found.length, 5, `the five spans of ${traceId} were exported`);
      return found[0]!.resource;
    };
    const ra = resourceOf(fromA.trace_id);
    const rb = resourceOf(fromB.trace_id);
    assert.is(ra['service.name'], 'support-desk');
    assert.is(rb['service.name'], 'support-desk', 'OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES');
    assert.is(rb['deployment.environment'], 'staging');
    assert.match(String(ra['service.instance.id']), /^[0-9a-f-]{36}$/, 'random per boot');
    assert.is(rb['service.instance.id'], 'replica-b', 'or set by OTEL_RESOURCE_ATTRIBUTES');
    assert.is.not(ra['process.pid'], rb['process.pid']);
    assert.ok(typeof ra['host.name'] === 'string' && ra['host.name'] !== '', 'the host detector ran');
    assert.not.ok(
      Object.keys(ra).some((k) => k.startsWith('process.command')),
      'no command line (it may hold a token)',
    );
    assert.not.ok(
      spans.some((s) => s.resource['service.name'] !== 'support-desk'),
      'no span says unknown_service',
    );
  },
);

area.scenario(
  "/run under a caller's traceparent: exported under the caller's span, the provider gets our model span's context (no baggage); a forged trace id changes nothing; sampled=0 is still stored",
  { surfaces: ['http'], timeoutMs: 60_000, storeEnv: true },
  async (t) => {
    const receiver = await startOtlpReceiver();
    t.defer(() => receiver.close());
    const provider = await startFakeProvider((request) => ({ json: providerReply(request.body) }));
    t.defer(() => provider.close());
    await writeRunners(t, `${provider.url}/v1`);
    const { proc, url } = await serveProcess(t, 'runners.mts:desk', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'support-desk' });
    const store = new TraceStore({ dbPath: dbOf(t) });
    t.defer(() => store.close());

    // A run with no caller: its record, and its replay as the CLI shows it, before anything else happens.
    const victim = await run(url, 'What does order 42 cost?');
    await stored(store, victim.trace_id, 4);
    const before = await store.getTrace(victim.trace_id);
    const shownBefore = (await Replay.load(victim.trace_id, { store })).summary();

    const caller = { trace: hexId(16), span: hexId(8) };
    const called = await run(url, 'What does order 42 cost?', {
      traceparent: traceparent(caller.trace, caller.span),
      tracestate: 'caller=7',
      baggage: 'user=alice,plan=gold',
    });
    assert.match(called.trace_id, /^[0-9a-f]{32}$/);
    assert.is.not(called.trace_id, caller.trace, "the run's own record id comes back, not the caller's trace id");
    const forged = await run(url, 'What does order 42 cost?', { traceparent: traceparent(victim.trace_id, hexId(8)) });
    const quiet = { trace: hexId(16), span: hexId(8) };
    const unsampled = await run(url, 'What does order 42 cost?', { traceparent: traceparent(quiet.trace, quiet.span, '00') });
    const malformed = await run(url, 'What does order 42 cost?', { traceparent: '00-not-a-trace-01' });
    await stop(proc);

    // Exported: the run is a child of the caller's span, and says which record it is in the store.
    const exported = receiver.spans();
    const underCaller = exported.filter((s) => s.traceId === caller.trace);
    assert.equal(underCaller.map((s) => s.name).sort(), ['agent.desk', 'llm.chat_completion', 'llm.chat_completion', 'tool.lookup_order']);
    const exportedRoot = underCaller.find((s) => s.name === 'agent.desk')!;
    assert.is(exportedRoot.parentSpanId, caller.span);
    assert.is(exportedRoot.attributes['agentkit.local_trace_id'], called.trace_id);
    assert.is(exportedRoot.attributes['agentkit.caller.trace_id'], caller.trace);
    const modelSpans = underCaller.filter((s) => s.name === 'llm.chat_completion');
    for (const span of modelSpans) {
      assert.is(span.parentSpanId, exportedRoot.spanId);
      // GenAI conventions (docs/adr/0010): a CLIENT span of operation chat, provider openai.
      assert.is(span.kind, 3);
      assert.equal(
        [span.attributes['gen_ai.operation.name'], span.attributes['gen_ai.provider.name'], span.attributes['gen_ai.response.model']],
        ['chat', 'openai', 'gpt-test-2026'],
      );
    }
    assert.is(underCaller.find((s) => s.name === 'tool.lookup_order')!.attributes['gen_ai.operation.name'], 'execute_tool');

    // The provider got the context of our model spans, the caller's tracestate, and never the baggage.
    const toProvider = provider.requests.filter((r) => String(r.headers.traceparent ?? '').includes(caller.trace));
    assert.is(toProvider.length, 2);
    assert.equal(
      toProvider.map((r) => r.headers.traceparent).sort(),
      modelSpans.map((s) => traceparent(caller.trace, s.spanId)).sort(),
      "each model call carries its own model span's id",
    );
    for (const r of toProvider) assert.is(r.headers.tracestate, 'caller=7');
    assert.ok(
      provider.requests.every((r) => r.headers.baggage === undefined),
      'no baggage reached the provider',
    );
    assert.ok(
      provider.requests.every((r) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(String(r.headers.traceparent))),
      'every model call carries a traceparent',
    );

    // In the store: the run under the caller has a record of its own; the caller's trace id leads to it.
    const record = await store.getTrace(called.trace_id);
    assert.is(record.spans.length, 4);
    assert.is(record.spans[0]!.parent_span_id, null);
    assert.is(record.spans[0]!.attributes['agentkit.caller.span_id'], caller.span);
    assert.is((await store.getTrace(caller.trace)).trace_id, called.trace_id);
    const shown = await t.bin(['replay', 'show', caller.trace]);
    assert.is(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`Trace: ${called.trace_id}`));

    // The forged trace id: the victim's record and its replay are exactly as they were; the forger has its own.
    assert.is.not(forged.trace_id, victim.trace_id);
    assert.equal(await store.getTrace(victim.trace_id), before);
    assert.is((await Replay.load(victim.trace_id, { store })).summary(), shownBefore);
    assert.is((await store.getTrace(forged.trace_id)).spans.length, 4);

    // sampled=0: stored all the same, exported per the caller's decision (not at all).
    assert.is((await store.getTrace(unsampled.trace_id)).spans.length, 4);
    assert.not.ok(
      exported.some((s) => s.traceId === quiet.trace),
      'nothing of the unsampled run was exported',
    );
    // A malformed traceparent is ignored: a run of its own, exported as a new trace.
    assert.ok(exported.some((s) => s.traceId === malformed.trace_id && s.name === 'agent.desk' && s.parentSpanId === ''));
  },
);

area.scenario(
  'two /run calls under one caller trace id: listed, replayed and pruned separately; replay show <caller trace id> lists both and exits 2',
  { surfaces: ['cli'], timeoutMs: 30_000, storeEnv: true },
  async (t) => {
    const server = await t.serve(createServeApp(toServeTarget(weatherAgent(), { traceDb: dbOf(t) })));
    const caller = { trace: hexId(16), span: hexId(8) };
    const headers = { traceparent: traceparent(caller.trace, caller.span) };
    const first = await run(server.url, 'weather in Oslo', headers);
    // The stream route takes the caller's context as /run does.
    const streamed = await fetch(`${server.url}/run/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ input: 'weather in Rome' }),
    });
    assert.is(streamed.status, 200);
    await streamed.text();
    await flushTraces();
    const store = new TraceStore({ dbPath: dbOf(t) });
    t.defer(() => store.close());
    const runs = await store.runsCalledBy(caller.trace);
    assert.is(runs.length, 2);
    assert.is(runs[0]!.trace_id, first.trace_id);
    const second = runs[1]!.trace_id;
    assert.is.not(second, first.trace_id);

    const listed = await t.cli(['traces', 'list', '--json']);
    const items = (JSON.parse(listed.stdout) as { items: Array<{ trace_id: string; name: string; span_count: number }> }).items;
    assert.equal(
      items.map((i) => [i.trace_id, i.name, i.span_count]).sort(),
      [
        [first.trace_id, 'agent.weather', 5],
        [second, 'agent.weather', 5],
      ].sort(),
    );
    const ambiguous = await t.cli(['replay', 'show', caller.trace]);
    assert.is(ambiguous.code, 2);
    assert.is(ambiguous.stdout, '');
    assert.match(
      ambiguous.stderr,
      new RegExp(
        `^error: trace id '${caller.trace}' is the caller's trace of 2 runs in .*: ${first.trace_id} \\(agent\\.weather, [^)]+\\), ${second} \\(agent\\.weather, [^)]+\\); name one run by its own trace id\\n$`,
      ),
    );
    const exported = await t.cli(['traces', 'export', caller.trace]);
    assert.is(exported.code, 2, 'traces export refuses it the same way');
    const forked = await t.cli(['replay', 'fork', caller.trace, '--step', '0']);
    assert.is(forked.code, 2, 'replay fork too (docs/replay.md: AmbiguousTraceError exits 2)');
    assert.match(forked.stderr, new RegExp(`^error: trace id '${caller.trace}' is the caller's trace of 2 runs in `));
    for (const id of [first.trace_id, second]) {
      const shown = await t.cli(['replay', 'show', id]);
      assert.is(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, new RegExp(`Trace: ${id}\\nName: agent\\.weather\\nStatus: OK\\nSpans: 5`));
    }
    // Each replays on its own, from its own record (recorded mode: no model call, the read-only tool runs).
    const replay = await Replay.load(first.trace_id, { store });
    const rerun = await replay.forkAt(0).rerun({ agent: weatherAgent({ traceDb: dbOf(t) }) });
    assert.is(rerun.new_output, 'It is 14 degrees in Oslo.');
    assert.is(rerun.counts.recordedModelCalls, 2);
    assert.is(rerun.counts.liveModelCalls, 0);

    // Prune judges each run by its own start: only the first (made old here) goes.
    await ageTrace(t, first.trace_id);
    const pruned = await t.cli(['traces', 'prune', '--older-than-hours', '1']);
    assert.equal(pruned, { code: 0, stdout: 'pruned 1 trace\n', stderr: '' });
    const after = await t.cli(['replay', 'show', caller.trace]);
    assert.is(after.code, 0, 'one run left under the caller: its trace id names it');
    assert.match(after.stdout, new RegExp(`Trace: ${second}`));
  },
);

area.scenario(
  "mcp serve: a tools/call with a traceparent in _meta runs under the caller's span, in a record of its own",
  { surfaces: ['cli'], timeoutMs: 40_000, storeEnv: true },
  async (t) => {
    await writeRunners(t);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', 'serve', 'runners.mts:weather'],
      cwd: t.cwd,
      env: { ...(process.env as Record<string, string>), ...t.env, NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'conformance', version: '1.0.0' });
    await client.connect(transport);
    t.defer(() => client.close());
    const caller = { trace: hexId(16), span: hexId(8) };
    const result = await client.callTool({
      name: 'weather',
      arguments: { input: 'weather in Oslo' },
      _meta: { traceparent: traceparent(caller.trace, caller.span), tracestate: 'mcp=1' },
    });
    const traceId = (result.structuredContent as { trace_id: string }).trace_id;
    assert.match(traceId, /^[0-9a-f]{32}$/);
    assert.is.not(traceId, caller.trace);
    await client.close();
    const store = new TraceStore({ dbPath: dbOf(t) });
    t.defer(() => store.close());
    await stored(store, traceId, 5);
    const trace = await store.getTrace(caller.trace);
    assert.is(trace.trace_id, traceId);
    assert.equal(
      [trace.spans[0]!.name, trace.spans[0]!.attributes['agentkit.caller.trace_id'], trace.spans[0]!.attributes['agentkit.caller.span_id']],
      ['agent.weather', caller.trace, caller.span],
    );
  },
);

area.run();
