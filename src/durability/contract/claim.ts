/** `deletePendingInterruptAtomic`: exactly one of N concurrent claimers gets the row, across handles too. */
import assert from 'node:assert/strict';
import type { Checkpointer } from '../checkpointer.js';
import type { ContractCase } from './types.js';
import { interruptedRow, newExecutionId } from './fixtures.js';

async function pause(checkpointer: Checkpointer, id: string) {
  return (await checkpointer.recordInterrupt(interruptedRow(id), { reason: 'manager_approval', context: { amount: 50000 } })).pending;
}

export const claimCases: ContractCase[] = [
  {
    group: 'deletePendingInterruptAtomic',
    name: 'the claim returns the row and removes it; a second claim and an unknown id get null',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const other = newExecutionId();
      const pending = await pause(checkpointer, id);
      const untouched = await pause(checkpointer, other);
      assert.deepEqual(await checkpointer.deletePendingInterruptAtomic(id), pending);
      assert.equal(await checkpointer.deletePendingInterruptAtomic(id), null);
      assert.equal(await checkpointer.deletePendingInterruptAtomic('no-such-execution'), null);
      assert.deepEqual(await checkpointer.listPendingInterrupts(), [untouched]);
      assert.equal((await checkpointer.getLast(id))!.status, 'interrupted', 'the interrupted checkpoint stays');
    },
  },
  {
    group: 'deletePendingInterruptAtomic',
    name: '16 concurrent claims on one handle: exactly one winner',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const pending = await pause(checkpointer, id);
      const results = await Promise.all(Array.from({ length: 16 }, () => checkpointer.deletePendingInterruptAtomic(id)));
      const winners = results.filter((r) => r !== null);
      assert.equal(winners.length, 1);
      assert.deepEqual(winners[0], pending);
    },
  },
  {
    group: 'deletePendingInterruptAtomic',
    name: 'concurrent claims from 4 independent handles: exactly one winner per execution, 10 times over',
    async run({ checkpointer, reopen }) {
      const handles = [checkpointer, await reopen(), await reopen(), await reopen()];
      try {
        for (let round = 0; round < 10; round++) {
          const id = newExecutionId();
          await pause(checkpointer, id);
          const results = await Promise.all(handles.flatMap((h) => [h.deletePendingInterruptAtomic(id), h.deletePendingInterruptAtomic(id)]));
          assert.equal(results.filter((r) => r !== null).length, 1, `round ${round}`);
        }
      } finally {
        await Promise.all(handles.slice(1).map((h) => h.close()));
      }
    },
  },
];
