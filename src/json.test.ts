import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cloneJson } from './json.js';

test('cloneJson copies plain JSON deeply: equal, and no object or array is shared', () => {
  const value = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', name: 'get', arguments: { city: 'Oslo', tags: ['a', { n: 1 }] } }] };
  const copy = cloneJson(value);
  assert.equal(copy, value);
  assert.is.not(copy, value);
  assert.is.not(copy.tool_calls, value.tool_calls);
  assert.is.not(copy.tool_calls[0]!.arguments, value.tool_calls[0]!.arguments);
  copy.tool_calls[0]!.arguments.city = 'Bergen';
  (copy.tool_calls[0]!.arguments.tags[1] as { n: number }).n = 2;
  assert.is(value.tool_calls[0]!.arguments.city, 'Oslo');
  assert.is((value.tool_calls[0]!.arguments.tags[1] as { n: number }).n, 1);
});

test('cloneJson copies what is not plain JSON as structuredClone does', () => {
  const when = new Date('2026-11-24T00:00:00Z');
  const copy = cloneJson({ when, map: new Map([['k', 1]]), bytes: new Uint8Array([1, 2]), nothing: null, flag: false });
  assert.ok(copy.when instanceof Date);
  assert.is.not(copy.when, when);
  assert.is(copy.when.getTime(), when.getTime());
  assert.ok(copy.map instanceof Map);
  assert.is(copy.map.get('k'), 1);
  assert.equal([...copy.bytes], [1, 2]);
  assert.is(copy.nothing, null);
  assert.is(copy.flag, false);
});

test('cloneJson copes with a cycle (deep values go to structuredClone) and with very deep values', () => {
  const cyclic: Record<string, unknown> = { name: 'loop' };
  cyclic.self = cyclic;
  const copy = cloneJson(cyclic);
  assert.is(copy.name, 'loop');
  assert.is.not(copy, cyclic);
  let deep: unknown = 'leaf';
  for (let i = 0; i < 500; i++) deep = { next: deep };
  let walked = cloneJson(deep) as { next?: unknown } | string;
  let depth = 0;
  while (typeof walked === 'object' && walked.next !== undefined) {
    walked = walked.next as typeof walked;
    depth++;
  }
  assert.is(depth, 500);
  assert.is(walked, 'leaf');
});

test.run();
