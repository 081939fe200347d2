/**
 * Trace identity (docs/adr/0009): a run under a caller's span keeps the caller's trace id and parent on the wire but
 * gets a record of its own in the store, addressed by its own trace id; the caller's trace id finds it, or lists the
 * runs when it names several. Driven through real agents, the SDK's tracer, the writer and a real store file.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { context, propagation, SpanKind, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { suite } from '../../test-support/uvu.js';
import { Agent } from '../agent/agent.js';
import { AmbiguousTraceError, NotFoundError } from '../errors.js';
import { openLocalStore } from '../store/open.js';
import { FunctionModel } from '../testing/index.js';
import { recordingServer } from '../../test-support/recording-server.js';
import { RESTTool } from '../tools/rest/rest-tool.js';
import { LeanSpan } from './lean-span.js';
import { capTraceState, extractCallerContext, injectTraceContext } from './propagation.js';
import { agentkitTracer, flushTraces, shutdownTracing, storedTraceId } from './setup.js';
import { withTraceDestination } from './spans.js';
import { TraceStore } from './trace-store.js';

const test = suite<{ dir: string }>('tracing: trace identity under a caller', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-identity-'));
});
test.afterEach(async (ctx) => {
  await flushTraces();
  await rm(ctx.dir, { recursive: true, force: true });
});
test.after(async () => {
  await shutdownTracing();
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const traceparent = (traceId = CALLER_TRACE, flags = '01') => `00-${traceId}-${CALLER_SPAN}-${flags}`;

function agent(dbPath: string, seen: Array<Record<string, string>> = []): Agent {
  const llm = new FunctionModel(() => 'done');
  // The model sees the headers an HTTP provider would send (the agent passes them in the call options).
  const complete = llm.complete.bind(llm);
  llm.complete = (request, options) => {
    seen.push({ ...options?.headers });
    return complete(request, options);
  };
  return new Agent({ name: 'callee', systemPrompt: 'Answer.', llm, traceDb: dbPath });
}

/** Run `fn` under the caller context `headers` describe. */
function underCaller<T>(dbPath: string, headers: Record<string, string>, fn: () => T): T {
  return withTraceDestination(dbPath, fn, extractCallerContext(headers));
}

function rows(dbPath: string, traceId: string) {
  const db = openLocalStore(dbPath, { readonly: true });
  try {
    return db
      .prepare('SELECT span_id, trace_id, parent_span_id, name, caller_trace_id, attributes FROM spans WHERE trace_id = ? ORDER BY start_time, rowid')
      .all(traceId) as Array<{
      span_id: string;
      trace_id: string;
      parent_span_id: string | null;
      name: string;
      caller_trace_id: string | null;
      attributes: string;
    }>;
  } finally {
    db.close();
  }
}

test("a run under a caller's span: the caller's trace on the wire, a record of its own in the store", async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const headers: Array<Record<string, string>> = [];
  let root: Span | undefined;
  const callee = agent(db, headers);
  const result = await underCaller(db, { traceparent: traceparent(), tracestate: 'vendor=abc' }, () =>
    callee.run('hi', {
      hooks: {
        beforeTurn: () => {
          root = trace.getActiveSpan();
        },
      },
    }),
  );
  assert.ok(root instanceof LeanSpan);
  // On the wire: the caller's trace id, parent and tracestate.
  assert.is(root.spanContext().traceId, CALLER_TRACE);
  assert.is(root.parentSpanContext?.spanId, CALLER_SPAN);
  assert.is(root.spanContext().traceState?.serialize(), 'vendor=abc');
  // In the store: a trace id of its own, returned to the caller, and the caller's ids as attributes.
  assert.match(result.trace_id!, /^[0-9a-f]{32}$/);
  assert.is.not(result.trace_id, CALLER_TRACE);
  assert.is(storedTraceId(root), result.trace_id);
  await flushTraces();
  const stored = rows(db, result.trace_id!);
  assert.equal(
    stored.map((r) => [r.name, r.parent_span_id === null, r.caller_trace_id]),
    [
      ['agent.callee', true, CALLER_TRACE],
      ['llm.chat_completion', false, null],
    ],
  );
  assert.is(stored[1]!.parent_span_id, stored[0]!.span_id);
  const attributes = JSON.parse(stored[0]!.attributes) as Record<string, unknown>;
  assert.equal(
    [attributes['agentkit.caller.trace_id'], attributes['agentkit.caller.span_id'], attributes['agentkit.local_trace_id']],
    [CALLER_TRACE, CALLER_SPAN, result.trace_id],
  );
  assert.equal(rows(db, CALLER_TRACE), [], "nothing is stored under the caller's trace id");
  // The model call carries our model span's context, never baggage.
  assert.is(headers.length, 1);
  assert.match(headers[0]!.traceparent!, new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
  assert.is(headers[0]!.traceparent!.split('-')[2], stored[1]!.span_id, "the model span's id");
  assert.is(headers[0]!.tracestate, 'vendor=abc');
  assert.is(headers[0]!.baggage, undefined);
  // The caller's trace id resolves to the one run recorded under it.
  const store = new TraceStore({ dbPath: db });
  assert.is(await store.resolve(CALLER_TRACE), result.trace_id);
  assert.is((await store.getTrace(CALLER_TRACE)).trace_id, result.trace_id);
});

test('two runs under one caller trace stay two records: listed, resolved, deleted and pruned separately', async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const callee = agent(db);
  const first = await underCaller(db, { traceparent: traceparent() }, () => callee.run('one'));
  const second = await underCaller(db, { traceparent: traceparent() }, () => callee.run('two'));
  assert.is.not(first.trace_id, second.trace_id);
  const store = new TraceStore({ dbPath: db });
  const listed = await store.listTraces();
  assert.equal(listed.map((t) => [t.name, t.span_count]).sort(), [
    ['agent.callee', 2],
    ['agent.callee', 2],
  ]);
  assert.equal(new Set(listed.map((t) => t.trace_id)), new Set([first.trace_id, second.trace_id]));
  assert.equal(
    (await store.runsCalledBy(CALLER_TRACE)).map((t) => t.trace_id),
    [first.trace_id, second.trace_id],
  );
  const ambiguous = await store.getTrace(CALLER_TRACE).then(
    () => assert.unreachable('a caller trace of two runs names no one trace'),
    (error: unknown) => error,
  );
  assert.instance(ambiguous, AmbiguousTraceError);
  assert.is((ambiguous as AmbiguousTraceError).code, 'trace_ambiguous');
  assert.equal((ambiguous as AmbiguousTraceError).runs, [first.trace_id, second.trace_id]);
  assert.match((ambiguous as Error).message, new RegExp(`trace id '${CALLER_TRACE}' is the caller's trace of 2 runs in .*${first.trace_id} \\(agent.callee, `));
  assert.not.match((ambiguous as Error).message, /\n/);
  // Each run is its own record.
  assert.is((await store.getTrace(first.trace_id!)).spans.length, 2);
  // Prune judges each run by its own start: only the first, made older here, goes.
  const rewrite = openLocalStore(db);
  rewrite.prepare("UPDATE spans SET start_time = '2020-01-01T00:00:00.000000Z' WHERE trace_id = ?").run(first.trace_id);
  rewrite.close();
  assert.is(await store.prune(24 * 3_600_000), 1);
  assert.equal(
    (await store.listTraces({ lastHours: 24 * 365 * 20 })).map((t) => t.trace_id),
    [second.trace_id],
  );
  // With one run left under it, the caller's trace id names that run again; deleting it empties the store.
  assert.is(await store.deleteTrace(CALLER_TRACE), second.trace_id);
  await store.getTrace(CALLER_TRACE).then(
    () => assert.unreachable('nothing left'),
    (error: unknown) => assert.instance(error, NotFoundError),
  );
});

test("a forged trace id equal to a stored run's never changes that run's record", async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const callee = agent(db);
  const victim = await callee.run('original');
  const store = new TraceStore({ dbPath: db });
  const before = await store.getTrace(victim.trace_id!);
  const forged = await underCaller(db, { traceparent: traceparent(victim.trace_id!) }, () => callee.run('forged'));
  assert.is.not(forged.trace_id, victim.trace_id);
  const after = await store.getTrace(victim.trace_id!);
  assert.equal(after, before, "the victim's record is unchanged and its id still names it");
  assert.is((await store.getTrace(forged.trace_id!)).spans[0]!.attributes['agent.input'], 'forged');
});

test("sampled=0 from the caller: the run is still recorded; its spans carry the caller's decision on", async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const headers: Array<Record<string, string>> = [];
  let flags = -1;
  const result = await underCaller(db, { traceparent: traceparent(CALLER_TRACE, '00') }, () =>
    agent(db, headers).run('unsampled', {
      hooks: {
        beforeTurn: () => {
          flags = trace.getActiveSpan()!.spanContext().traceFlags;
        },
      },
    }),
  );
  assert.is(flags, TraceFlags.NONE);
  assert.match(headers[0]!.traceparent!, /-00$/);
  assert.is((await new TraceStore({ dbPath: db }).getTrace(result.trace_id!)).spans.length, 2);
});

test("SDK spans under a caller's span start a record too, and agentkit's spans under them join it", async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const callee = agent(db);
  const result = await underCaller(db, { traceparent: traceparent() }, () =>
    trace.getTracer('app').startActiveSpan('http.request', { kind: SpanKind.SERVER }, async (span) => {
      const inner = await callee.run('inside');
      span.end();
      return { inner, stored: storedTraceId(span), own: span.spanContext().traceId };
    }),
  );
  assert.is(result.own, CALLER_TRACE);
  assert.is(result.inner.trace_id, result.stored, "the agent joined the SDK span's record");
  await flushTraces();
  assert.equal(
    rows(db, result.stored).map((r) => [r.name, r.caller_trace_id]),
    [
      ['http.request', CALLER_TRACE],
      ['agent.callee', null],
      ['llm.chat_completion', null],
    ],
  );
});

test('a malformed traceparent is ignored (a trace of its own); baggage is extracted and injected only when asked', () => {
  const bad = extractCallerContext({ traceparent: '00-xyz-00f067aa0ba902b7-01' });
  assert.is(trace.getSpanContext(bad), undefined);
  const ctx = extractCallerContext({ traceparent: traceparent(), baggage: 'tenant=acme,user=u-1' });
  assert.is(trace.getSpanContext(ctx)?.isRemote, true);
  assert.is(propagation.getBaggage(ctx)?.getEntry('tenant')?.value, 'acme');
  const span = context.with(ctx, () => agentkitTracer().startSpan('tool.x'));
  const inner = trace.setSpan(ctx, span);
  assert.equal(Object.keys(injectTraceContext({}, { context: inner })), ['traceparent']);
  assert.equal(injectTraceContext({}, { context: inner, baggage: true }).baggage, 'tenant=acme,user=u-1');
  assert.equal(injectTraceContext({ TraceParent: 'mine' }, { context: inner }), { TraceParent: 'mine' }, "the caller's own header wins");
  span.end();
});

test("a REST tool gets its tool span's traceparent; baggage only when it opts in, and never past a cross-origin redirect", async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const other = await recordingServer();
  const server = await recordingServer((req, res) => {
    if (req.path.startsWith('/away')) res.writeHead(307, { location: `http://127.0.0.1:${other.port}/landing` }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  try {
    const tools = [
      new RESTTool({ name: 'plain', url: `${server.url}/plain`, registry: false, allowHosts: ['127.0.0.1'] }),
      new RESTTool({ name: 'opted_in', url: `${server.url}/opted`, registry: false, allowHosts: ['127.0.0.1'], propagateBaggage: true }),
      new RESTTool({ name: 'redirected', url: `${server.url}/away`, registry: false, allowHosts: ['127.0.0.1'], propagateBaggage: true }),
    ];
    const llm = new FunctionModel((messages) =>
      messages.at(-1)!.role === 'user'
        ? {
            toolCalls: [
              { name: 'plain', arguments: {} },
              { name: 'opted_in', arguments: {} },
              { name: 'redirected', arguments: {} },
            ],
          }
        : 'done',
    );
    const caller = { traceparent: traceparent(), baggage: 'tenant=acme' };
    const result = await underCaller(db, caller, () => new Agent({ name: 'rest', systemPrompt: 'x', llm, tools, traceDb: db }).run('go'));
    const spans = (await new TraceStore({ dbPath: db }).getTrace(result.trace_id!)).spans;
    const toolSpan = (name: string) => spans.find((s) => s.name === `tool.${name}`)!.span_id;
    const byPath = (p: string) => server.requests.find((r) => r.path === p)!.headers;
    assert.is(byPath('/plain').traceparent, `00-${CALLER_TRACE}-${toolSpan('plain')}-01`);
    assert.is(byPath('/plain').baggage, undefined, 'no baggage for a tool that did not opt in');
    assert.is(byPath('/opted').traceparent, `00-${CALLER_TRACE}-${toolSpan('opted_in')}-01`);
    assert.is(byPath('/opted').baggage, 'tenant=acme');
    assert.is(byPath('/away').baggage, 'tenant=acme');
    assert.is(other.requests[0]!.headers.baggage, undefined, 'dropped on the cross-origin redirect');
    for (const tool of tools) await tool.close();
  } finally {
    await server.close();
    await other.close();
  }
});

test('tracestate is capped as W3C Trace Context says: 32 members, 512 characters, long members first', () => {
  assert.is(capTraceState(' a=1 ,, b=2 '), 'a=1,b=2');
  const many = Array.from({ length: 40 }, (_, i) => `k${i}=v`).join(',');
  assert.equal(
    capTraceState(many).split(','),
    Array.from({ length: 32 }, (_, i) => `k${i}=v`),
  );
  const long = `big=${'x'.repeat(200)}`;
  const short = Array.from({ length: 20 }, (_, i) => `s${i}=${'y'.repeat(20)}`);
  const capped = capTraceState([short[0], long, ...short.slice(1)].join(','));
  assert.not.ok(capped.includes('big='), 'the member over 128 characters goes first');
  assert.ok(capped.length <= 512);
  assert.is(capped.split(',').length, 20, 'then no other member had to go');
  const wide = Array.from({ length: 30 }, (_, i) => `w${String(i).padStart(2, '0')}=${'z'.repeat(20)}`).join(',');
  const cut = capTraceState(wide).split(',');
  assert.ok(cut.join(',').length <= 512);
  assert.equal(cut, wide.split(',').slice(0, cut.length), 'members from the end go next');
  const ctx = extractCallerContext({ traceparent: traceparent(), tracestate: many });
  assert.is(trace.getSpanContext(ctx)?.traceState?.serialize().split(',').length, 32);
});

test.run();
