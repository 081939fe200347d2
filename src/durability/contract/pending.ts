/** `recordInterrupt` and `listPendingInterrupts`: a pause is the interrupted row and the pending row, together. */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { interruptedRow, newExecutionId, nodeRow, rejectsWith } from './fixtures.js';

export const pendingCases: ContractCase[] = [
  {
    group: 'listPendingInterrupts',
    name: 'no pauses: an empty list',
    async run({ checkpointer }) {
      assert.deepEqual(await checkpointer.listPendingInterrupts(), []);
    },
  },
  {
    group: 'recordInterrupt',
    name: 'writes the interrupted checkpoint and the pending row; the pending row defaults to the checkpoint fields',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const { checkpoint, pending } = await checkpointer.recordInterrupt(interruptedRow(id, 'approval', { agent_path: 'agent:bot/tool:approve' }), {
        reason: 'manager_approval',
        context: { amount: 50000, policy: 'high-value' },
      });
      assert.equal(checkpoint.status, 'interrupted');
      assert.deepEqual(pending, {
        execution_id: id,
        chain_name: 'contract-chain',
        node_id: 'approval',
        reason: 'manager_approval',
        context: { amount: 50000, policy: 'high-value' },
        agent_path: 'agent:bot/tool:approve',
        created_at: checkpoint.created_at,
      });
      assert.deepEqual(await checkpointer.getLast(id), checkpoint);
      assert.deepEqual(await checkpointer.listPendingInterrupts(), [pending]);
    },
  },
  {
    group: 'recordInterrupt',
    name: 'one transaction: when the checkpoint is refused, no pending row is written',
    async run({ checkpointer }) {
      const id = newExecutionId();
      await checkpointer.put(nodeRow(id, 'a', { checkpoint_id: `taken-${id}` }));
      await rejectsWith(
        checkpointer.recordInterrupt(interruptedRow(id, 'approval', { checkpoint_id: `taken-${id}` }), { reason: 'r', context: {} }),
        'ChainCheckpointError',
        'chain_checkpoint_error',
      );
      await rejectsWith(
        checkpointer.recordInterrupt(interruptedRow(id), { reason: 'r', context: { f: () => 1 } as never }),
        'ValidationError',
        'validation_failed',
        /context/,
      );
      assert.deepEqual(await checkpointer.listPendingInterrupts(), []);
      assert.deepEqual(
        (await checkpointer.list(id)).map((r) => r.node_id),
        ['a'],
      );
    },
  },
  {
    group: 'recordInterrupt',
    name: 'a second pause of the same execution replaces its unclaimed pending row',
    async run({ checkpointer }) {
      const id = newExecutionId();
      await checkpointer.recordInterrupt(interruptedRow(id, 'first'), { reason: 'one', context: { n: 1 } });
      const { pending } = await checkpointer.recordInterrupt(interruptedRow(id, 'second'), { reason: 'two', context: { n: 2 } });
      assert.deepEqual(await checkpointer.listPendingInterrupts(), [pending]);
      assert.equal(pending.node_id, 'second');
    },
  },
  {
    group: 'listPendingInterrupts',
    name: 'newest first, limited, default limit 100',
    async run({ checkpointer }) {
      const written = [];
      for (let i = 0; i < 101; i++) {
        written.push((await checkpointer.recordInterrupt(interruptedRow(newExecutionId()), { reason: `r${i}`, context: { i } })).pending);
      }
      const listed = await checkpointer.listPendingInterrupts();
      assert.equal(listed.length, 100);
      assert.deepEqual(listed[0], written[100]);
      assert.deepEqual(listed[99], written[1]);
      assert.deepEqual(await checkpointer.listPendingInterrupts({ limit: 2 }), [written[100], written[99]]);
      await rejectsWith(checkpointer.listPendingInterrupts({ limit: 0 }), 'ValidationError', 'validation_failed', /limit/);
    },
  },
];
