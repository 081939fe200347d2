/** `deleteExecution`: every row of one execution (checkpoints, pending row, idempotency records) and nothing else. */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { interruptedRow, newExecutionId, nodeRow } from './fixtures.js';

export const deleteExecutionCases: ContractCase[] = [
  {
    group: 'deleteExecution',
    name: 'removes the three kinds of rows of that execution only and counts them',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const keep = newExecutionId();
      await checkpointer.put(nodeRow(id, 'a'));
      await checkpointer.recordInterrupt(interruptedRow(id), { reason: 'r', context: {} });
      await checkpointer.putIdempotent(id, 'charge:1', { charge_id: 'ch_1' });
      await checkpointer.put(nodeRow(keep, 'a'));
      await checkpointer.recordInterrupt(interruptedRow(keep), { reason: 'r', context: {} });
      await checkpointer.putIdempotent(keep, 'charge:1', 1);
      assert.equal(await checkpointer.deleteExecution(id), 4);
      assert.deepEqual(await checkpointer.list(id), []);
      assert.equal(await checkpointer.getIdempotent(id, 'charge:1'), undefined);
      assert.deepEqual(
        (await checkpointer.listPendingInterrupts()).map((p) => p.execution_id),
        [keep],
      );
      assert.equal((await checkpointer.list(keep)).length, 2);
      assert.equal(await checkpointer.getIdempotent(keep, 'charge:1'), 1);
      assert.equal(await checkpointer.deleteExecution('no-such-execution'), 0);
    },
  },
];
