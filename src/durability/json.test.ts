import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { jsonForm, nonJsonReason } from './json.js';

const test = suite('JSON values');

test('JSON values pass, including toJSON objects and undefined properties', () => {
  for (const value of [null, 'x', 0, -1.5, true, [], {}, { a: [1, { b: null }], c: undefined }, new Date(0), Object.create(null)]) {
    assert.is(nonJsonReason(value), null, JSON.stringify(value));
  }
  assert.equal(jsonForm({ at: new Date(0), gone: undefined }), { at: '1970-01-01T00:00:00.000Z' });
});

test('values JSON would change are named with their path', () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  class Receipt {
    id = 'r1';
  }
  const cases: Array<[unknown, string]> = [
    [undefined, '$: undefined'],
    [Number.NaN, '$: NaN is not a finite number'],
    [{ a: [1, Infinity] }, '$.a[1]: Infinity is not a finite number'],
    [{ n: 10n }, '$.n: a bigint'],
    [{ f: () => 1 }, '$.f: a function'],
    [{ s: Symbol('x') }, '$.s: a symbol'],
    [{ m: new Map() }, '$.m: a Map instance (return a plain object, or give the class a toJSON())'],
    [[new Set([1])], '$[0]: a Set instance (return a plain object, or give the class a toJSON())'],
    [new Receipt(), '$: a Receipt instance (return a plain object, or give the class a toJSON())'],
    [circular, '$.self: a circular reference'],
  ];
  for (const [value, reason] of cases) assert.is(nonJsonReason(value), reason);
});

test('the same object twice (not a cycle) is fine', () => {
  const shared = { x: 1 };
  assert.is(nonJsonReason({ a: shared, b: [shared, shared] }), null);
});

test.run();
