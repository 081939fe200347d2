import * as assert from 'uvu/assert';
import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { suite } from '../../test-support/uvu.js';
import { registerSecret } from '../config/secrets.js';
import { REDACTED, isSecretKey } from './redact.js';
import type { SpanRow } from './span-record.js';
import { appendLeanSpan, decodeSpanRows, SpanBatch, type EventData } from './span-encoding.js';
import { LeanSpan, type LeanSpanOwner } from './lean-span.js';

const test = suite('tracing: the span batch format');

/** Round trip of one span through a batch that holds another span before it (so offsets are exercised). */
function roundTrip(
  parent: string | undefined,
  name: string,
  start: number,
  end: number | undefined,
  status: SpanStatusCode,
  attributes: Attributes,
  events: EventData[] = [],
): SpanRow {
  const fields = new SpanBatch(64);
  fields.append('00000000000000ff', '0000000000000000000000000000000f', undefined, 'first', 1, 2, SpanStatusCode.OK, { a: 1 }, [], isSecretKey);
  fields.append('00000000000000aa', '0000000000000000000000000000000b', parent, name, start, end, status, attributes, events, isSecretKey);
  const rows = decodeSpanRows(fields.take());
  assert.is(rows.length, 2);
  assert.equal([rows[0]!.name, rows[0]!.attributes], ['first', '{"a":1}']);
  assert.equal(
    [rows[0]!.span_id, rows[0]!.trace_id, rows[0]!.start_time, rows[0]!.end_time],
    ['00000000000000ff', '0000000000000000000000000000000f', '1970-01-01T00:00:00.000001Z', '1970-01-01T00:00:00.000002Z'],
  );
  assert.equal([rows[1]!.span_id, rows[1]!.trace_id], ['00000000000000aa', '0000000000000000000000000000000b']);
  return rows[1]!;
}

test('attributes decode to exactly the JSON of the attribute object, whatever their keys, values and name hold', () => {
  const attributes: Attributes = {
    plain: 'text',
    '2': 'integer-like keys come first, as in JSON.stringify',
    'a,b:c': 'separators in a key',
    quoted: '{"role":"user","content":"say \\"hi\\"\\n"}',
    nul: 'a\u0000b\u0001c',
    unicode: 'café ✓ 😀',
    empty: '',
    n: 1.5,
    big: 1e21,
    negative: -0,
    nan: NaN,
    yes: true,
    tags: ['a', 'b'],
    numbers: [1, 2, 3],
    gone: undefined,
  };
  const row = roundTrip('00000000000000cc', 'odd\u0000name, with: separators', 1767225600000001, undefined, SpanStatusCode.UNSET, attributes);
  assert.is(row.attributes, JSON.stringify(attributes));
  assert.is(row.name, 'odd\u0000name, with: separators');
  assert.equal([row.parent_span_id, row.start_time, row.end_time, row.status], ['00000000000000cc', '2026-01-01T00:00:00.000001Z', null, 'UNSET']);
  assert.is(roundTrip(undefined, 'n', 1, 2, SpanStatusCode.OK, {}).attributes, '{}');
});

test("a lean span's row holds its attributes with the stored values in place of theirs, in the same key order as a spread", () => {
  const owner = { spanEnded: () => {} } as unknown as LeanSpanOwner;
  const span = new LeanSpan(
    owner,
    'llm.chat_completion',
    { traceId: '0000000000000000000000000000000b', spanId: '00000000000000aa', traceFlags: 1 },
    undefined,
    ':memory:',
    SpanKind.INTERNAL,
    1,
  );
  span.setAttributes({ 'gen_ai.system': 'function', 'gen_ai.request.messages': '[{"role":"user","content":"whole"}]', 'agentkit.llm.turn': 1 });
  span.storedAttributes = { 'gen_ai.request.messages': '[]', 'agentkit.llm.messages_base': '00000000000000ff', 'agentkit.llm.messages_offset': 2 };
  span.end(2);
  const batch = new SpanBatch(64);
  appendLeanSpan(batch, span, isSecretKey);
  const [row] = decodeSpanRows(batch.take());
  assert.is(row!.attributes, JSON.stringify({ ...span.attributes, ...span.storedAttributes }));
  assert.is(
    row!.attributes,
    '{"gen_ai.system":"function","gen_ai.request.messages":"[]","agentkit.llm.turn":1,"agentkit.llm.messages_base":"00000000000000ff","agentkit.llm.messages_offset":2}',
  );
  // What exporters see stays whole.
  assert.is(span.attributes['gen_ai.request.messages'], '[{"role":"user","content":"whole"}]');
});

test('a span whose name alone is not ASCII keeps every field whole (each field measured in bytes on its own)', () => {
  const row = roundTrip('00000000000000cc', 'résumé ✓ 😀', 5, 6, SpanStatusCode.OK, { plain: 'ascii only', n: 2 }, [{ name: 'ü', time: [1767225600, 0] }]);
  assert.equal([row.name, row.attributes, row.parent_span_id, row.status], ['résumé ✓ 😀', '{"plain":"ascii only","n":2}', '00000000000000cc', 'OK']);
  assert.equal(JSON.parse(row.events), [{ name: 'ü', timestamp: '2026-01-01T00:00:00.000000Z', attributes: {} }]);
  assert.equal([row.start_time, row.end_time], ['1970-01-01T00:00:00.000005Z', '1970-01-01T00:00:00.000006Z']);
});

test('decoding masks credential-shaped text in strings and in arrays, and events with it', () => {
  const row = roundTrip(
    undefined,
    'n',
    1,
    2,
    SpanStatusCode.OK,
    { note: 'key sk-abcdefghijklmnopqrstuv', list: ['Bearer abcdefghijkl', 'ok'], clean: 'Basic' },
    [{ name: 'e', time: [1767225600, 1000], attributes: { password: 'p', text: 'Bearer abcdefghijkl' } }],
  );
  assert.equal(JSON.parse(row.attributes), { note: `key ${REDACTED}`, list: [`Bearer ${REDACTED}`, 'ok'], clean: 'Basic' });
  assert.equal(JSON.parse(row.events), [
    { name: 'e', timestamp: '2026-01-01T00:00:00.000001Z', attributes: { password: REDACTED, text: `Bearer ${REDACTED}` } },
  ]);
  assert.equal([row.parent_span_id, row.status], [null, 'OK']);
});

test('a registered secret is masked in a stored row even where JSON escapes it (a quote, a backslash)', () => {
  const secret = 'pa"ss\\word-4711';
  registerSecret(secret);
  const row = roundTrip(undefined, 'n', 1, 2, SpanStatusCode.OK, { note: `my key is ${secret}, keep it`, plain: secret, list: ['ok', secret] });
  assert.not.match(row.attributes, 'word-4711');
  assert.equal(JSON.parse(row.attributes), { note: `my key is ${REDACTED}, keep it`, plain: REDACTED, list: ['ok', REDACTED] });
});

test('one batch buffer holds many spans, grows past its first size, and can be taken again', () => {
  const batch = new SpanBatch(64);
  const big = `${'x'.repeat(50_000)}✓`;
  for (let i = 0; i < 3; i++)
    batch.append(`000000000000000${i}`, 'a'.repeat(32), undefined, `s${i}`, 1, 2, SpanStatusCode.OK, { payload: big, i }, [], isSecretKey);
  assert.is(batch.count, 3);
  const rows = decodeSpanRows(batch.take());
  assert.equal(
    rows.map((r) => [r.name, (JSON.parse(r.attributes) as { payload: string }).payload === big]),
    [
      ['s0', true],
      ['s1', true],
      ['s2', true],
    ],
  );
  assert.is(batch.count, 0);
  assert.is(batch.byteLength, 0);
  batch.append('00000000000000ab', 'b'.repeat(32), 'p', 'again', 1, undefined, SpanStatusCode.ERROR, {}, [], isSecretKey);
  assert.equal(
    decodeSpanRows([batch.take()]).map((r) => [r.name, r.parent_span_id, r.end_time, r.status]),
    [['again', 'p', null, 'ERROR']],
  );
});

test('a batch filled to its last byte still closes every attributes object (no attributes, then big ones)', () => {
  for (let fill = 0; fill < 80; fill++) {
    const batch = new SpanBatch(64);
    batch.append('x'.repeat(fill), 't', undefined, 'n', 1, 2, SpanStatusCode.OK, {}, [], isSecretKey);
    batch.append('1', 't', undefined, 'n', 1, 2, SpanStatusCode.OK, { a: 'é'.repeat(fill), b: fill }, [], isSecretKey);
    const rows = decodeSpanRows(batch.take());
    assert.equal(
      rows.map((r) => r.attributes),
      ['{}', JSON.stringify({ a: 'é'.repeat(fill), b: fill })],
    );
  }
});

test('a truncated batch is refused, not half-read', () => {
  const batch = new SpanBatch();
  batch.append('00000000000000ab', 'b'.repeat(32), undefined, 'n', 1, 2, SpanStatusCode.OK, { a: 'b' }, [], isSecretKey);
  const bytes = batch.take();
  assert.throws(() => decodeSpanRows(bytes.subarray(0, bytes.length - 3)), /malformed span batch/);
});

test.run();
