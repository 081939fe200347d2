/** `list`: one execution's rows in write order, limited (default 100), newest first on request. */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { newExecutionId, nodeRow, rejectsWith } from './fixtures.js';

export const listCases: ContractCase[] = [
  {
    group: 'list',
    name: 'rows of one execution, oldest first, other executions left out',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const other = newExecutionId();
      const a = await checkpointer.put(nodeRow(id, 'a'));
      await checkpointer.put(nodeRow(other, 'x'));
      const b = await checkpointer.put(nodeRow(id, 'b', { node_index: 1 }));
      const c = await checkpointer.put(nodeRow(id, 'a', { node_index: 0 }));
      assert.deepEqual(await checkpointer.list(id), [a, b, c]);
      assert.deepEqual(await checkpointer.list(id, { newestFirst: true }), [c, b, a]);
      assert.deepEqual(await checkpointer.list(id, { limit: 2 }), [a, b]);
      assert.deepEqual(await checkpointer.list(id, { limit: 2, newestFirst: true }), [c, b]);
      assert.deepEqual(await checkpointer.list('no-such-execution'), []);
    },
  },
  {
    group: 'list',
    name: 'the default limit is 100',
    async run({ checkpointer }) {
      const id = newExecutionId();
      await checkpointer.putWrites(Array.from({ length: 105 }, (_, i) => nodeRow(id, `n${i}`, { node_index: i })));
      const rows = await checkpointer.list(id);
      assert.equal(rows.length, 100);
      assert.equal(rows[0]!.node_id, 'n0');
      assert.equal(rows[99]!.node_id, 'n99');
      assert.equal((await checkpointer.list(id, { limit: 1000 })).length, 105);
    },
  },
  {
    group: 'list',
    name: 'a limit that is not a positive integer is refused',
    async run({ checkpointer }) {
      for (const limit of [0, -1, 1.5]) {
        await rejectsWith(checkpointer.list(newExecutionId(), { limit }), 'ValidationError', 'validation_failed', /limit/);
      }
    },
  },
];
