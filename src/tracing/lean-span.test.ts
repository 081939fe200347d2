import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { suite } from '../../test-support/uvu.js';
import { LeanSpan } from './lean-span.js';
import { exportable } from './otlp.js';
import { REDACTED } from './redact.js';
import { agentkitTracer, ensureTracing, flushTraces } from './setup.js';
import { withSpan, withTraceDestination } from './spans.js';
import { TraceStore } from './trace-store.js';

const test = suite<{ dir: string }>('tracing: lean spans', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-lean-'));
  ensureTracing();
});
test.afterEach(async (ctx) => {
  await flushTraces();
  await rm(ctx.dir, { recursive: true, force: true });
});

function lean(span: Span): LeanSpan {
  assert.instance(span, LeanSpan);
  return span as LeanSpan;
}

test('at most 128 attributes (new keys past it dropped and counted, known keys still updated) and 128 events (oldest dropped)', ({ dir }) => {
  const span = lean(withTraceDestination(path.join(dir, 'limits.db'), () => agentkitTracer().startSpan('chain.limits')));
  for (let i = 0; i < 130; i++) span.setAttribute(`k${i}`, i);
  span.setAttribute('k0', 'updated');
  assert.is(Object.keys(span.attributes).length, 128);
  assert.equal([span.attributes.k0, span.attributes.k127, span.attributes.k128], ['updated', 127, undefined]);
  assert.is(span.droppedAttributesCount, 2);
  for (let i = 0; i < 130; i++) span.addEvent(`e${i}`);
  assert.is(span.events.length, 128);
  assert.equal([span.events[0]!.name, span.events.at(-1)!.name], ['e2', 'e129']);
  assert.is(span.droppedEventsCount, 2);
  span.end();
});

test('the span honours the API: nothing changes it after end, a second end is ignored', ({ dir }) => {
  const span = lean(withTraceDestination(path.join(dir, 'a.db'), () => agentkitTracer().startSpan('chain.x', { attributes: { early: 1 } })));
  assert.ok(span.isRecording());
  span.setAttribute('before', 'yes');
  span.end();
  const end = span.endMillis;
  assert.not.ok(span.isRecording());
  span.setAttribute('after', 'no');
  span.setAttributes({ also: 'no' });
  span.addEvent('late');
  span.setStatus({ code: SpanStatusCode.ERROR, message: 'late' });
  span.updateName('renamed');
  span.end();
  assert.equal(span.attributes, { early: 1, before: 'yes' });
  assert.equal(span.events, []);
  assert.is(span.status.code, SpanStatusCode.UNSET);
  assert.is(span.name, 'chain.x');
  assert.is(span.endMillis, end);
});

test('attributes: invalid values dropped, secret-keyed values redacted as they are set', () => {
  const span = lean(agentkitTracer().startSpan('chain.attrs'));
  span.setAttributes({
    n: 3,
    ok: true,
    tags: ['a', 'b'],
    mixed: ['a', 1] as unknown as string[],
    nothing: undefined,
    api_key: 'sk-live',
    'http.request.header.authorization': 'Bearer x',
  });
  span.setAttribute('', 'empty key');
  span.setAttribute('object', { a: 1 } as unknown as string);
  span.end();
  assert.equal(span.attributes, { n: 3, ok: true, tags: ['a', 'b'], api_key: REDACTED, 'http.request.header.authorization': REDACTED });
});

test('status: UNSET is never set, OK is final, ERROR keeps a string message', () => {
  const a = lean(agentkitTracer().startSpan('chain.a'));
  a.setStatus({ code: SpanStatusCode.ERROR, message: 'bad' });
  assert.equal(a.status, { code: SpanStatusCode.ERROR, message: 'bad' });
  a.setStatus({ code: SpanStatusCode.UNSET });
  assert.is(a.status.code, SpanStatusCode.ERROR);
  a.setStatus({ code: SpanStatusCode.OK, message: 'dropped' });
  assert.equal(a.status, { code: SpanStatusCode.OK });
  a.setStatus({ code: SpanStatusCode.ERROR, message: 'too late' });
  assert.equal(a.status, { code: SpanStatusCode.OK });
  a.end();
});

test('recordException adds an exception event (type, message, stack); events keep explicit times', () => {
  const span = lean(agentkitTracer().startSpan('chain.fails'));
  const error = new TypeError('boom');
  span.recordException(error);
  span.recordException('just text');
  span.addEvent('at', { auth_token: 'x' }, new Date(Date.UTC(2026, 0, 1)));
  span.end();
  assert.equal(
    span.events.map((e) => e.name),
    ['exception', 'exception', 'at'],
  );
  assert.equal(span.events[0]!.attributes, { 'exception.type': 'TypeError', 'exception.message': 'boom', 'exception.stacktrace': error.stack! });
  assert.equal(span.events[1]!.attributes, { 'exception.message': 'just text' });
  assert.equal(span.events[2]!.time, [1767225600, 0]);
  assert.equal(span.events[2]!.attributes, { auth_token: REDACTED }, 'event attributes are key-redacted too');
});

test('it is a ReadableSpan an exporter can take: HrTimes, duration, resource, scope, kind', () => {
  const span = lean(agentkitTracer().startSpan('chain.read', { startTime: Date.UTC(2026, 0, 1) }));
  span.end(Date.UTC(2026, 0, 1) + 1500.25);
  const readable: ReadableSpan = span;
  assert.equal(readable.startTime, [1767225600, 0]);
  assert.equal(readable.endTime, [1767225601, 500250000]);
  assert.equal(readable.duration, [1, 500250000]);
  assert.ok(readable.ended);
  assert.is(readable.instrumentationScope.name, 'agentkit');
  assert.ok(readable.resource.attributes['service.name'], 'the default resource names a service');
  assert.equal(readable.links, []);
});

test('an end before the start becomes a zero duration', () => {
  const span = lean(agentkitTracer().startSpan('chain.backwards'));
  span.end(span.startMillis - 5);
  assert.is(span.endMillis, span.startMillis);
});

test('active span, context propagation, and third-party child spans under a lean parent share its trace and store', async ({ dir }) => {
  const file = path.join(dir, 'nested.db');
  const other = trace.getTracer('third-party');
  let ids: { root: string; trace: string; thirdParty: string; grandchild: string } | undefined;
  await withSpan('agent.outer', { dbPath: file }, async (root) => {
    assert.is(trace.getActiveSpan(), root, 'the lean span is the active span');
    await other.startActiveSpan('http.get', async (child) => {
      assert.is(child.spanContext().traceId, root.spanContext().traceId);
      assert.not.instance(child, LeanSpan, "the third-party span is the SDK's");
      await withSpan('tool.inner', {}, async (grandchild) => {
        ids = {
          root: root.spanContext().spanId,
          trace: root.spanContext().traceId,
          thirdParty: child.spanContext().spanId,
          grandchild: grandchild.spanContext().spanId,
        };
      });
      child.end();
    });
  });
  const spans = await new TraceStore({ dbPath: file }).spans(ids!.trace);
  // Sorted by name: the SDK's own start times have millisecond precision, so the third-party span may sort first.
  assert.equal(spans.map((s) => [s.name, s.span_id, s.parent_span_id, s.status]).sort(), [
    ['agent.outer', ids!.root, null, 'OK'],
    ['http.get', ids!.thirdParty, ids!.root, 'UNSET'],
    ['tool.inner', ids!.grandchild, ids!.thirdParty, 'OK'],
  ]);
  const [outer, , inner] = spans.sort((a, b) => a.name.localeCompare(b.name));
  assert.ok(outer!.start_time <= inner!.start_time && inner!.end_time! <= outer!.end_time!, 'a lean child lies within its lean ancestor');
});

test("a lean span under a third-party root goes to the root's store", async ({ dir }) => {
  const file = path.join(dir, 'root.db');
  const root = withTraceDestination(file, () => trace.getTracer('third-party').startSpan('chain.root'));
  await withSpan('agent.child', { parent: trace.setSpan(context.active(), root) }, async () => undefined);
  root.end();
  const [summary] = await new TraceStore({ dbPath: file }).listTraces();
  assert.equal([summary!.name, summary!.span_count, summary!.trace_id], ['chain.root', 2, root.spanContext().traceId]);
});

test('under suppressed tracing the span records nothing', async ({ dir }) => {
  const file = path.join(dir, 'quiet.db');
  const span = agentkitTracer().startSpan('chain.quiet', {}, suppressTracing(context.active()));
  assert.not.instance(span, LeanSpan);
  assert.not.ok(span.isRecording());
  await withSpan('agent.quiet', { dbPath: file, parent: suppressTracing(context.active()) }, async (s) => assert.not.ok(s.isRecording()));
  assert.equal(await new TraceStore({ dbPath: file }).listTraces(), []);
});

test('OTLP gets spans redacted like local.db: the span itself when clean, a redacted view otherwise', () => {
  const clean = lean(agentkitTracer().startSpan('chain.clean', { attributes: { a: 'plain' } }));
  clean.end();
  assert.is(exportable(clean), clean);
  const leaky = lean(agentkitTracer().startSpan('chain.leaky', { attributes: { prompt: 'use sk-abcdefghijklmnopqrstuv', tags: ['Bearer abcdefghijkl'] } }));
  leaky.recordException(new Error('rejected key sk-abcdefghijklmnopqrstuv'));
  leaky.setStatus({ code: SpanStatusCode.ERROR, message: 'rejected key sk-abcdefghijklmnopqrstuv' });
  leaky.end();
  const view = exportable(leaky);
  assert.equal(view.attributes, { prompt: `use ${REDACTED}`, tags: [`Bearer ${REDACTED}`] });
  assert.is(view.events[0]!.attributes!['exception.message'], `rejected key ${REDACTED}`);
  assert.equal(view.status, { code: SpanStatusCode.ERROR, message: `rejected key ${REDACTED}` });
  assert.is(view.name, 'chain.leaky');
  assert.equal(view.spanContext(), leaky.spanContext());
  assert.equal(view.startTime, leaky.startTime);
  assert.match(String(leaky.attributes.prompt), /sk-/, 'the span itself is left alone');
});

test.run();
