/** Execution leases: one holder at a time, renewal by the holder only, takeover only after expiry, release. */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { newExecutionId } from './fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const leaseCases: ContractCase[] = [
  {
    group: 'leases',
    name: 'a lease is held by one owner until released; the holder may re-acquire and renew it, others may not',
    async run({ checkpointer }) {
      const id = newExecutionId();
      assert.equal(await checkpointer.acquireLease(id, 'a', 60_000), true);
      assert.equal(await checkpointer.acquireLease(id, 'b', 60_000), false, 'held by a');
      assert.equal(await checkpointer.acquireLease(id, 'a', 60_000), true, 'the holder extends it');
      assert.equal(await checkpointer.renewLease(id, 'a', 60_000), true);
      assert.equal(await checkpointer.renewLease(id, 'b', 60_000), false, 'only the holder renews');
      await checkpointer.releaseLease(id, 'b');
      assert.equal(await checkpointer.acquireLease(id, 'b', 60_000), false, 'a release by a non-holder changes nothing');
      await checkpointer.releaseLease(id, 'a');
      assert.equal(await checkpointer.acquireLease(id, 'b', 60_000), true, 'free after the release');
      assert.equal(await checkpointer.acquireLease(newExecutionId(), 'a', 60_000), true, 'leases are per execution');
    },
  },
  {
    group: 'leases',
    name: 'an expired lease is taken over; its old holder can no longer renew it',
    async run({ checkpointer }) {
      const id = newExecutionId();
      assert.equal(await checkpointer.acquireLease(id, 'dead', 150), true);
      assert.equal(await checkpointer.acquireLease(id, 'next', 60_000), false);
      await sleep(300);
      assert.equal(await checkpointer.acquireLease(id, 'next', 60_000), true, 'taken over after expiry');
      assert.equal(await checkpointer.renewLease(id, 'dead', 60_000), false);
    },
  },
  {
    group: 'leases',
    name: '12 concurrent acquisitions from 3 handles: exactly one owner wins, 5 times over',
    async run({ checkpointer, reopen }) {
      const handles = [checkpointer, await reopen(), await reopen()];
      try {
        for (let round = 0; round < 5; round++) {
          const id = newExecutionId();
          const results = await Promise.all(handles.flatMap((h, i) => [0, 1, 2, 3].map((j) => h.acquireLease(id, `owner-${i}-${j}`, 60_000))));
          assert.equal(results.filter(Boolean).length, 1, `round ${round}`);
        }
      } finally {
        await Promise.all(handles.slice(1).map((h) => h.close()));
      }
    },
  },
  {
    group: 'leases',
    name: 'a bad owner or time to live is refused',
    async run({ checkpointer }) {
      await assert.rejects(checkpointer.acquireLease(newExecutionId(), '', 1000), /owner/);
      await assert.rejects(checkpointer.acquireLease(newExecutionId(), 'a', 0), /time to live/);
    },
  },
];
