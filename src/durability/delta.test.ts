import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { ChainCheckpointError } from './errors.js';
import {
  DeltaWriter,
  ResolvedStateCache,
  SNAPSHOT_MIN_BYTES,
  applyDelta,
  jsonEqual,
  outputFromState,
  outputKeys,
  resolveStatesSync,
  type StoredRow,
} from './delta.js';
import type { JsonRecord } from './json.js';

const test = suite('delta checkpoints (encoding)');

/** Encode `states` as rows of execution e1 and resolve them back, as a store would. */
function roundTrip(states: JsonRecord[]): { stored: StoredRow[]; read: JsonRecord[] } {
  const writer = new DeltaWriter();
  const stored = states.map((state, i) => {
    const encoded = writer.encode({ checkpoint_id: `c${i}`, execution_id: 'e1', step_type: 'node', state_snapshot: state });
    return { checkpoint_id: `c${i}`, delta_base: encoded.deltaBase, state_snapshot: JSON.parse(encoded.text) as unknown };
  });
  const resolved = resolveStatesSync(stored, () => assert.unreachable('every base is in the batch') as never);
  return { stored, read: stored.map((row) => resolved.get(row.checkpoint_id)!) };
}

test('an agent history grows by appended messages: each row stores only its new messages, and reads back whole', () => {
  const messages: JsonRecord[] = [
    { role: 'system', content: 'You help.' },
    { role: 'user', content: 'hi' },
  ];
  const states: JsonRecord[] = [];
  for (let turn = 0; turn < 5; turn++) {
    // The same array, pushed onto between rows (what an Agent does), so the writer must keep its own copy.
    states.push({ messages, turn });
    messages.push({ role: 'tool', tool_call_id: `t${turn}`, content: 'x'.repeat(100) });
    states[turn] = JSON.parse(JSON.stringify(states[turn])) as JsonRecord;
  }
  const writer = new DeltaWriter();
  const live = { messages: [{ role: 'user', content: 'hi' }] as JsonRecord[], turn: 0 };
  assert.is(writer.encode({ checkpoint_id: 'a', execution_id: 'e', step_type: 'llm_call', state_snapshot: live }).deltaBase, null, 'first row: full');
  live.messages.push({ role: 'assistant', content: 'hello' });
  const second = writer.encode({ checkpoint_id: 'b', execution_id: 'e', step_type: 'llm_call', state_snapshot: { ...live, turn: 1 } });
  assert.is(second.deltaBase, 'a');
  assert.equal(JSON.parse(second.text), { set: { turn: 1 }, append: { messages: [{ role: 'assistant', content: 'hello' }] } });
  const { read } = roundTrip(states);
  assert.equal(read, states);
});

test('chain state: changed keys are set, removed keys unset, text appended, equal values (even re-created) omitted', () => {
  const states: JsonRecord[] = [
    { input: 'go', log: 'a', items: [{ n: 1 }], nested: { k: [1, 2] }, when: new Date('2026-01-01T00:00:00Z') },
    { input: 'go', log: 'ab', items: [{ n: 1 }, { n: 2 }], nested: { k: [1, 2] }, when: '2026-01-01T00:00:00.000Z', extra: true },
    { input: 'stop', log: 'x', items: [{ n: 2 }], nested: { k: [1, 3] }, when: '2026-01-01T00:00:00.000Z' },
  ];
  const { stored, read } = roundTrip(states);
  assert.equal(
    stored[1]!.state_snapshot,
    { set: { extra: true }, append: { log: 'b', items: [{ n: 2 }] } },
    're-created equal values (the Date and its text) are not stored again',
  );
  assert.equal(stored[2]!.state_snapshot, { set: { input: 'stop', log: 'x', items: [{ n: 2 }], nested: { k: [1, 3] } }, unset: ['extra'] });
  assert.equal(read, JSON.parse(JSON.stringify(states)));
});

test('snapshots: a growing history is written once; a key rewritten at every step gets fresh snapshots (bounded reads)', () => {
  const writer = new DeltaWriter();
  const messages: string[] = [];
  let bytes = 0;
  const fulls: number[] = [];
  for (let i = 0; i < 400; i++) {
    messages.push('m'.repeat(1024));
    const stored = writer.encode({ checkpoint_id: `c${i}`, execution_id: 'grow', step_type: 'node', state_snapshot: { messages } });
    if (stored.deltaBase === null) fulls.push(i);
    bytes += stored.text.length;
  }
  assert.equal(fulls, [0], 'appends never outgrow the state they build');
  assert.ok(bytes < 1.05 * 400 * 1024, `stored ${bytes} bytes for ${400 * 1024} of payload`);

  const rewrites: number[] = [];
  for (let i = 0; i < 200; i++) {
    const stored = writer.encode({ checkpoint_id: `r${i}`, execution_id: 'rewrite', step_type: 'node', state_snapshot: { blob: String(i).repeat(2048) } });
    if (stored.deltaBase === null) rewrites.push(i);
  }
  assert.ok(rewrites.length >= 10, `snapshots at ${rewrites.join(', ')}`);
  const gaps = rewrites.slice(1).map((r, i) => r - rewrites[i]!);
  // Each row rewrites a ~4-6 KB blob: a snapshot once the deltas pass max(16 KB, 4 x the state), every 5 rows or so.
  assert.ok(
    Math.max(...gaps) <= Math.ceil(SNAPSHOT_MIN_BYTES / 2048) + 1 && Math.min(...gaps) >= 2,
    `replay between snapshots stays bounded (gaps ${gaps.join(', ')})`,
  );
});

test('a node output made of state keys is stored as those keys', () => {
  const log = ['a', 'b'];
  const state = { input: 'x', log };
  assert.equal(outputKeys({ state_snapshot: state, node_output: { log } }), ['log']);
  assert.is(outputKeys({ state_snapshot: state, node_output: { log: [...log] } }), null, 'an equal copy is not the state value');
  assert.is(outputKeys({ state_snapshot: state, node_output: 'text' }), null);
  assert.is(outputKeys({ state_snapshot: state, node_output: {} }), null);
  const output = outputFromState(state, '["log"]', 'c1');
  assert.equal(output, { log: ['a', 'b'] });
  (output.log as string[]).push('c');
  assert.equal(log, ['a', 'b'], 'the output read back is a copy');
  assert.throws(
    () => outputFromState(state, '["gone"]', 'c1'),
    (e: unknown) => /checkpoint 'c1' cannot be read: its output names state key 'gone'/.test((e as Error).message),
  );
});

test('a finished run and a forgotten execution start again from a full snapshot', () => {
  const writer = new DeltaWriter();
  const row = (id: string, step_type: string | null = 'node') => writer.encode({ checkpoint_id: id, execution_id: 'e', step_type, state_snapshot: { a: id } });
  assert.is(row('1').deltaBase, null);
  assert.is(row('2').deltaBase, '1');
  writer.forget('e');
  assert.is(row('3').deltaBase, null);
  assert.is(row('4', 'run_end').deltaBase, '3');
  assert.is(row('5').deltaBase, null, 'nothing is remembered after a run_end row');
});

test('reading: bases fetched from the store, a missing base or a bad delta is a clear error', () => {
  const stored: StoredRow[] = [
    { checkpoint_id: 'c0', delta_base: null, state_snapshot: { list: [1], s: 'a' } },
    { checkpoint_id: 'c1', delta_base: 'c0', state_snapshot: { append: { list: [2], s: 'b' } } },
    { checkpoint_id: 'c2', delta_base: 'c1', state_snapshot: { append: { list: [3] }, unset: ['s'] } },
  ];
  const fetched: string[][] = [];
  const states = resolveStatesSync([stored[2]!], (ids) => {
    fetched.push(ids);
    return [stored[1]!, stored[0]!];
  });
  assert.equal(fetched, [['c1']]);
  assert.equal(states.get('c2'), { list: [1, 2, 3] });
  assert.throws(
    () => resolveStatesSync([stored[2]!], () => [stored[1]!]),
    (e: unknown) => e instanceof ChainCheckpointError && /checkpoint 'c1' cannot be read: its base checkpoint 'c0' is missing/.test((e as Error).message),
  );
  assert.throws(
    () => applyDelta({ s: 1 }, { append: { s: 'x' } }, 'cx'),
    (e: unknown) => /checkpoint 'cx' cannot be read: its delta appends to 's'/.test((e as Error).message),
  );
  assert.throws(
    () => applyDelta({ s: 1 }, { s: 2 }, 'cy'),
    (e: unknown) => /checkpoint 'cy' cannot be read: its delta has an unknown part 's'/.test((e as Error).message),
  );
  // Rows of one result do not share objects: a caller may modify one without changing another.
  const both = resolveStatesSync(stored, () => []);
  (both.get('c1')!.list as number[]).push(99);
  assert.equal(both.get('c2'), { list: [1, 2, 3] });
  assert.equal(both.get('c0'), { list: [1], s: 'a' });
});

test('reading forward in batches: the last state read per execution is remembered, so the next batch fetches no chain', () => {
  const stored: StoredRow[] = [
    { checkpoint_id: 'c0', delta_base: null, state_snapshot: { list: [1] } },
    ...Array.from({ length: 5 }, (_, i) => ({ checkpoint_id: `c${i + 1}`, delta_base: `c${i}`, state_snapshot: { append: { list: [i + 2] } } })),
  ];
  const byId = new Map(stored.map((row) => [row.checkpoint_id, row]));
  const chain = (ids: string[]) => {
    const out: StoredRow[] = [];
    for (let id: string | null = ids[0]!; id; id = byId.get(id)!.delta_base) out.push(byId.get(id)!);
    return out;
  };
  const cache = new ResolvedStateCache();
  const fetched: string[][] = [];
  const read = (rows: StoredRow[]) => {
    const states = resolveStatesSync(
      rows,
      (ids) => {
        fetched.push(ids);
        return chain(ids);
      },
      cache,
    );
    cache.rememberLast(
      rows.map((row) => ({ checkpoint_id: row.checkpoint_id, execution_id: 'e1' })),
      states,
    );
    return states;
  };
  // The first batch starts mid-chain: its base chain is fetched once.
  const first = read(stored.slice(2, 4));
  assert.equal(fetched, [['c1']]);
  assert.equal(first.get('c3'), { list: [1, 2, 3, 4] });
  // A caller changing what it was handed changes neither the cache nor the next batch.
  (first.get('c3')!.list as number[]).push(99);
  const second = read(stored.slice(4, 6));
  assert.equal(fetched, [['c1']], 'the second batch is built on the remembered state of c3: nothing fetched');
  assert.equal(second.get('c4'), { list: [1, 2, 3, 4, 5] });
  assert.equal(second.get('c5'), { list: [1, 2, 3, 4, 5, 6] });
  // A single row built on a remembered state is a copy too.
  (second.get('c5')!.list as number[]).push(98);
  const alone = resolveStatesSync(
    [{ checkpoint_id: 'c6', delta_base: 'c5', state_snapshot: { append: { list: [7] } } }],
    () => assert.unreachable('c5 is remembered') as never,
    cache,
  );
  assert.equal(alone.get('c6'), { list: [1, 2, 3, 4, 5, 6, 7] });
  (alone.get('c6')!.list as number[]).push(97);
  assert.equal(resolveStatesSync([{ checkpoint_id: 'c6', delta_base: 'c5', state_snapshot: { append: { list: [7] } } }], () => [], cache).get('c6'), {
    list: [1, 2, 3, 4, 5, 6, 7],
  });
  // Without the cache the same batch fetches its chain again.
  resolveStatesSync(stored.slice(4, 6), (ids) => {
    fetched.push(ids);
    return chain(ids);
  });
  assert.equal(fetched, [['c1'], ['c3']]);
});

test('the remembered states are bounded: the least recently read execution is forgotten first', () => {
  const cache = new ResolvedStateCache();
  for (let i = 0; i < 300; i++) cache.rememberLast([{ checkpoint_id: `x${i}`, execution_id: `e${i}` }], new Map([[`x${i}`, { i }]]));
  assert.is(cache.get('x0'), undefined);
  assert.is(cache.get('x43'), undefined);
  assert.equal(cache.get('x44'), { i: 44 });
  assert.equal(cache.get('x299'), { i: 299 });
  // A later row of an execution replaces its earlier one.
  cache.rememberLast([{ checkpoint_id: 'y', execution_id: 'e299' }], new Map([['y', { i: -1 }]]));
  assert.is(cache.get('x299'), undefined);
  assert.equal(cache.get('y'), { i: -1 });
});

test('jsonEqual compares as JSON', () => {
  assert.ok(jsonEqual({ a: 1, b: undefined }, { a: 1 }));
  assert.ok(jsonEqual(new Date(0), '1970-01-01T00:00:00.000Z'));
  assert.not.ok(jsonEqual({ a: 1 }, { a: 2 }));
  assert.not.ok(jsonEqual([1, 2], [1, 2, 3]));
  assert.not.ok(jsonEqual(1, '1'));
  assert.not.ok(jsonEqual({ a: [1] }, { a: { 0: 1 } }));
});

test('a refused appended item is named by its index in the whole array, also when the caller pushes onto the stored array', () => {
  const writer = new DeltaWriter();
  const messages: unknown[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ];
  writer.encode({ checkpoint_id: 'a', execution_id: 'e', step_type: 'llm_call', state_snapshot: { messages } });
  // The same array, grown in place (what an Agent does): the writer's own copy says where the new items start.
  messages.push({ role: 'tool', content: 'ok' }, { role: 'tool', content: new Map() });
  assert.throws(
    () => writer.encode({ checkpoint_id: 'b', execution_id: 'e', step_type: 'llm_call', state_snapshot: { messages } }),
    (error: Error) =>
      error.name === 'ValidationError' &&
      error.message ===
        'checkpoint field state_snapshot is not JSON ($.state_snapshot.messages[3].content: a Map instance (return a plain object, or give the class a toJSON()))',
  );
});

test.run();
