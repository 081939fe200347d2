import * as assert from 'uvu/assert';
import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { suite } from '../../test-support/uvu.js';
import { registerSecret } from '../config/secrets.js';
import { REDACTED, isSecretKey } from './redact.js';
import type { SpanRow } from './span-record.js';
import { leanSpanRow, maskSpanRow, spanRowOf, type EventData } from './span-encoding.js';
import { LeanSpan, type LeanSpanOwner } from './lean-span.js';

const test = suite('tracing: span rows');

/** The stored row of one span, masked as the writer masks it. */
function roundTrip(
  parent: string | undefined,
  name: string,
  start: number,
  end: number | undefined,
  status: SpanStatusCode,
  attributes: Attributes,
  events: EventData[] = [],
): SpanRow {
  const row = maskSpanRow(spanRowOf('00000000000000aa', '0000000000000000000000000000000b', parent, name, start, end, status, attributes, events, isSecretKey));
  assert.equal([row.span_id, row.trace_id, row.caller_trace_id], ['00000000000000aa', '0000000000000000000000000000000b', null]);
  return row;
}

test('attributes are exactly the JSON of the attribute object, whatever their keys, values and name hold', () => {
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
  const row = leanSpanRow(span, isSecretKey);
  assert.is(row!.attributes, JSON.stringify({ ...span.attributes, ...span.storedAttributes }));
  assert.is(
    row!.attributes,
    '{"gen_ai.system":"function","gen_ai.request.messages":"[]","agentkit.llm.turn":1,"agentkit.llm.messages_base":"00000000000000ff","agentkit.llm.messages_offset":2}',
  );
  // What exporters see stays whole.
  assert.is(span.attributes['gen_ai.request.messages'], '[{"role":"user","content":"whole"}]');
});

test('a span whose name alone is not ASCII keeps every field whole', () => {
  const row = roundTrip('00000000000000cc', 'résumé ✓ 😀', 5, 6, SpanStatusCode.OK, { plain: 'ascii only', n: 2 }, [{ name: 'ü', time: [1767225600, 0] }]);
  assert.equal([row.name, row.attributes, row.parent_span_id, row.status], ['résumé ✓ 😀', '{"plain":"ascii only","n":2}', '00000000000000cc', 'OK']);
  assert.equal(JSON.parse(row.events), [{ name: 'ü', timestamp: '2026-01-01T00:00:00.000000Z', attributes: {} }]);
  assert.equal([row.start_time, row.end_time], ['1970-01-01T00:00:00.000005Z', '1970-01-01T00:00:00.000006Z']);
});

test('masking a row masks credential-shaped text in strings and in arrays, and events with it', () => {
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

test("a run's root under a caller's span keeps the caller's trace id and no stored parent; masking an unchanged row returns it", () => {
  const row = spanRowOf(
    '00000000000000ab',
    'b'.repeat(32),
    undefined,
    'agent.a',
    1,
    undefined,
    SpanStatusCode.ERROR,
    { a: 'b' },
    [],
    isSecretKey,
    'c'.repeat(32),
  );
  assert.equal([row.parent_span_id, row.end_time, row.status, row.caller_trace_id], [null, null, 'ERROR', 'c'.repeat(32)]);
  assert.is(maskSpanRow(row), row);
});

test.run();
