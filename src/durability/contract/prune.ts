/**
 * `prune(olderThan)`: completed and failed history goes; interrupted checkpoints, pending rows and everything of a
 * paused execution (its history and its cached side effects, which the resume needs) stay.
 */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { ago, interruptedRow, newExecutionId, nodeRow, rejectsWith } from './fixtures.js';

const HOUR = 3_600_000;

export const pruneCases: ContractCase[] = [
  {
    group: 'prune',
    name: 'removes completed and failed rows older than the cutoff and keeps newer ones',
    async run({ checkpointer }) {
      const done = newExecutionId();
      const failed = newExecutionId();
      const recent = newExecutionId();
      await checkpointer.putWrites([
        nodeRow(done, 'a', { created_at: ago(3 * HOUR) }),
        nodeRow(done, 'b', { created_at: ago(3 * HOUR - 1) }),
        nodeRow(done, 'run_end', { step_type: 'run_end', run_status: 'completed', created_at: ago(3 * HOUR - 2) }),
      ]);
      await checkpointer.put(nodeRow(failed, 'a', { created_at: ago(2 * HOUR) }));
      await checkpointer.put(nodeRow(failed, 'run_end', { status: 'failed', step_type: 'run_end', run_status: 'failed', created_at: ago(2 * HOUR - 1) }));
      const kept = await checkpointer.put(nodeRow(recent, 'a'));
      await checkpointer.putIdempotent(done, 'charge', 'ch_1');
      assert.equal(await checkpointer.prune(HOUR), 5);
      assert.deepEqual(await checkpointer.list(done), []);
      assert.deepEqual(await checkpointer.list(failed), []);
      assert.deepEqual(await checkpointer.list(recent), [kept]);
      assert.equal(await checkpointer.getIdempotent(done, 'charge'), 'ch_1', 'the idempotency row is newer than the cutoff');
      assert.equal(await checkpointer.prune(HOUR), 0);
    },
  },
  {
    group: 'prune',
    name: 'never an interrupted checkpoint, a pending row, or anything of a paused execution',
    async run({ checkpointer }) {
      const paused = newExecutionId();
      const resumedEarlier = newExecutionId();
      const finished = newExecutionId();
      await checkpointer.put(nodeRow(paused, 'a', { created_at: ago(3 * HOUR) }));
      const { pending } = await checkpointer.recordInterrupt(interruptedRow(paused, 'approval', { created_at: ago(3 * HOUR - 1) }), {
        reason: 'manager_approval',
        context: { amount: 1 },
      });
      await checkpointer.putIdempotent(paused, 'charge', { charge_id: 'ch_1' });
      const interrupted = await checkpointer.put(interruptedRow(resumedEarlier, 'approval', { created_at: ago(2 * HOUR) }));
      await checkpointer.put(nodeRow(resumedEarlier, 'approval', { created_at: ago(2 * HOUR - 1) }));
      await checkpointer.put(nodeRow(resumedEarlier, 'run_end', { step_type: 'run_end', run_status: 'completed', created_at: ago(2 * HOUR - 2) }));
      await checkpointer.put(nodeRow(finished, 'a', { created_at: ago(HOUR) }));
      await checkpointer.putIdempotent(finished, 'charge', 1);

      assert.equal(await checkpointer.prune(new Date(Date.now() + 60_000)), 4);
      assert.deepEqual(
        (await checkpointer.list(paused)).map((r) => [r.node_id, r.status]),
        [
          ['a', 'completed'],
          ['approval', 'interrupted'],
        ],
      );
      assert.deepEqual(await checkpointer.listPendingInterrupts(), [pending]);
      assert.deepEqual(await checkpointer.getIdempotent(paused, 'charge'), { charge_id: 'ch_1' });
      assert.deepEqual(await checkpointer.list(resumedEarlier), [interrupted]);
      assert.deepEqual(await checkpointer.list(finished), []);
      assert.equal(await checkpointer.getIdempotent(finished, 'charge'), undefined);
    },
  },
  {
    group: 'prune',
    name: 'a cutoff that is neither an age nor a Date is refused',
    async run({ checkpointer }) {
      await rejectsWith(checkpointer.prune(-1), 'ValidationError', 'validation_failed', /olderThan/);
      await rejectsWith(checkpointer.prune(new Date('not a date')), 'ValidationError', 'validation_failed', /olderThan/);
    },
  },
];
