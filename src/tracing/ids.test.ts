import * as assert from 'uvu/assert';
import { trace } from '@opentelemetry/api';
import { suite } from '../../test-support/uvu.js';
import { HexIdGenerator, timeOrderedTraceId } from './ids.js';
import { agentkitTracer, ensureTracing } from './setup.js';

const test = suite('tracing: trace and span ids');

const millisOf = (traceId: string) => parseInt(traceId.slice(0, 12), 16);

test('a trace id is 32 lowercase hex characters that start with the milliseconds it was made at', () => {
  for (const ms of [1, 65535, 65536, 1767225600123, 2 ** 48 - 1]) {
    const id = timeOrderedTraceId(ms);
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.is(millisOf(id), ms);
  }
  const before = Date.now();
  const id = new HexIdGenerator().generateTraceId();
  assert.ok(millisOf(id) >= before && millisOf(id) <= Date.now(), `${id} does not carry the time it was made`);
});

test('trace ids sort by the time they were made, and ids of the same millisecond differ in their random part', () => {
  const ids = [1767225600000, 1767225600001, 1767225665536, 1767229999999].map((ms) => timeOrderedTraceId(ms));
  assert.equal([...ids].sort(), ids);
  const same = new Set(Array.from({ length: 2000 }, () => timeOrderedTraceId(1767225600000)));
  assert.is(same.size, 2000);
  // The 20 characters after the time vary (80 random bits), not only the last few.
  const tails = new Set([...same].map((id) => id.slice(12, 20)));
  assert.ok(tails.size > 1900, `only ${tails.size} distinct random prefixes`);
});

test('spans of a new trace get a time-ordered trace id; span ids stay 16 random hex characters', () => {
  ensureTracing();
  const before = Date.now();
  const span = agentkitTracer().startSpan('ids');
  span.end();
  const { traceId, spanId } = span.spanContext();
  assert.match(traceId, /^[0-9a-f]{32}$/);
  assert.ok(millisOf(traceId) >= before && millisOf(traceId) <= Date.now(), `${traceId} does not start with the time`);
  assert.match(spanId, /^[0-9a-f]{16}$/);
  assert.is.not(spanId, '0000000000000000');
  assert.ok(trace.isSpanContextValid(span.spanContext()));
});

test.run();
