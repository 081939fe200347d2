import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { completeCheckpoint } from './rows.js';
import { timeOrderedId, timeOrderedIds } from './time-ordered-id.js';

const test = suite('time-ordered checkpoint ids');

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a UUID version 7 whose first 48 bits are the Unix milliseconds', () => {
  const at = Date.UTC(2026, 10, 24, 2, 30, 0, 123);
  const id = timeOrderedId(at);
  assert.match(id, V7);
  assert.is(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), at);
});

test('ids of later milliseconds sort after earlier ones, and 20,000 ids are distinct', () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => timeOrderedId(1_780_000_000_000 + Math.floor(i / 100)));
  assert.is(new Set(ids).size, ids.length);
  for (let i = 100; i < ids.length; i += 100) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  for (const id of ids.slice(0, 300)) assert.match(id, V7);
});

test('ids made one after another sort in that order, also within one millisecond', () => {
  // 5,000 ids take a few milliseconds: hundreds share each one, so the order inside a millisecond is what is tested.
  const ids = Array.from({ length: 5_000 }, () => timeOrderedId());
  const sameMillisecond = ids.filter((id, i) => i > 0 && id.slice(0, 13) === ids[i - 1]!.slice(0, 13)).length;
  assert.ok(sameMillisecond > 1000, `${sameMillisecond} ids share their millisecond with the previous one`);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  const rows = Array.from({ length: 200 }, () => completeCheckpoint({ execution_id: 'e', chain_name: 'c', node_id: 'n' }).checkpoint_id);
  assert.equal([...rows].sort(), rows, 'checkpoint ids come in write order');
});

test('a clock that steps back, or stands still, does not break the order: the counter goes on from the last id', () => {
  let now = 1_780_000_000_500;
  const next = timeOrderedIds(() => now);
  const ids = [next(), next()];
  now -= 400; // NTP steps the clock back
  ids.push(next(), next());
  now += 1000;
  ids.push(next());
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  for (const id of ids) assert.match(id, V7);
  const ms = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  assert.equal(ids.map(ms), [1_780_000_000_500, 1_780_000_000_500, 1_780_000_000_500, 1_780_000_000_500, 1_780_000_001_100]);
  // The 32-bit counter sits in bits 52-83 around the variant: consecutive ids of one millisecond differ by one.
  const counter = (id: string) => {
    const hex = id.replace(/-/g, '');
    const bits = BigInt(`0x${hex}`);
    const a = Number((bits >> 64n) & 0xfffn); // rand_a: 12 bits
    const b = Number((bits >> 42n) & 0xfffffn); // the first 20 bits of rand_b
    return ((a << 20) | b) >>> 0;
  };
  assert.is(counter(ids[1]!), counter(ids[0]!) + 1);
  assert.is(counter(ids[3]!), counter(ids[0]!) + 3);
});

test('a checkpoint written without an id gets one; a given id is kept', () => {
  assert.match(completeCheckpoint({ execution_id: 'e', chain_name: 'c', node_id: 'n' }).checkpoint_id, V7);
  assert.is(completeCheckpoint({ execution_id: 'e', chain_name: 'c', node_id: 'n', checkpoint_id: 'mine' }).checkpoint_id, 'mine');
});

test.run();
