/**
 * The OTLP/HTTP protocol of `POST /v1/traces` against a real server on 127.0.0.1, with hand-made bodies: OTLP JSON's
 * spellings, per-span rejections reported in `partial_success` (protobuf and JSON), and the whole-request answers
 * (400, 403, 415, 429, 503) with a google.rpc.Status in the request's encoding.
 */
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { startIngestServer, type IngestServer } from '../../../test-support/otlp-ingest-server.js';
import { suite } from '../../../test-support/uvu.js';
import { createOtlpTracesHandler } from './handler.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse, RpcStatus } from './messages.js';

const NOW_MS = Date.UTC(2026, 5, 1, 12, 0, 0);
const NOW_NS = BigInt(NOW_MS) * 1_000_000n;
const TRACE = '5b8efff798038103d269b633813fc60c';

const test = suite<{ server: IngestServer | undefined }>('platform otlp: the OTLP/HTTP protocol', { state: { server: undefined } });

test.before(async (ctx) => {
  ctx.server = await startIngestServer({ now: () => NOW_MS, limits: { maxAttributesPerSpan: 4, maxEventsPerSpan: 2, maxAttributeValueLength: 64 } });
});
test.after(async (ctx) => {
  await ctx.server?.close();
});
test.beforeEach((ctx) => {
  const server = ctx.server!;
  server.stored.length = 0;
  server.writes = 0;
  server.fault = false;
  server.throttle = null;
  server.refuse.clear();
});

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function post(server: IngestServer, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${server.url}/v1/traces`, {
    method: 'POST',
    headers: { 'x-api-key': 'key-alpha', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

const postJson = (server: IngestServer, document: unknown, headers: Record<string, string> = {}) =>
  post(server, JSON.stringify(document), { 'content-type': 'application/json', ...headers });

const postProtobuf = (server: IngestServer, document: Record<string, unknown>, headers: Record<string, string> = {}) =>
  post(server, Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(document)).finish()), {
    'content-type': 'application/x-protobuf',
    ...headers,
  });

function protobufStatus(answer: Answer): { code?: number; message?: string } {
  assert.is(answer.headers.get('content-type'), 'application/x-protobuf');
  return RpcStatus.toObject(RpcStatus.decode(answer.body));
}

function jsonBody(answer: Answer): Record<string, unknown> {
  assert.match(String(answer.headers.get('content-type')), /^application\/json/);
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}

const ns = (offsetMs: number) => (NOW_NS + BigInt(offsetMs) * 1_000_000n).toString();
const spanId = (n: number) => n.toString(16).padStart(16, '0');

/** An OTLP JSON span; `over` replaces or adds fields. */
function jsonSpan(n: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { traceId: TRACE, spanId: spanId(n), name: `span ${n}`, kind: 1, startTimeUnixNano: ns(-1000), endTimeUnixNano: ns(-500), ...over };
}

const jsonRequest = (spans: unknown[], resource: unknown[] = [{ key: 'service.name', value: { stringValue: 'shop' } }]) => ({
  resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: 'lib' }, spans }] }],
});

test('OTLP JSON: lowerCamelCase and .proto field names, int64 as strings and numbers, every AnyValue type, upper-case hex ids', async ({ server }) => {
  const document = {
    resource_spans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
        scope_spans: [
          {
            scope: { name: 'lib', version: '1' },
            spans: [
              {
                trace_id: TRACE.toUpperCase(),
                span_id: spanId(1).toUpperCase(),
                parent_span_id: spanId(9),
                name: 'snake',
                kind: 3,
                start_time_unix_nano: ns(-1000),
                end_time_unix_nano: Number(ns(-1)),
                attributes: [
                  { key: 'big', value: { int_value: '9007199254740993' } },
                  { key: 'small', value: { intValue: 7 } },
                  { key: 'nan', value: { doubleValue: 'NaN' } },
                  { key: 'bytes', value: { bytesValue: 'AQID' } },
                ],
                status: { code: 2, message: 'failed' },
                someFutureField: { ignored: true },
              },
              jsonSpan(2, {
                attributes: [
                  { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '1' }, { boolValue: false }, {}] } } },
                  { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { doubleValue: 1.5 } }] } } },
                ],
                events: [{ timeUnixNano: ns(-700), name: 'retry', attributes: [{ key: 'attempt', value: { intValue: '2' } }] }],
              }),
            ],
          },
        ],
      },
    ],
  };
  const answer = await postJson(server!, document);
  assert.is(answer.status, 200);
  assert.equal(jsonBody(answer), {});
  const [snake, camel] = server!.stored.map((s) => s.span);
  assert.equal(snake, {
    trace_id: TRACE,
    span_id: spanId(1),
    parent_span_id: spanId(9),
    name: 'snake',
    kind: 3,
    start_time: '2026-06-01T11:59:59.000Z',
    end_time: '2026-06-01T11:59:59.999Z',
    status: 'ERROR',
    status_message: 'failed',
    attributes: { big: '9007199254740993', small: 7, nan: 'NaN', bytes: 'AQID' },
    events: [],
    resource: { 'service.name': 'shop' },
    scope: 'lib',
  });
  assert.equal(camel!.attributes, { list: ['a', 1, false, null], map: { k: 1.5 } });
  assert.equal(camel!.events, [{ name: 'retry', time: '2026-06-01T11:59:59.300Z', attributes: { attempt: 2 } }]);
  assert.is(camel!.parent_span_id, null);
});

test('an empty request is a success with nothing written', async ({ server }) => {
  for (const answer of [await postJson(server!, {}), await postProtobuf(server!, {})]) assert.is(answer.status, 200);
  assert.is(server!.writes, 0);
});

/** Spans 1 and 9 are valid; each other one breaks one rule (limits of this suite: 4 attributes, 2 events, 64 characters). */
function mixedBatch(): { spans: Array<Record<string, unknown>>; reasons: RegExp[] } {
  const attrs = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `a${i}`, value: { intValue: String(i) } }));
  const event = { timeUnixNano: ns(-800), name: 'e' };
  return {
    spans: [
      jsonSpan(1),
      jsonSpan(2, { traceId: '00000000000000000000000000000000' }),
      jsonSpan(3, { startTimeUnixNano: String(BigInt(Date.UTC(1999, 11, 31)) * 1_000_000n) }),
      jsonSpan(4, { startTimeUnixNano: ns(2 * 24 * 3600 * 1000), endTimeUnixNano: ns(2 * 24 * 3600 * 1000 + 1) }),
      jsonSpan(5, { attributes: [{ key: 'prompt', value: { stringValue: 'x'.repeat(65) } }] }),
      jsonSpan(6, { attributes: attrs(5) }),
      jsonSpan(7, { events: [event, event, event] }),
      jsonSpan(8, { endTimeUnixNano: ns(-2000) }),
      jsonSpan(9, { attributes: attrs(4), events: [event, event] }),
      jsonSpan(10, { kind: 9 }),
      jsonSpan(11, { parentSpanId: '0102' }),
    ],
    reasons: [
      /span 0000000000000002: trace_id must be 16 bytes \(32 hex digits\), not all zero/,
      /span 0000000000000003: start_time is before 2000-01-01T00:00:00.000Z/,
      /span 0000000000000004: start_time is more than the allowed skew in the future/,
      /span 0000000000000005: span attribute 'prompt' is longer than 64 characters/,
      /span 0000000000000006: span has 5 attributes; the limit is 4/,
      /span 0000000000000007: span has 3 events; the limit is 2/,
      /span 0000000000000008: end_time is before start_time/,
      /span 000000000000000a: kind 9 is not an OTLP SpanKind/,
      /span 000000000000000b: parent_span_id must be 8 bytes/,
    ],
  };
}

/** The same batch as protobufjs objects (ids as bytes). */
function asProtobuf(spans: Array<Record<string, unknown>>): Record<string, unknown> {
  const bytes = (hex: unknown) => (typeof hex === 'string' ? Buffer.from(hex, 'hex') : undefined);
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
        scopeSpans: [{ spans: spans.map((s) => ({ ...s, traceId: bytes(s.traceId), spanId: bytes(s.spanId), parentSpanId: bytes(s.parentSpanId) })) }],
      },
    ],
  };
}

test('a batch with bad spans: the good ones are stored, the rest counted and explained in partial_success (JSON and protobuf)', async ({ server }) => {
  const { spans, reasons } = mixedBatch();
  const json = await postJson(server!, jsonRequest(spans));
  assert.is(json.status, 200);
  const jsonAnswer = jsonBody(json) as { partialSuccess: { rejectedSpans: string | number; errorMessage: string } };
  assert.is(Number(jsonAnswer.partialSuccess.rejectedSpans), 9);
  for (const reason of reasons) assert.match(jsonAnswer.partialSuccess.errorMessage, reason);
  assert.equal(
    server!.stored.map((s) => s.span.span_id),
    [spanId(1), spanId(9)],
  );

  server!.stored.length = 0;
  const proto = await postProtobuf(server!, asProtobuf(spans));
  assert.is(proto.status, 200);
  assert.is(proto.headers.get('content-type'), 'application/x-protobuf');
  const protoAnswer = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(proto.body), { longs: Number }) as {
    partialSuccess: { rejectedSpans: number; errorMessage: string };
  };
  assert.is(protoAnswer.partialSuccess.rejectedSpans, 9);
  for (const reason of reasons) assert.match(protoAnswer.partialSuccess.errorMessage, reason);
  assert.equal(
    server!.stored.map((s) => s.span.span_id),
    [spanId(1), spanId(9)],
  );
});

test('an id that is not hex rejects its span only; a resource over the attribute cap rejects its spans', async ({ server }) => {
  const answer = await postJson(server!, {
    resourceSpans: [
      ...jsonRequest([jsonSpan(1), jsonSpan(2, { spanId: 'zz00000000000000' })]).resourceSpans,
      ...jsonRequest(
        [jsonSpan(3)],
        Array.from({ length: 5 }, (_, i) => ({ key: `r${i}`, value: { stringValue: 'v' } })),
      ).resourceSpans,
    ],
  });
  assert.is(answer.status, 200);
  const body = jsonBody(answer) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
  assert.is(Number(body.partialSuccess.rejectedSpans), 2);
  assert.match(body.partialSuccess.errorMessage, /span_id must be 8 bytes/);
  assert.match(body.partialSuccess.errorMessage, /span 0000000000000003: resource has 5 attributes; the limit is 4/);
  assert.equal(
    server!.stored.map((s) => s.span.span_id),
    [spanId(1)],
  );
});

test("spans the store refuses are counted in partial_success with the store's reason", async ({ server }) => {
  server!.refuse.set(spanId(2), 'span already stored');
  const answer = await postJson(server!, jsonRequest([jsonSpan(1), jsonSpan(2)]));
  const body = jsonBody(answer) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
  assert.is(Number(body.partialSuccess.rejectedSpans), 1);
  assert.match(body.partialSuccess.errorMessage, /span 0000000000000002: span already stored/);
  assert.is(server!.stored.length, 1);
});

test('undecodable bodies are 400 with a Status in the request encoding; gzip that is not gzip too', async ({ server }) => {
  const garbage = await post(server!, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
  assert.is(garbage.status, 400);
  assert.match(String(protobufStatus(garbage).message), /not an OTLP ExportTraceServiceRequest in protobuf/);
  assert.is(protobufStatus(garbage).code, 3);

  const badJson = await post(server!, '{"resourceSpans": [', { 'content-type': 'application/json' });
  assert.is(badJson.status, 400);
  assert.match(String(jsonBody(badJson).message), /not an OTLP ExportTraceServiceRequest in OTLP JSON/);

  const wrongType = await postJson(server!, { resourceSpans: [{ scopeSpans: [{ spans: [{ name: 5 }] }] }] });
  assert.is(wrongType.status, 400);
  assert.match(String(jsonBody(wrongType).message), /Span\.name: expected string/);

  const notGzip = await post(server!, 'plain text', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.is(notGzip.status, 400);
  assert.match(String(jsonBody(notGzip).message), /not valid gzip/);
  assert.is(server!.writes, 0);
});

test('gzip JSON is accepted; other content types and encodings are 415', async ({ server }) => {
  const gz = await post(server!, gzipSync(JSON.stringify(jsonRequest([jsonSpan(1)]))), {
    'content-type': 'application/json; charset=utf-8',
    'content-encoding': 'gzip',
  });
  assert.is(gz.status, 200);
  assert.is(server!.stored.length, 1);

  const text = await post(server!, 'hello', { 'content-type': 'text/plain' });
  assert.is(text.status, 415);
  assert.match(String(jsonBody(text).message), /Content-Type 'text\/plain' is not accepted: send application\/x-protobuf or application\/json/);
  const brotli = await post(server!, 'x', { 'content-type': 'application/x-protobuf', 'content-encoding': 'br' });
  assert.is(brotli.status, 415);
  assert.match(String(protobufStatus(brotli).message), /Content-Encoding 'br' is not accepted/);
});

test('401 without a key, 403 for a key without traces:write, answered in the request encoding', async ({ server }) => {
  const none = await postProtobuf(server!, asProtobuf([jsonSpan(1)]), { 'x-api-key': '' });
  assert.is(none.status, 401);
  assert.equal(protobufStatus(none), { code: 16, message: 'unauthorized: send a Platform key in X-API-Key' });
  const readonly = await postJson(server!, jsonRequest([jsonSpan(1)]), { 'x-api-key': 'key-readonly' });
  assert.is(readonly.status, 403);
  assert.equal(jsonBody(readonly), { code: 7, message: 'forbidden: this key has no traces:write scope' });
  assert.is(server!.writes, 0);
});

test("a span or resource naming another project in agentkit.project_id is refused 403; the key's own project is accepted", async ({ server }) => {
  const other = [{ key: 'agentkit.project_id', value: { stringValue: 'beta' } }];
  const bySpan = await postJson(server!, jsonRequest([jsonSpan(1), jsonSpan(2, { attributes: other })]));
  assert.is(bySpan.status, 403);
  assert.match(String(jsonBody(bySpan).message), /names project 'beta' in agentkit.project_id; this key writes to project 'alpha' only/);
  const foreignResource = asProtobuf([jsonSpan(1)]) as { resourceSpans: Array<Record<string, unknown>> };
  foreignResource.resourceSpans[0]!.resource = { attributes: other };
  const byResource = await postProtobuf(server!, foreignResource);
  assert.is(byResource.status, 403);
  assert.is(server!.writes, 0);
  const own = await postJson(server!, jsonRequest([jsonSpan(1, { attributes: [{ key: 'agentkit.project_id', value: { stringValue: 'alpha' } }] })]));
  assert.is(own.status, 200);
  assert.is(server!.stored.length, 1);
});

test('throttled: 429 with Retry-After; storage down: 503 with Retry-After; both in the request encoding', async ({ server }) => {
  server!.throttle = 2.5;
  const throttled = await postJson(server!, jsonRequest([jsonSpan(1)]));
  assert.is(throttled.status, 429);
  assert.is(throttled.headers.get('retry-after'), '3');
  assert.equal(jsonBody(throttled), { code: 8, message: 'too many requests for this key; retry later' });
  const throttledProto = await postProtobuf(server!, asProtobuf([jsonSpan(1)]));
  assert.is(throttledProto.status, 429);
  assert.is(protobufStatus(throttledProto).code, 8);
  assert.is(server!.writes, 0);

  server!.throttle = null;
  server!.fault = true;
  const down = await postProtobuf(server!, asProtobuf([jsonSpan(1)]));
  assert.is(down.status, 503);
  assert.is(down.headers.get('retry-after'), '5');
  assert.equal(protobufStatus(down), { code: 14, message: 'the Platform store is unavailable; retry later' });
  const downJson = await postJson(server!, jsonRequest([jsonSpan(1)]));
  assert.is(downJson.status, 503);
  assert.is(downJson.headers.get('retry-after'), '5');
  assert.is(server!.stored.length, 0);

  server!.fault = false;
  assert.is((await postJson(server!, jsonRequest([jsonSpan(1)]))).status, 200, 'the retry succeeds once the store is back');
});

test('mounted after a body parser, the handler answers 500 and reports the misuse instead of hanging', async () => {
  const faults: unknown[] = [];
  const app = express();
  app.use(express.json());
  app.post(
    '/v1/traces',
    createOtlpTracesHandler({ authenticate: () => ({ project: 'alpha' }), write: async () => ({ rejected: [] }), onServerError: (e) => faults.push(e) }),
  );
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(jsonRequest([jsonSpan(1)])) });
    assert.is(response.status, 500);
    assert.equal(await response.json(), { code: 13, message: 'the Platform failed to handle the request' });
    assert.match(String((faults[0] as Error).message), /mount it before any body parser/);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('an attribute named __proto__ is stored as an ordinary key', async ({ server }) => {
  const map = { kvlistValue: { values: [{ key: 'polluted', value: { boolValue: true } }] } };
  const answer = await postJson(server!, jsonRequest([jsonSpan(1, { attributes: [{ key: '__proto__', value: map }] })]));
  assert.is(answer.status, 200);
  const attributes = server!.stored[0]!.span.attributes;
  assert.ok(Object.hasOwn(attributes, '__proto__'));
  assert.equal(Object.getOwnPropertyDescriptor(attributes, '__proto__')!.value, { polluted: true });
  assert.is(Object.getPrototypeOf(attributes), Object.prototype, 'the map did not become the prototype');
  assert.is(attributes.polluted, undefined);
});

test.run();
