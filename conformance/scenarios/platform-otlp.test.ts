/**
 * OTLP ingestion on `agentkit platform serve` (issue 42, ADRs 0070 and 0071), the Platform on both engines: a plain
 * OpenTelemetry SDK app (no agentkit code; its own OTLP/HTTP exporters, protobuf and JSON) sends spans with a
 * `traces:write` key and they are stored under the key's project, read back with their parent links and attributes
 * by a reading key of that project and by no other project; a key without the scope is refused; an agentkit host that
 * opts in with the standard OTLP environment has its trace replayed (steps, tree) and a fork of it rerun by another
 * process that never saw it.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import Type from 'typebox';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { connect, disconnect, Replay, tool } from '../../src/index.js';
import { FunctionModel } from '../../src/testing/index.js';
import { TraceStore } from '../../src/tracing/index.js';
import { conformance, runTsFile, startPlatform, type LocalPlatform } from '../harness/index.js';

const area = conformance('platform: OTLP trace ingestion (POST /v1/traces)');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const WRITER = 'ak_alpha_writer_000000000';
const READER = 'ak_alpha_reader_000000000';
const OTHER = 'ak_beta_reader_0000000000';
const KEYS = [
  { key: WRITER, project: 'alpha', scopes: ['traces:write' as const] },
  { key: READER, project: 'alpha', scopes: ['checkpoints:read' as const] },
  { key: OTHER, project: 'beta', scopes: ['checkpoints:read' as const] },
];

/** Export one trace (a server span with a failing client child) through `exporter`; the result of the export. */
async function sendTrace(exporter: SpanExporter, service: string): Promise<{ traceId: string; result: ExportResult }> {
  let result: ExportResult | undefined;
  const recording: SpanExporter = {
    export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
      exporter.export(spans, (r) => {
        result = r;
        done(r);
      });
    },
    shutdown: () => exporter.shutdown(),
  };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new BatchSpanProcessor({ exporter: recording })],
  });
  const tracer = provider.getTracer('plain-app');
  const traceId = tracer.startActiveSpan('GET /orders', (server) => {
    server.setAttribute('http.route', '/orders');
    // No global context manager in a bare SDK app: the parent is passed explicitly.
    const client = tracer.startSpan('SELECT orders', {}, trace.setSpan(context.active(), server));
    client.setAttribute('db.rows', 3);
    client.setStatus({ code: SpanStatusCode.ERROR, message: 'timeout' });
    client.end();
    server.end();
    return server.spanContext().traceId;
  });
  // A refused export rejects the flush (with the exporter's errors); the result the exporter reported says what happened.
  await provider.forceFlush().catch(() => undefined);
  await provider.shutdown().catch(() => undefined);
  assert.ok(result, 'the exporter reported a result');
  return { traceId, result: result! };
}

async function getTrace(platform: LocalPlatform, key: string, traceId: string) {
  const response = await fetch(`${platform.url}/public/v1/traces/${traceId}`, { headers: { 'X-API-Key': key } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

area.scenario(
  "a plain OpenTelemetry SDK app's spans (protobuf and JSON) are stored under the key's project and read back by that project only",
  { surfaces: ['http'], timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, store: t.store!, apiKeys: KEYS });
    t.defer(() => platform.stop());
    const url = `${platform.url}/v1/traces`;
    for (const [label, exporter] of [
      ['protobuf', new ProtoExporter({ url, headers: { 'X-API-Key': WRITER } })],
      ['JSON', new JsonExporter({ url, headers: { 'X-API-Key': WRITER } })],
    ] as const) {
      const { traceId, result } = await sendTrace(exporter, `orders-${label}`);
      assert.is(result.code, ExportResultCode.SUCCESS, `${label}: ${result.error?.message}`);
      const read = await getTrace(platform, READER, traceId);
      assert.is(read.status, 200, JSON.stringify(read.body));
      const spans = read.body.spans as Array<{ id: string; name: string; status: string; parent_span_id: string | null; attributes: Record<string, unknown> }>;
      const server = spans.find((s) => s.name === 'GET /orders')!;
      const client = spans.find((s) => s.name === 'SELECT orders')!;
      assert.ok(server && client, `${label}: both spans stored (${spans.map((s) => s.name)})`);
      assert.is(server.parent_span_id, null);
      assert.is(client.parent_span_id, server.id, `${label}: the parent link is kept`);
      assert.is(server.attributes['http.route'], '/orders');
      assert.is(client.attributes['db.rows'], 3);
      assert.is(client.status, 'ERROR');

      const other = await getTrace(platform, OTHER, traceId);
      assert.is(other.status, 404, "another project's key does not see the trace");
      assert.is(other.body.code, 'trace_not_found');
      const writerReads = await getTrace(platform, WRITER, traceId);
      assert.is(writerReads.status, 403, 'a traces:write key cannot read');
    }

    // Refusals the exporter reports as failed exports: an unknown key (401) and a key without traces:write (403).
    for (const [key, status] of [
      ['ak_unknown_key_000000000', 401],
      [READER, 403],
    ] as const) {
      const response = await fetch(url, { method: 'POST', headers: { 'X-API-Key': key, 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' });
      assert.is(response.status, status, `${key}: ${await response.text()}`);
      const { result } = await sendTrace(new ProtoExporter({ url, headers: { 'X-API-Key': key } }), 'refused');
      assert.is(result.code, ExportResultCode.FAILED);
    }
  },
);

area.scenario(
  "an agentkit host's trace, sent by the standard OTLP environment, is replayed and rerun by a process that never saw it",
  { surfaces: ['sdk'], timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, store: t.store!, apiKeys: KEYS });
    t.defer(() => platform.stop());
    const host = await runTsFile([path.join(root, 'conformance/fixtures/platform/otlp-host.ts'), 'Where is order 42?'], {
      cwd: t.cwd,
      env: {
        ...process.env,
        AGENTKIT_LOCAL_DB: path.join(t.cwd, 'host', 'local.db'),
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${platform.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_HEADERS: `X-API-Key=${WRITER}`,
      },
    });
    assert.is(host.code, 0, host.stderr);
    const sent = JSON.parse(host.stdout.trim().split('\n').at(-1)!) as { trace_id: string; output: string };
    assert.is(sent.output, 'Found it: order 42: 2 mugs, paid.');

    // This process is the other host: its own empty store, connected with a reading key of the same project.
    t.defer(() => disconnect());
    await connect({ apiKey: READER, target: platform.url });
    const store = new TraceStore({ dbPath: path.join(t.cwd, 'elsewhere', 'local.db') });
    t.defer(() => store.close());
    const replay = await Replay.fromPlatform(sent.trace_id, { store });
    assert.equal(
      replay.steps().map((s) => s.span_name),
      ['agent.desk', 'llm.chat_completion', 'tool.lookup_order', 'llm.chat_completion'],
    );
    const parents = new Map(replay.trace.spans.map((s) => [s.span_id, s.parent_span_id]));
    const agentSpan = replay.trace.spans.find((s) => s.name === 'agent.desk')!;
    assert.ok(
      replay.trace.spans.filter((s) => s !== agentSpan).every((s) => parents.get(s.span_id) === agentSpan.span_id),
      'the tree is kept: every step hangs under the agent span',
    );

    // A fork reruns here: this host deploys the same code (its tool and its model), the prompt is changed. The spans
    // arrived in the GenAI conventions' shapes (docs/adr/0010), which recorded answering does not read: the model
    // calls go live.
    const lookup = tool({
      name: 'lookup_order',
      replayClass: 'read_only',
      parameters: Type.Object({ order_id: Type.String() }),
      execute: ({ order_id }) => `order ${order_id}: 2 mugs, paid`,
    });
    const model = new FunctionModel((messages) => {
      const last = messages.at(-1)!;
      const polite = /polite/.test(messages[0]!.content ?? '') ? 'Certainly. ' : '';
      if (last.role === 'user') return { text: 'Checking.', toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] };
      return `${polite}Found it: ${last.content}.`;
    });
    const rerun = await replay.forkAt(1).modifyPrompt('You are a polite support desk.').withTools([lookup]).rerun({ llm: model });
    assert.is(rerun.original_output, sent.output);
    assert.is(rerun.new_output, 'Certainly. Found it: order 42: 2 mugs, paid.');
    assert.is(rerun.input, 'Where is order 42?', "the agent's input came from the Platform's trace");
    assert.ok(rerun.trace_id !== sent.trace_id);
    assert.ok((await store.spans(rerun.trace_id!)).length >= 4, "the rerun is traced in this host's own store");
  },
);

area.run();
