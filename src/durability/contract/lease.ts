/**
 * Execution leases: one holder at a time, renewal by the holder only, takeover only after expiry or release, a
 * generation that grows with every new owner, a first row written with the grant, and fenced writes (docs/adr/0015).
 */
import assert from 'node:assert/strict';
import type { ContractCase } from './types.js';
import { interruptedRow, newExecutionId, nodeRow, rejectsWith } from './fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LOST = /no longer holds the lease/;

export const leaseCases: ContractCase[] = [
  {
    group: 'leases',
    name: 'a lease is held by one owner until released; the holder may re-acquire and renew it, others may not',
    async run({ checkpointer }) {
      const id = newExecutionId();
      assert.equal(await checkpointer.acquireLease(id, 'a', 60_000), 1, 'a new lease is generation 1');
      assert.equal(await checkpointer.acquireLease(id, 'b', 60_000), null, 'held by a');
      assert.equal(await checkpointer.acquireLease(id, 'a', 60_000), 1, 'the holder extends it, same generation');
      assert.equal(await checkpointer.renewLease(id, 'a', 60_000), true);
      assert.equal(await checkpointer.renewLease(id, 'b', 60_000), false, 'only the holder renews');
      await checkpointer.releaseLease(id, 'b');
      assert.equal(await checkpointer.acquireLease(id, 'b', 60_000), null, 'a release by a non-holder changes nothing');
      await checkpointer.releaseLease(id, 'a');
      assert.equal(await checkpointer.acquireLease(id, 'b', 60_000), 2, 'free after the release; the next owner gets the next generation');
      assert.equal(await checkpointer.acquireLease(newExecutionId(), 'a', 60_000), 1, 'leases are per execution');
    },
  },
  {
    group: 'leases',
    name: 'an expired lease is taken over with the next generation; its old holder can no longer renew it',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const granted = performance.now();
      assert.equal(await checkpointer.acquireLease(id, 'dead', 400), 1);
      const early = await checkpointer.acquireLease(id, 'next', 60_000);
      // Refused while unexpired; a machine so loaded that 400 ms passed already may grant it (then still generation 2).
      if (performance.now() - granted < 400) assert.equal(early, null, 'refused while unexpired');
      await sleep(600);
      assert.equal(await checkpointer.acquireLease(id, 'next', 60_000), 2, 'taken over after expiry');
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
          assert.deepEqual(
            results.filter((r) => r !== null),
            [1],
            `round ${round}`,
          );
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
  {
    group: 'leases',
    name: 'a first row is written with the grant, and only with it; 8 concurrent starters from 2 handles write one row',
    async run({ checkpointer, reopen }) {
      const id = newExecutionId();
      assert.equal(await checkpointer.acquireLease(id, 'a', 60_000, { first: nodeRow(id, 'start', { trace_id: 'a'.repeat(32) }) }), 1);
      const first = await checkpointer.getLast(id);
      assert.equal(first?.node_id, 'start');
      assert.equal(first?.trace_id, 'a'.repeat(32), 'a trace id is stored with the row');
      assert.equal(await checkpointer.acquireLease(id, 'b', 60_000, { first: nodeRow(id, 'other') }), null);
      assert.deepEqual(
        (await checkpointer.list(id)).map((row) => row.node_id),
        ['start'],
        'a refused lease writes no row',
      );
      await assert.rejects(checkpointer.acquireLease(id, 'a', 60_000, { first: nodeRow(newExecutionId(), 'x') }), /execution/);
      const second = await reopen();
      try {
        const race = newExecutionId();
        const results = await Promise.all(
          [checkpointer, second].flatMap((h, i) =>
            [0, 1, 2, 3].map((j) => h.acquireLease(race, `s-${i}-${j}`, 60_000, { first: nodeRow(race, `start-${i}-${j}`) })),
          ),
        );
        assert.equal(results.filter((r) => r !== null).length, 1);
        assert.equal((await checkpointer.list(race)).length, 1, 'one starter wrote its row');
      } finally {
        await second.close();
      }
    },
  },
  {
    group: 'leases',
    name: 'fenced writes land while the fence is current (expired or not) and are refused, writing nothing, once another owner took over',
    async run({ checkpointer, reopen }) {
      const id = newExecutionId();
      const generation = (await checkpointer.acquireLease(id, 'old', 150))!;
      const fence = { owner: 'old', generation };
      await checkpointer.put(nodeRow(id, 'one'), fence);
      await checkpointer.putIdempotent(id, 'charge', { ok: 1 }, fence);
      await sleep(300);
      await checkpointer.put(nodeRow(id, 'two'), fence);
      // Another process takes it over.
      const other = await reopen();
      try {
        assert.equal(await other.acquireLease(id, 'new', 60_000), generation + 1);
        const before = (await checkpointer.list(id)).length;
        await rejectsWith(checkpointer.put(nodeRow(id, 'late'), fence), 'LeaseLost', 'execution_busy', LOST);
        await rejectsWith(checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b')], fence), 'LeaseLost', 'execution_busy', LOST);
        await rejectsWith(checkpointer.recordInterrupt(interruptedRow(id), { reason: 'approval', context: {} }, fence), 'LeaseLost', 'execution_busy', LOST);
        await rejectsWith(checkpointer.putIdempotent(id, 'refund', { ok: 2 }, fence), 'LeaseLost', 'execution_busy', LOST);
        assert.equal(await checkpointer.getIdempotent(id, 'refund'), undefined);
        assert.equal((await checkpointer.listPendingInterrupts()).filter((p) => p.execution_id === id).length, 0, 'no pending row');
        // The new holder's own fenced writes land.
        await other.put(nodeRow(id, 'taken'), { owner: 'new', generation: generation + 1 });
        assert.equal((await checkpointer.list(id)).length, before + 1, 'only the new holder wrote');
      } finally {
        await other.close();
      }
    },
  },
  {
    group: 'leases',
    name: 'a fenced claim claims nothing once the lease is lost; with the current fence it claims',
    async run({ checkpointer }) {
      const id = newExecutionId();
      const first = (await checkpointer.acquireLease(id, 'first', 60_000))!;
      await checkpointer.recordInterrupt(interruptedRow(id), { reason: 'manager_approval', context: { amount: 5 } }, { owner: 'first', generation: first });
      await checkpointer.releaseLease(id, 'first');
      const second = (await checkpointer.acquireLease(id, 'second', 60_000))!;
      assert.equal(second, first + 1);
      const claim = { resume: { approved: true, metadata: {} }, claimedBy: 'first' };
      await rejectsWith(checkpointer.claimPendingInterrupt(id, claim, { owner: 'first', generation: first }), 'LeaseLost', 'execution_busy', LOST);
      assert.equal((await checkpointer.listPendingInterrupts()).filter((p) => p.execution_id === id).length, 1, 'the pause is still pending');
      const claimed = await checkpointer.claimPendingInterrupt(id, { ...claim, claimedBy: 'second' }, { owner: 'second', generation: second });
      assert.equal(claimed?.pending.execution_id, id);
      assert.equal(claimed?.checkpoint.step_type, 'resume');
    },
  },
  {
    group: 'leases',
    name: 'leaseOf reports the holder; takeOverFrom takes an unexpired lease from that owner only',
    async run({ checkpointer }) {
      const id = newExecutionId();
      assert.equal(await checkpointer.leaseOf(id), null);
      await checkpointer.acquireLease(id, 'dead', 60_000);
      const held = await checkpointer.leaseOf(id);
      assert.equal(held?.owner, 'dead');
      assert.equal(held?.generation, 1);
      assert.ok(Date.parse(held!.expires_at) > Date.now(), 'expires in the future');
      assert.equal(await checkpointer.acquireLease(id, 'next', 60_000, { takeOverFrom: 'someone-else' }), null);
      assert.equal(await checkpointer.acquireLease(id, 'next', 60_000, { takeOverFrom: 'dead' }), 2);
      await checkpointer.releaseLease(id, 'next');
      const released = await checkpointer.leaseOf(id);
      assert.equal(released?.generation, 2, 'a release keeps the row and its generation');
      assert.ok(Date.parse(released!.expires_at) <= Date.now() + 5, 'a released lease has expired');
    },
  },
  {
    group: 'leases',
    name: 'a fenced write with release writes its row and frees the lease in one go (put, putWrites, recordInterrupt)',
    async run({ checkpointer }) {
      const writes = [
        (id: string, fence: { owner: string; generation: number; release: true }) => checkpointer.put(nodeRow(id, 'run_end'), fence),
        (id: string, fence: { owner: string; generation: number; release: true }) =>
          checkpointer.putWrites([nodeRow(id, 'last'), nodeRow(id, 'run_end')], fence),
        (id: string, fence: { owner: string; generation: number; release: true }) =>
          checkpointer.recordInterrupt(interruptedRow(id), { reason: 'approval', context: {} }, fence),
      ];
      for (const write of writes) {
        const id = newExecutionId();
        const generation = (await checkpointer.acquireLease(id, 'holder', 60_000))!;
        await write(id, { owner: 'holder', generation, release: true });
        assert.ok((await checkpointer.list(id)).length >= 1, 'the row is written');
        assert.equal(await checkpointer.acquireLease(id, 'next', 60_000), generation + 1, 'the lease was free at once');
      }
      // A released-with fence that is no longer current writes nothing and frees nothing.
      const id = newExecutionId();
      const old = (await checkpointer.acquireLease(id, 'old', 60_000))!;
      await checkpointer.releaseLease(id, 'old');
      const current = (await checkpointer.acquireLease(id, 'new', 60_000))!;
      await rejectsWith(checkpointer.put(nodeRow(id, 'late'), { owner: 'old', generation: old, release: true }), 'LeaseLost', 'execution_busy', LOST);
      assert.equal(await checkpointer.acquireLease(id, 'third', 60_000), null, "the current holder's lease still holds");
      assert.equal((await checkpointer.leaseOf(id))?.generation, current);
    },
  },
];
