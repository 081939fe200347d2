/**
 * OTLP ingestion from a plain OpenTelemetry SDK app (no agentkit code): the SDK's own OTLP/HTTP exporters, protobuf
 * (`@opentelemetry/exporter-trace-otlp-proto`) and JSON (`@opentelemetry/exporter-trace-otlp-http`), gzip and not,
 * post to the handler on 127.0.0.1; the spans stored under the key's project are read back field by field.
 */
import * as assert from 'uvu/assert';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { startIngestServer, type IngestServer } from '../../../test-support/otlp-ingest-server.js';
import { suite } from '../../../test-support/uvu.js';

const test = suite<{ server: IngestServer | undefined }>('platform otlp: spans from a plain OpenTelemetry SDK app', { state: { server: undefined } });

test.before(async (ctx) => {
  // Retry-After 1 s on a storage outage: the exporters' retry is exercised without a long wait.
  ctx.server = await startIngestServer({ storageRetryAfterSeconds: 1 });
});
test.after(async (ctx) => {
  await ctx.server?.close();
});
test.beforeEach((ctx) => {
  ctx.server!.stored.length = 0;
  ctx.server!.requests.length = 0;
});

type Flavour = { label: string; contentType: string; gzip: boolean; exporter: (url: string, key: string) => SpanExporter };

const FLAVOURS: Flavour[] = [
  {
    label: 'protobuf',
    contentType: 'application/x-protobuf',
    gzip: false,
    exporter: (url, key) => new ProtoExporter({ url: `${url}/v1/traces`, headers: { 'X-API-Key': key } }),
  },
  {
    label: 'protobuf, gzip',
    contentType: 'application/x-protobuf',
    gzip: true,
    exporter: (url, key) => new ProtoExporter({ url: `${url}/v1/traces`, headers: { 'X-API-Key': key }, compression: 'gzip' as never }),
  },
  {
    label: 'JSON',
    contentType: 'application/json',
    gzip: false,
    exporter: (url, key) => new JsonExporter({ url: `${url}/v1/traces`, headers: { 'X-API-Key': key } }),
  },
  {
    label: 'JSON, gzip',
    contentType: 'application/json',
    gzip: true,
    exporter: (url, key) => new JsonExporter({ url: `${url}/v1/traces`, headers: { 'X-API-Key': key }, compression: 'gzip' as never }),
  },
];

/** A small app: a SERVER span with a CLIENT child that fails, and a child with every attribute type and an event. */
async function runApp(exporter: SpanExporter, service: string): Promise<{ traceId: string; root: string; client: string; worker: string }> {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'deployment.environment.name': 'test' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('shop-instrumentation', '1.2.3');
  const root = tracer.startSpan('GET /orders/:id', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'http.response.status_code': 200 } });
  const inRoot = trace.setSpan(context.active(), root);
  const client = tracer.startSpan('SELECT orders', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql' } }, inRoot);
  client.setStatus({ code: SpanStatusCode.ERROR, message: 'relation "orders" does not exist' });
  client.end();
  const worker = tracer.startSpan(
    'price order',
    { attributes: { text: 'hello', flag: true, count: 42, ratio: 0.25, tags: ['a', 'b'], sizes: [1, 2, 3] } },
    inRoot,
  );
  worker.addEvent('cache miss', { key: 'order:42', attempts: 2 });
  worker.end();
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: root.spanContext().traceId, root: root.spanContext().spanId, client: client.spanContext().spanId, worker: worker.spanContext().spanId };
}

for (const flavour of FLAVOURS) {
  test(`${flavour.label}: ids, parent links, names, kinds, attributes, events, resource and status are stored under the key's project`, async ({ server }) => {
    const ids = await runApp(flavour.exporter(server!.url, 'key-alpha'), `shop-${flavour.label}`);
    const stored = server!.stored;
    assert.ok(server!.requests.length > 0);
    for (const request of server!.requests) {
      assert.is(request.contentType, flavour.contentType);
      assert.is(request.contentEncoding, flavour.gzip ? 'gzip' : '');
      assert.is(request.status, 200);
    }
    assert.is(stored.length, 3);
    assert.ok(stored.every((s) => s.project === 'alpha'));
    const byId = new Map(stored.map((s) => [s.span.span_id, s.span]));
    const root = byId.get(ids.root)!;
    const client = byId.get(ids.client)!;
    const worker = byId.get(ids.worker)!;
    for (const span of [root, client, worker]) {
      assert.is(span.trace_id, ids.traceId);
      assert.equal(span.resource['service.name'], `shop-${flavour.label}`);
      assert.equal(span.resource['deployment.environment.name'], 'test');
      assert.is(span.scope, 'shop-instrumentation');
      assert.match(span.start_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(span.end_time! >= span.start_time);
    }
    assert.is(root.parent_span_id, null);
    assert.is(client.parent_span_id, ids.root);
    assert.is(worker.parent_span_id, ids.root);
    assert.equal([root.name, client.name, worker.name], ['GET /orders/:id', 'SELECT orders', 'price order']);
    assert.equal([root.kind, client.kind, worker.kind], [2, 3, 1]);
    assert.equal([root.status, client.status, worker.status], ['OK', 'ERROR', 'UNSET']);
    assert.is(client.status_message, 'relation "orders" does not exist');
    assert.is(root.status_message, null);
    assert.equal(root.attributes, { 'http.request.method': 'GET', 'http.response.status_code': 200 });
    assert.equal(worker.attributes, { text: 'hello', flag: true, count: 42, ratio: 0.25, tags: ['a', 'b'], sizes: [1, 2, 3] });
    assert.is(worker.events.length, 1);
    assert.is(worker.events[0]!.name, 'cache miss');
    assert.equal(worker.events[0]!.attributes, { key: 'order:42', attempts: 2 });
    assert.ok(worker.events[0]!.time >= worker.start_time && worker.events[0]!.time <= worker.end_time!);
  });
}

/** Export one span through `exporter` and report the SDK's own verdict. */
function exportOne(exporter: SpanExporter): Promise<ExportResult> {
  return new Promise((resolve) => {
    const spans: ReadableSpan[] = [];
    const provider = new TracerProvider({
      spanProcessors: [{ onStart() {}, onEnd: (s) => void spans.push(s), forceFlush: async () => {}, shutdown: async () => {} }],
    });
    provider.getTracer('t').startSpan('one').end();
    exporter.export(spans, (result) => {
      void exporter.shutdown();
      resolve(result);
    });
  });
}

test('the exporters see a refused key as a failed export: no key 401, a key without traces:write 403; nothing is stored', async ({ server }) => {
  for (const flavour of [FLAVOURS[0]!, FLAVOURS[2]!]) {
    for (const key of ['', 'key-readonly', 'key-unknown']) {
      const result = await exportOne(flavour.exporter(server!.url, key));
      assert.is(result.code, ExportResultCode.FAILED, `${flavour.label} with key '${key}'`);
      assert.match(String(result.error?.message), /40[13]|Unauthorized|Forbidden/i);
    }
  }
  assert.is(server!.stored.length, 0);
});

test("the exporters retry after a 503's Retry-After, and the span is stored once the store is back", async ({ server }) => {
  for (const flavour of [FLAVOURS[0]!, FLAVOURS[2]!]) {
    server!.stored.length = 0;
    server!.requests.length = 0;
    server!.failingWrites = 1;
    const result = await exportOne(flavour.exporter(server!.url, 'key-alpha'));
    assert.is(result.code, ExportResultCode.SUCCESS, flavour.label);
    assert.equal(
      server!.requests.map((r) => r.status),
      [503, 200],
    );
    assert.equal(
      server!.stored.map((s) => s.span.name),
      ['one'],
    );
  }
});

test('a second key writes under its own project', async ({ server }) => {
  await runApp(FLAVOURS[0]!.exporter(server!.url, 'key-beta'), 'billing');
  assert.is(server!.stored.length, 3);
  assert.ok(server!.stored.every((s) => s.project === 'beta' && s.span.resource['service.name'] === 'billing'));
});

test.run();
