/**
 * The served agent's wire as its contract says (docs/adr/0056, 0057): anonymous and bearer access both declared and
 * both accepted by the request validator; 415 for a body of another media type; Node's own 400/431 written as
 * contract bodies; named SSE events read by eventsource-parser, `done` last, no `id:`, `Last-Event-ID` ignored; CORS
 * preflights answered before auth for listed origins only, and never by the local UI; the typed client's cut-stream
 * error, its abort signal (the server sees the disconnect) and its errors narrowed per status.
 */
import * as assert from 'uvu/assert';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import Type from 'typebox';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { rawRequest } from '../harness/raw-http.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { doc } from '../../generated/schemas/served-agent.js';
import { Agent, tool } from '../../src/index.js';
import { FunctionModel } from '../../src/testing/index.js';
import { AgentClient, StreamCutError } from '../../src/client/index.js';
import { createServeApp, type ServeAppOptions } from '../../src/serve/app.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { newAuthFile } from '../../src/ui/auth-file.js';

const area = conformance('served agent: the wire as the contract says');
const any = { backends: 'none', surfaces: ['http'] } as const;
const APP = 'http://app.example:5173';

async function serve(t: ScenarioContext, options: ServeAppOptions = {}, runner: unknown = weatherAgent({ traceDb: path.join(t.cwd, 'traces.db') })) {
  const traceDb = path.join(t.cwd, 'traces.db');
  return (await t.serve(createServeApp(toServeTarget(runner, { traceDb }), options))).url;
}

/** Bytes straight onto a socket, for what Node's parser refuses before any route: the whole answer as text. */
function sendBytes(url: string, bytes: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

area.scenario('security is declared as the server behaves: anonymous or bearer on the run routes, open /health', any, async (t) => {
  assert.equal(doc.security, [{}, { ServeBearerAuth: [] }]);
  assert.equal(doc.paths['/health'].get.security, [{}]);
  const open = await serve(t);
  const anonymous = await fetch(`${open}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":"weather in Oslo"}' });
  assert.is(anonymous.status, 200, 'the request validator accepts an anonymous request');
  const guarded = await serve(t, { token: 'tok-1' });
  const bearer = await fetch(`${guarded}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer tok-1' },
    body: '{"input":"weather in Oslo"}',
  });
  assert.is(bearer.status, 200, 'and a bearer one');
  const refused = await fetch(`${guarded}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":"x"}' });
  assert.equal([refused.status, refused.headers.get('www-authenticate'), ((await refused.json()) as { code: string }).code], [401, 'Bearer', 'unauthorized']);
});

area.scenario('a body of another media type, or none, is a 415 unsupported_media_type; every status sent is declared', any, async (t) => {
  const url = await serve(t);
  for (const [headers, detail] of [
    [{ 'content-type': 'text/plain' }, /unsupported Content-Type "text\/plain"; send application\/json/],
    [{ 'content-type': 'application/x-www-form-urlencoded' }, /send application\/json/],
    [{}, /the request has no Content-Type; send application\/json/],
  ] as const) {
    const answer = await rawRequest(url, { method: 'POST', target: '/run', headers, body: 'input=hello' });
    assert.is(answer.status, 415, answer.text);
    assert.is(JSON.parse(answer.text).code, 'unsupported_media_type');
    assert.match(JSON.parse(answer.text).detail, detail);
  }
  const declared = (route: '/run' | '/run/stream' | '/health' | '/runs/{execution_id}', method: 'get' | 'post') =>
    Object.keys((doc.paths[route] as unknown as Record<string, { responses: object }>)[method]!.responses);
  for (const status of ['400', '401', '404', '405', '408', '409', '413', '415', '422', '431', '500', '503']) {
    assert.ok(declared('/run', 'post').includes(status), `POST /run declares ${status}`);
    assert.ok(declared('/run/stream', 'post').includes(status), `POST /run/stream declares ${status}`);
  }
  for (const status of ['400', '404', '405', '408', '431', '500']) assert.ok(declared('/health', 'get').includes(status), `GET /health declares ${status}`);
  for (const status of ['401', '404', '405', '431', '500', '503'])
    assert.ok(declared('/runs/{execution_id}', 'get').includes(status), `GET /runs declares ${status}`);
  const wrongMethod = await rawRequest(url, { method: 'DELETE', target: '/run' });
  assert.equal([wrongMethod.status, wrongMethod.headers.allow, JSON.parse(wrongMethod.text).code], [405, 'POST', 'method_not_allowed']);
});

area.scenario("Node's own parser errors are contract bodies: 400 for a malformed request, 431 for oversized headers", any, async (t) => {
  const url = await serve(t);
  const malformed = await sendBytes(url, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
  assert.match(malformed, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(malformed, /\r\nConnection: close\r\n/);
  assert.equal(JSON.parse(malformed.split('\r\n\r\n')[1]!), { detail: 'malformed HTTP request', code: 'validation_failed', errors: [] });
  const huge = await sendBytes(url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assert.match(huge, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  assert.equal(JSON.parse(huge.split('\r\n\r\n')[1]!), { detail: 'request headers are larger than 16 KiB', code: 'headers_too_large' });
});

/** The messages of an SSE body as eventsource-parser reads them. */
function parseSse(text: string): EventSourceMessage[] {
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  parser.feed(text);
  return messages;
}

area.scenario('SSE events are named by their type for eventsource-parser, done last, no id; Last-Event-ID changes nothing', any, async (t) => {
  const url = await serve(t);
  const stream = await fetch(`${url}/run/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'last-event-id': '7' },
    body: '{"input":"weather in Oslo"}',
  });
  assert.is(stream.status, 200);
  const text = await stream.text();
  assert.not.match(text, /^id:/m, 'no id field');
  const messages = parseSse(text);
  assert.ok(messages.length >= 3, text);
  for (const message of messages) {
    assert.is(message.event, (JSON.parse(message.data) as { type: string }).type, 'the event name is the type');
    assert.is(message.id, undefined);
  }
  assert.equal([...new Set(messages.map((m) => m.event))], ['delta', 'tool_call', 'done']);
  assert.is(messages.at(-1)!.event, 'done');
  assert.is(JSON.parse(messages.at(-1)!.data).status, 'completed', 'a new run, as without Last-Event-ID');
  const failing = parseSse(
    await (await fetch(`${url}/run/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":"weather in Kaboom"}' })).text(),
  );
  assert.equal(
    failing.slice(-2).map((m) => m.event),
    ['error', 'done'],
    'a run failing mid-stream: a named error event, then done',
  );
});

area.scenario('CORS: a listed origin gets its preflight before auth and Access-Control-Allow-Origin on every answer', any, async (t) => {
  const url = await serve(t, { token: 'tok-2', corsOrigins: [APP] });
  const preflight = await rawRequest(url, {
    method: 'OPTIONS',
    target: '/run/stream',
    headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
  });
  assert.is(preflight.status, 204, preflight.text);
  assert.is(preflight.headers['access-control-allow-origin'], APP);
  assert.is(preflight.headers['access-control-allow-methods'], 'POST');
  assert.is(preflight.headers['access-control-allow-headers'], 'authorization, content-type, idempotency-key, traceparent, tracestate, baggage, last-event-id');
  assert.match(String(preflight.headers.vary), /\bOrigin\b/);
  assert.is(preflight.headers['access-control-allow-credentials'], undefined, 'no cookies: the token travels in a header');
  const health = await rawRequest(url, { method: 'OPTIONS', target: '/health', headers: { origin: APP, 'access-control-request-method': 'GET' } });
  assert.equal([health.status, health.headers['access-control-allow-methods']], [204, 'GET, HEAD']);

  const run = await rawRequest(url, {
    method: 'POST',
    target: '/run',
    headers: { origin: APP, 'content-type': 'application/json', authorization: 'Bearer tok-2' },
    body: '{"input":"weather in Oslo"}',
  });
  assert.equal([run.status, run.headers['access-control-allow-origin']], [200, APP]);
  const unauthorized = await rawRequest(url, {
    method: 'POST',
    target: '/run',
    headers: { origin: APP, 'content-type': 'application/json' },
    body: '{"input":"x"}',
  });
  assert.equal([unauthorized.status, unauthorized.headers['access-control-allow-origin']], [401, APP], 'errors are readable by the page too');

  const other = await rawRequest(url, {
    method: 'OPTIONS',
    target: '/run',
    headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
  });
  assert.is(other.status, 401, 'an unlisted origin gets what any OPTIONS gets');
  assert.is(other.headers['access-control-allow-origin'], undefined);
  const unknownPath = await rawRequest(url, { method: 'OPTIONS', target: '/nope', headers: { origin: APP, 'access-control-request-method': 'POST' } });
  assert.is(unknownPath.status, 401, 'no preflight for a path the document does not declare');
});

area.scenario('without --cors-origin, and on the local UI, a preflight is refused with no CORS header', any, async (t) => {
  const plain = await serve(t);
  const preflight = await rawRequest(plain, { method: 'OPTIONS', target: '/run', headers: { origin: APP, 'access-control-request-method': 'POST' } });
  assert.equal([preflight.status, preflight.headers.allow], [405, 'POST']);
  assert.equal(
    Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-')),
    [],
  );

  const dbPath = path.join(t.cwd, 'local.db');
  const checkpointer = new SQLiteCheckpointer(dbPath);
  t.defer(() => checkpointer.close());
  const file = await newAuthFile('admin', 'correct horse');
  for (const auth of [{ mode: 'password' as const, file }, { mode: 'none' as const }]) {
    const ui = await t.serve(createUiApp({ checkpointer, traceStore: new TraceStore({ dbPath }), auth, runners: [] }));
    for (const target of ['/api/auth/login', '/api/overview', '/api/auth/status', '/']) {
      const answer = await rawRequest(ui.url, {
        method: 'OPTIONS',
        target,
        headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-csrf-token' },
      });
      assert.ok(answer.status >= 400, `${auth.mode} ${target}: ${answer.status}`);
      assert.equal(
        Object.keys(answer.headers).filter((name) => name.startsWith('access-control-')),
        [],
        `${auth.mode} ${target}: no CORS header`,
      );
    }
  }
});

/** A one-route server that answers `/run/stream` with one event and then resets or closes the connection. */
async function cuttingServer(t: ScenarioContext, how: 'close' | 'reset'): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: delta\ndata: {"type":"delta","text":"Hel"}\n\n', () => {
      if (how === 'close') res.end();
      else res.socket?.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.defer(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

area.scenario('client: a stream cut before done rejects with StreamCutError, by a close or a reset', any, async (t) => {
  for (const how of ['close', 'reset'] as const) {
    const client = new AgentClient({ baseUrl: await cuttingServer(t, how) });
    const stream = await client.stream('hi');
    assert.ok(stream.data, JSON.stringify(stream.error));
    const seen: string[] = [];
    try {
      for await (const event of stream.data) seen.push(event.type);
      assert.unreachable(`${how}: a cut stream must reject`);
    } catch (error) {
      assert.instance(error, StreamCutError, String(error));
      assert.is((error as StreamCutError).received, 1);
      assert.match((error as Error).message, /ended before its done event, after 1 event/);
    }
    assert.equal(seen, ['delta']);
  }
  // A whole stream ends without one.
  const whole = await new AgentClient({ baseUrl: await serve(t) }).stream('weather in Rome');
  const types: string[] = [];
  for await (const event of whole.data!) types.push(event.type);
  assert.is(types.at(-1), 'done');
});

area.scenario('client: an aborted run() rejects with the abort reason and the server sees the disconnect', any, async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inTool = new Promise<void>((resolve) => (entered = resolve));
  const slow = tool({
    name: 'slow',
    description: 'Waits until the test releases it',
    parameters: Type.Object({}),
    registry: false,
    execute: async () => {
      entered();
      await released;
      return 'done';
    },
  });
  const llm = new FunctionModel((messages) => (messages.at(-1)!.role === 'tool' ? 'finished' : { text: '', toolCalls: [{ name: 'slow', arguments: {} }] }));
  const agent = new Agent({ name: 'slow', llm, tools: [slow], trace: false });
  let ended!: () => void;
  const requestEnded = new Promise<void>((resolve) => (ended = resolve));
  const url = await serve(t, { onRequest: (phase) => phase === 'end' && ended() }, agent);
  t.defer(() => release());

  const controller = new AbortController();
  const call = new AgentClient({ baseUrl: url }).run('go', { signal: controller.signal });
  await inTool;
  controller.abort(new Error('the user gave up'));
  await call.then(
    () => assert.unreachable('an aborted run() must reject'),
    (error: unknown) => assert.is((error as Error).message, 'the user gave up'),
  );
  await requestEnded; // the server's response closed while the tool still waits: it saw the disconnect
  release();

  const stopped = new AbortController();
  stopped.abort();
  await new AgentClient({ baseUrl: url }).getRun('x', { signal: stopped.signal }).then(
    () => assert.unreachable('getRun with an aborted signal must reject'),
    (error: unknown) => assert.is((error as Error).name, 'AbortError'),
  );
});

area.scenario('client: errors narrowed per status at run time, validation issues reachable, undeclared answers unexpected', any, async (t) => {
  const client = new AgentClient({ baseUrl: await serve(t, { token: 'tok-3' }), token: 'tok-3' });
  const blank = await client.run('   ');
  assert.equal(blank.error, { status: 400, body: { detail: 'input must be non-empty', code: 'empty_input' } });
  const unauthorized = await new AgentClient({ baseUrl: await serve(t, { token: 'tok-4' }) }).run('hi');
  assert.ok(unauthorized.error?.status === 401 && unauthorized.error.body.code === 'unauthorized', JSON.stringify(unauthorized.error));

  // A proxy's 502 HTML page: not the contract's.
  const proxy = http.createServer((req, res) => {
    req.resume();
    res.writeHead(req.url === '/run' ? 502 : 400, { 'content-type': req.url === '/run' ? 'text/html' : 'application/json' });
    res.end(
      req.url === '/run'
        ? '<html>bad gateway</html>'
        : '{"detail":"input: must be string","code":"validation_failed","errors":[{"path":"/body/input","message":"must be string"}]}',
    );
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.defer(() => new Promise((resolve) => proxy.close(resolve)));
  const base = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
  const gateway = await new AgentClient({ baseUrl: base }).run('hi');
  assert.equal(gateway.error, { status: 502, body: { detail: 'unexpected 502 response from the served agent', code: 'internal_error' }, unexpected: true });
  const invalid = await new AgentClient({ baseUrl: base }).stream('hi');
  const error = invalid.error!;
  if (error.status === 400 && error.body.code === 'validation_failed') assert.equal(error.body.errors, [{ path: '/body/input', message: 'must be string' }]);
  else assert.unreachable(`a 400 validation_failed: ${JSON.stringify(error)}`);
});

area.run();
