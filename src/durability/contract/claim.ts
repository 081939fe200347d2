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

const approve = (claimedBy: string) => ({ resume: { approved: true, metadata: { approver: 'alice' } }, claimedBy });

export const claimRecordCases: ContractCase[] = [
  {
    group: 'claimPendingInterrupt',
    name: 'the claim removes the pending row and writes the decision row (a copy of the interrupted row) in one step',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const paused = await checkpointer.recordInterrupt(
        interruptedRow(id, 'turn:0/tool:refund', {
          agent_path: 'agent:a/tool:refund',
          node_input: { amount: 5 },
          iteration: 3,
          iteration_counters: { cycle_a_b: 1 },
        }),
        {
          reason: 'manager_approval',
          context: { amount: 50000 },
        },
      );
      const claimed = await checkpointer.claimPendingInterrupt(id, {
        ...approve('host:1:abc'),
        decision: { decidedBy: { principal: 'alice', surface: 'cli' }, reason: 'within budget' },
      });
      assert.ok(claimed, 'the only claimer gets the row');
      assert.deepEqual(claimed.pending, paused.pending);
      const row = claimed.checkpoint;
      assert.equal(row.step_type, 'resume');
      assert.equal(row.status, 'completed');
      assert.equal(row.parent_checkpoint_id, paused.checkpoint.checkpoint_id);
      assert.equal(row.node_id, 'turn:0/tool:refund');
      assert.equal(row.agent_path, 'agent:a/tool:refund');
      assert.deepEqual(row.state_snapshot, paused.checkpoint.state_snapshot);
      assert.deepEqual(row.node_input, { amount: 5 });
      assert.equal(row.iteration, 3);
      assert.deepEqual(row.iteration_counters, { cycle_a_b: 1 });
      assert.equal(row.interrupt_reason, 'manager_approval');
      // The decision record: the value, who claimed it, who decided through which surface, when and why.
      const output = row.node_output as Record<string, unknown>;
      assert.match(String(output.decided_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.deepEqual(output, {
        resume: { approved: true, metadata: { approver: 'alice' } },
        claimed_by: 'host:1:abc',
        decided_by: { principal: 'alice', surface: 'cli' },
        decided_at: output.decided_at,
        reason: 'within budget',
        pending_created_at: paused.pending.created_at,
      });
      assert.deepEqual(await checkpointer.getLast(id), row, 'the decision row is stored as returned, after the pause');
      assert.deepEqual(await checkpointer.listPendingInterrupts(), []);
      assert.equal(await checkpointer.claimPendingInterrupt(id, approve('other')), null, 'a second claim gets nothing and writes nothing');
      assert.equal((await checkpointer.list(id)).length, 2);
    },
  },
  {
    group: 'claimPendingInterrupt',
    name: 'concurrent claims with decisions from 4 handles: one winner, exactly one decision row, 5 times over',
    async run({ checkpointer, reopen }) {
      const handles = [checkpointer, await reopen(), await reopen(), await reopen()];
      try {
        for (let round = 0; round < 5; round++) {
          const id = newExecutionId();
          await pause(checkpointer, id);
          const results = await Promise.all(
            handles.flatMap((h, i) => [h.claimPendingInterrupt(id, approve(`h${i}a`)), h.claimPendingInterrupt(id, approve(`h${i}b`))]),
          );
          assert.equal(results.filter((r) => r !== null).length, 1, `round ${round}`);
          const decisions = (await checkpointer.list(id)).filter((r) => r.step_type === 'resume');
          assert.equal(decisions.length, 1, `round ${round}: one decision row`);
        }
      } finally {
        await Promise.all(handles.slice(1).map((h) => h.close()));
      }
    },
  },
  {
    group: 'claimPendingInterrupt',
    name: 'a malformed claim is refused before anything is claimed',
    async run({ checkpointer }) {
      const id = newExecutionId();
      await pause(checkpointer, id);
      await assert.rejects(checkpointer.claimPendingInterrupt(id, { resume: { approved: 'yes' } as never, claimedBy: 'x' }), /approved/);
      await assert.rejects(checkpointer.claimPendingInterrupt(id, { resume: { approved: true, metadata: {} }, claimedBy: '' }), /claimedBy/);
      assert.equal((await checkpointer.listPendingInterrupts()).length, 1, 'still pending');
    },
  },
];
