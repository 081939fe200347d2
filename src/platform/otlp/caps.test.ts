/**
 * The caps of OTLP ingestion (docs/adr/0071) against a real server on 127.0.0.1: a gzip bomb, 10,001 spans and a
 * 100 MB body (declared and chunked) are refused with 413 without the process's RSS growing past twice its idle
 * size, and nothing is stored.
 */
import * as assert from 'uvu/assert';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { startIngestServer, type IngestServer } from '../../../test-support/otlp-ingest-server.js';
import { suite } from '../../../test-support/uvu.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse, RpcStatus } from './messages.js';

interface Context {
  server: IngestServer | undefined;
  idleRss: number;
  /** Built before the idle size is taken, so the client's side of the test does not count as the server's growth. */
  bomb: Buffer;
  tooMany: Buffer;
  [key: string]: unknown;
}

const test = suite<Context>('platform otlp: request caps', {
  state: { server: undefined, idleRss: 0, bomb: Buffer.alloc(0), tooMany: Buffer.alloc(0) },
  timeoutMs: 60_000,
});

const MIB = 1024 * 1024;
const NOW_NS = BigInt(Date.now()) * 1_000_000n;

/** A protobuf ExportTraceServiceRequest with `count` valid spans of one trace. */
function protobufSpans(count: number): Buffer {
  const traceId = Buffer.alloc(16, 7);
  const spans = Array.from({ length: count }, (_, i) => {
    const spanId = Buffer.alloc(8);
    spanId.writeUInt32BE(i + 1, 4);
    return { traceId, spanId, name: `span ${i}`, kind: 1, startTimeUnixNano: NOW_NS.toString(), endTimeUnixNano: (NOW_NS + 1000n).toString() };
  });
  const message = ExportTraceServiceRequest.fromObject({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] });
  return Buffer.from(ExportTraceServiceRequest.encode(message).finish());
}

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function post(server: IngestServer, body: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${server.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', 'x-api-key': 'key-alpha', ...headers },
    body: new Uint8Array(body),
  });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

function statusMessage(answer: Answer): string {
  return String((RpcStatus.toObject(RpcStatus.decode(answer.body)) as { message?: string }).message);
}

/**
 * POST `total` bytes of zeros with node:http, 1 MiB at a time, declared by Content-Length or chunked, stopping when
 * the answer arrives or the connection closes. Returns the status and how many bytes were written.
 */
function streamZeros(server: IngestServer, total: number, declared: boolean): Promise<{ status: number; written: number; message: string }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(MIB);
    let written = 0;
    let answered = false;
    const req = httpRequest(`${server.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'x-api-key': 'key-alpha', ...(declared ? { 'content-length': String(total) } : {}) },
    });
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        req.destroy();
        const message = String((RpcStatus.toObject(RpcStatus.decode(Buffer.concat(parts))) as { message?: string }).message);
        resolve({ status: res.statusCode!, written, message });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && !req.destroyed && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (written >= total && !answered) req.end();
    };
    pump();
  });
}

function rss(): number {
  return process.memoryUsage().rss;
}

test.before(async (ctx) => {
  ctx.server = await startIngestServer();
  // Warm up: the decoder, zlib and the HTTP stack are loaded before the idle size is taken.
  const warm = await post(ctx.server, gzipSync(protobufSpans(10)), { 'content-encoding': 'gzip' });
  assert.is(warm.status, 200);
  ctx.server.stored.length = 0;
  ctx.server.writes = 0;
  // Concatenated gzip members inflate to the concatenation: 1024 members of 1 MiB of zeros each make 1 GiB.
  const member = gzipSync(Buffer.alloc(MIB));
  ctx.bomb = Buffer.concat(Array.from({ length: 1024 }, () => member));
  ctx.tooMany = protobufSpans(10_001);
  ctx.idleRss = rss();
});
test.after(async (ctx) => {
  await ctx.server?.close();
});

test('a gzip bomb (1 GiB of zeros in about 1 MB) is refused with 413 and stops inflating at the cap', async ({ server, idleRss, bomb }) => {
  assert.ok(bomb.length < 2 * MIB, `the bomb is ${bomb.length} bytes compressed`);
  const answer = await post(server!, bomb, { 'content-encoding': 'gzip' });
  assert.is(answer.status, 413);
  assert.is(answer.headers.get('content-type'), 'application/x-protobuf');
  assert.match(statusMessage(answer), /inflates to more than 33554432 bytes/);
  assert.is(server!.writes, 0);
  assert.ok(rss() < 2 * idleRss, `RSS ${rss()} stays under twice the idle ${idleRss}`);
});

test('10,001 spans in one request are refused with 413 and none is stored', async ({ server, idleRss, tooMany }) => {
  const refused = await post(server!, tooMany);
  assert.is(refused.status, 413);
  assert.match(statusMessage(refused), /carries 10001 spans; the limit is 10000 per request/);
  assert.is(server!.writes, 0);
  assert.is(server!.stored.length, 0);
  assert.ok(rss() < 2 * idleRss, `RSS ${rss()} stays under twice the idle ${idleRss}`);
});

test('a 100 MB body declared by Content-Length is refused with 413 before it is read', async ({ server, idleRss }) => {
  const answer = await streamZeros(server!, 100 * 1000 * 1000, true);
  assert.is(answer.status, 413);
  assert.match(answer.message, /declares more than 10485760 bytes/);
  assert.ok(answer.written < 100 * 1000 * 1000, `the client stopped after ${answer.written} bytes`);
  assert.ok(rss() < 2 * idleRss, `RSS ${rss()} stays under twice the idle ${idleRss}`);
});

test('a 100 MB chunked body is refused with 413 once 10 MiB have arrived', async ({ server, idleRss }) => {
  const answer = await streamZeros(server!, 100 * 1000 * 1000, false);
  assert.is(answer.status, 413);
  assert.match(answer.message, /holds more than 10485760 bytes/);
  assert.ok(answer.written < 100 * 1000 * 1000, `the client stopped after ${answer.written} bytes`);
  assert.is(server!.writes, 0);
  assert.ok(rss() < 2 * idleRss, `RSS ${rss()} stays under twice the idle ${idleRss}`);
});

test('after the refusals the server still answers: 10,000 spans in one request are stored', async ({ server }) => {
  const accepted = await post(server!, protobufSpans(10_000));
  assert.is(accepted.status, 200);
  assert.equal(ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(accepted.body)), {});
  assert.is(server!.writes, 1);
  assert.is(server!.stored.length, 10_000);
});

test.run();
