/** `setup`: idempotent, safe to race, and optional (every method sets up on first use). */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { newExecutionId, nodeRow } from './fixtures.js';

export const setupCases: ContractCase[] = [
  {
    group: 'setup',
    name: 'setup twice, and from a second handle, changes nothing and keeps rows',
    async run({ checkpointer, reopen }) {
      await checkpointer.setup();
      const id = newExecutionId();
      const row = await checkpointer.put(nodeRow(id, 'a'));
      await checkpointer.setup();
      const other = await reopen();
      try {
        await other.setup();
        assert.deepEqual(await other.getById(row.checkpoint_id), row);
      } finally {
        await other.close();
      }
      assert.deepEqual(await checkpointer.list(id), [row]);
    },
  },
  {
    group: 'setup',
    name: 'concurrent setups from several handles all succeed',
    async run({ checkpointer, reopen }) {
      const handles = [checkpointer, await reopen(), await reopen()];
      try {
        await Promise.all(handles.map((h) => h.setup()));
        const row = await handles[2]!.put(nodeRow(newExecutionId(), 'a'));
        assert.deepEqual(await handles[0]!.getById(row.checkpoint_id), row);
      } finally {
        await Promise.all(handles.slice(1).map((h) => h.close()));
      }
    },
  },
  {
    group: 'setup',
    name: 'a method called before setup sets the store up itself',
    async run({ checkpointer }) {
      assert.equal(await checkpointer.getLast(newExecutionId()), null);
      const row = await checkpointer.put(nodeRow(newExecutionId(), 'a'));
      assert.deepEqual(await checkpointer.getById(row.checkpoint_id), row);
    },
  },
  {
    group: 'close',
    name: 'close is idempotent and a closed checkpointer rejects further calls',
    async run({ reopen }) {
      const handle = await reopen();
      await handle.put(nodeRow(newExecutionId(), 'a'));
      await handle.close();
      await handle.close();
      await assert.rejects(handle.getLast(newExecutionId()), /closed/);
    },
  },
];
