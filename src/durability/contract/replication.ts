/** The optional replication (`fetchUnsynced`, `markSynced`) and quarantine (`markQuarantined`) protocols. */
import assert from 'node:assert/strict';
import { supportsQuarantine, supportsReplication } from '../checkpointer.js';
import type { ContractCase } from './types.js';
import { newExecutionId, nodeRow } from './fixtures.js';

export const replicationCases: ContractCase[] = [
  {
    group: 'replication',
    name: 'unsynced rows come oldest first with increasing sequences until marked synced',
    requires: 'replication',
    async run({ checkpointer }) {
      assert.ok(supportsReplication(checkpointer));
      const id = newExecutionId();
      const rows = await checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b'), nodeRow(id, 'c')]);
      const first = await checkpointer.fetchUnsynced(2);
      assert.deepEqual(
        first.map((u) => u.checkpoint),
        rows.slice(0, 2),
      );
      assert.ok(first[0]!.sequence < first[1]!.sequence);
      assert.equal(first[0]!.project_id, '');
      assert.equal(await checkpointer.markSynced([rows[0]!.checkpoint_id, rows[1]!.checkpoint_id, 'no-such-id']), 2);
      assert.equal(await checkpointer.markSynced([rows[0]!.checkpoint_id]), 0, 'already synced');
      assert.deepEqual(
        (await checkpointer.fetchUnsynced(10)).map((u) => u.checkpoint),
        [rows[2]],
      );
      assert.deepEqual(await checkpointer.fetchUnsynced(10, 'another-project'), []);
      assert.equal((await checkpointer.fetchUnsynced(10, '')).length, 1);
      assert.equal(await checkpointer.markSynced([]), 0);
    },
  },
  {
    group: 'quarantine',
    name: 'rows handed out are marked synced once, whatever became of them since: quarantined, synced, deleted and written again',
    requires: 'quarantine',
    async run({ checkpointer }) {
      assert.ok(supportsQuarantine(checkpointer) && supportsReplication(checkpointer));
      const id = newExecutionId();
      const [a, b, c, d] = await checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b'), nodeRow(id, 'c'), nodeRow(id, 'd')]);
      const ours = (ids: string[]) => ids.filter((x) => [a, b, c, d].some((r) => r!.checkpoint_id === x));
      assert.deepEqual(
        ours((await checkpointer.fetchUnsynced(1000)).map((u) => u.checkpoint.checkpoint_id)),
        [a, b, c, d].map((r) => r!.checkpoint_id),
      );
      assert.equal(await checkpointer.markQuarantined({ [b!.checkpoint_id]: 'rejected' }), 1);
      assert.equal(await checkpointer.markSynced([a!.checkpoint_id, b!.checkpoint_id]), 1, 'the quarantined row is not counted');
      assert.equal(await checkpointer.markSynced([a!.checkpoint_id]), 0, 'already synced');
      // c is deleted and written again under its id (a restore does that): the row now in the store is the one marked.
      assert.equal(await checkpointer.deleteExecution(id), 4);
      const again = await checkpointer.put(c!);
      assert.equal(again.checkpoint_id, c!.checkpoint_id);
      assert.equal(await checkpointer.markSynced([c!.checkpoint_id, d!.checkpoint_id]), 1);
      assert.deepEqual(ours((await checkpointer.fetchUnsynced(1000)).map((u) => u.checkpoint.checkpoint_id)), []);
    },
  },
  {
    group: 'quarantine',
    name: 'a quarantined row leaves the resend set',
    requires: 'quarantine',
    async run({ checkpointer }) {
      assert.ok(supportsQuarantine(checkpointer) && supportsReplication(checkpointer));
      const id = newExecutionId();
      const [a, b] = await checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b')]);
      assert.equal(await checkpointer.markQuarantined({ [a!.checkpoint_id]: 'payload too large', 'no-such-id': 'x' }), 1);
      assert.deepEqual(
        (await checkpointer.fetchUnsynced(10)).map((u) => u.checkpoint.checkpoint_id),
        [b!.checkpoint_id],
      );
      assert.equal(await checkpointer.markQuarantined({}), 0);
      assert.deepEqual(await checkpointer.getById(a!.checkpoint_id), a, 'the row itself is unchanged');
    },
  },
];
