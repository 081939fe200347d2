import * as assert from 'uvu/assert';
import { suite } from '../../conformance/harness/uvu.js';
import { completeCheckpoint } from './rows.js';
import { timeOrderedId } from './time-ordered-id.js';

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

test('a checkpoint written without an id gets one; a given id is kept', () => {
  assert.match(completeCheckpoint({ execution_id: 'e', chain_name: 'c', node_id: 'n' }).checkpoint_id, V7);
  assert.is(completeCheckpoint({ execution_id: 'e', chain_name: 'c', node_id: 'n', checkpoint_id: 'mine' }).checkpoint_id, 'mine');
});

test.run();
