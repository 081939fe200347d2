/** `put`, `getById`, `getLast`, `putWrites`: rows round-trip exactly; bad rows and duplicates are refused whole. */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { TIMESTAMP, newExecutionId, nodeRow, rejectsWith } from './fixtures.js';

export const putCases: ContractCase[] = [
  {
    group: 'put',
    name: 'put fills the defaults and returns the row as stored',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const row = await checkpointer.put({ execution_id: id, chain_name: 'c', node_id: 'a' });
      assert.match(row.checkpoint_id, /^[0-9a-f-]{36}$/);
      assert.match(row.created_at, TIMESTAMP);
      assert.deepEqual(row, {
        checkpoint_id: row.checkpoint_id,
        execution_id: id,
        chain_name: 'c',
        node_id: 'a',
        node_index: 0,
        status: 'completed',
        step_type: null,
        run_status: null,
        parent_checkpoint_id: null,
        state_snapshot: {},
        node_input: null,
        node_output: null,
        iteration: 0,
        iteration_counters: {},
        interrupt_reason: null,
        interrupt_context: null,
        agent_path: null,
        created_at: row.created_at,
      });
      assert.deepEqual(await checkpointer.getById(row.checkpoint_id), row);
    },
  },
  {
    group: 'put',
    name: 'every field round-trips, JSON values included',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const written = {
        checkpoint_id: `cp-${id}`,
        execution_id: id,
        chain_name: 'refund',
        node_id: 'run_end',
        node_index: 7,
        status: 'failed' as const,
        step_type: 'run_end' as const,
        run_status: 'failed' as const,
        parent_checkpoint_id: 'parent-1',
        state_snapshot: { nested: { list: [1, 'two', null, true, { deep: 1.5 }] }, text: 'ünïcødé "quoted"', empty: {} },
        node_input: ['an', 'array'],
        node_output: 'a plain string',
        iteration: 12,
        iteration_counters: { cycle_a_b: 3 },
        interrupt_reason: 'why',
        interrupt_context: { tool: 'refund', args: { amount: 10 } },
        agent_path: 'agent:bot/tool:refund',
        created_at: '2030-01-02T03:04:05.123456Z',
      };
      const row = await checkpointer.put(written);
      assert.deepEqual(row, written);
      assert.deepEqual(await checkpointer.getById(written.checkpoint_id), written);
      assert.deepEqual(await checkpointer.getLast(id), written);
    },
  },
  {
    group: 'put',
    name: 'a row without step_type (written before it existed) reads back with step_type null',
    async run({ checkpointer }) {
      const row = await checkpointer.put({ execution_id: newExecutionId(), chain_name: 'c', node_id: 'a', step_type: null });
      assert.equal((await checkpointer.getById(row.checkpoint_id))!.step_type, null);
    },
  },
  {
    group: 'put',
    name: 'ids are distinct and getLast is the most recent row',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const rows = [];
      for (const node of ['a', 'b', 'c']) rows.push(await checkpointer.put(nodeRow(id, node)));
      assert.equal(new Set(rows.map((r) => r.checkpoint_id)).size, 3);
      assert.ok(rows[0]!.created_at < rows[1]!.created_at && rows[1]!.created_at < rows[2]!.created_at);
      assert.deepEqual(await checkpointer.getLast(id), rows[2]);
    },
  },
  {
    group: 'getById',
    name: 'unknown ids and executions read as null',
    async run({ checkpointer }) {
      assert.equal(await checkpointer.getById('no-such-checkpoint'), null);
      assert.equal(await checkpointer.getLast('no-such-execution'), null);
    },
  },
  {
    group: 'put',
    name: 'a duplicate checkpoint_id is refused and the original kept',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const first = await checkpointer.put(nodeRow(id, 'a', { checkpoint_id: `dup-${id}` }));
      await rejectsWith(checkpointer.put(nodeRow(id, 'b', { checkpoint_id: `dup-${id}` })), 'ChainCheckpointError', 'chain_checkpoint_error', /already exists/);
      assert.deepEqual(await checkpointer.list(id), [first]);
    },
  },
  {
    group: 'put',
    name: 'malformed rows are refused naming the field, and nothing is stored',
    async run({ checkpointer }) {
      const id = newExecutionId();
      await rejectsWith(checkpointer.put({ execution_id: '', chain_name: 'c', node_id: 'a' }), 'ValidationError', 'validation_failed', /execution_id/);
      await rejectsWith(
        checkpointer.put(nodeRow(id, 'a', { state_snapshot: { when: new Map() } as never })),
        'ValidationError',
        'validation_failed',
        /state_snapshot.*Map/,
      );
      await rejectsWith(checkpointer.put(nodeRow(id, 'a', { status: 'done' as never })), 'ValidationError', 'validation_failed', /status/);
      await rejectsWith(checkpointer.put(nodeRow(id, 'a', { created_at: 'yesterday' })), 'ValidationError', 'validation_failed', /created_at/);
      assert.deepEqual(await checkpointer.list(id), []);
    },
  },
  {
    group: 'putWrites',
    name: 'putWrites stores every row in order',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const rows = await checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b'), nodeRow(id, 'c')]);
      assert.deepEqual(
        rows.map((r) => r.node_id),
        ['a', 'b', 'c'],
      );
      assert.deepEqual(await checkpointer.list(id), rows);
      assert.deepEqual(await checkpointer.getLast(id), rows[2]);
      assert.deepEqual(await checkpointer.putWrites([]), []);
    },
  },
  {
    group: 'putWrites',
    name: 'putWrites is all or nothing: one bad row stores none of the batch',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const existing = await checkpointer.put(nodeRow(id, 'a', { checkpoint_id: `taken-${id}` }));
      await rejectsWith(
        checkpointer.putWrites([nodeRow(id, 'b'), nodeRow(id, 'c', { checkpoint_id: `taken-${id}` }), nodeRow(id, 'd')]),
        'ChainCheckpointError',
        'chain_checkpoint_error',
      );
      await rejectsWith(
        checkpointer.putWrites([nodeRow(id, 'e'), nodeRow(id, 'f', { node_index: 1.5 })]),
        'ValidationError',
        'validation_failed',
        /node_index/,
      );
      assert.deepEqual(await checkpointer.list(id), [existing]);
    },
  },
];
