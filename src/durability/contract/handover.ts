/**
 * Handing an execution over (docs/adr/0051): a run stopped at a step boundary by its process's shutdown releases its
 * lease with `releaseLease`, which must expire it now but leave it active, so the execution is an orphan at once and
 * another process's sweep claims it (next generation, attempt counted) without waiting for any expiry. The run's own
 * last write (its terminal row, with the release fence) ends the active stretch instead.
 */
import assert from 'node:assert/strict';
import { supportsRecovery } from '../recovery-store.js';
import { newExecutionId, nodeRow } from './fixtures.js';
import type { ContractCase } from './types.js';

export const handoverCases: ContractCase[] = [
  {
    group: 'recovery',
    name: 'releaseLease expires the lease now and keeps the execution active: an orphan another process claims at once',
    requires: 'recovery',
    async run({ checkpointer }) {
      assert.ok(supportsRecovery(checkpointer));
      const id = newExecutionId();
      const first = (await checkpointer.acquireLease(id, 'stopping', 60_000, { first: nodeRow(id, 'a'), runner: 'chain:c#1' }))!;
      await checkpointer.releaseLease(id, 'stopping');
      const orphan = (await checkpointer.activeLeases({ limit: 1000 })).find((lease) => lease.execution_id === id);
      assert.ok(orphan, 'still active after the release');
      assert.ok(Date.parse(orphan.expires_at) <= Date.now(), 'expired at once');
      assert.equal(orphan.generation, first);
      assert.equal(orphan.runner_key, 'chain:c#1');
      const claim = await checkpointer.claimOrphan(id, first, 'survivor', 60_000, null);
      assert.deepEqual(claim, { generation: first + 1, attempt: 1 }, 'claimed with the next generation, the attempt counted');
      assert.equal(await checkpointer.claimOrphan(id, first, 'late', 60_000, null), null, 'one claim wins');

      // A run that ends releases with its terminal row: no longer active, nothing to recover.
      const ended = newExecutionId();
      const generation = (await checkpointer.acquireLease(ended, 'runner', 60_000, { first: nodeRow(ended, 'a') }))!;
      await checkpointer.put(nodeRow(ended, 'end', { step_type: 'run_end', run_status: 'completed', agent_path: null }), {
        owner: 'runner',
        generation,
        release: true,
      });
      const active = await checkpointer.activeLeases({ limit: 1000 });
      assert.equal(
        active.some((lease) => lease.execution_id === ended),
        false,
      );
    },
  },
];
