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
      assert.deepEqual(first.map((u) => u.checkpoint), rows.slice(0, 2));
      assert.ok(first[0]!.sequence < first[1]!.sequence);
      assert.equal(first[0]!.project_id, '');
      assert.equal(await checkpointer.markSynced([rows[0]!.checkpoint_id, rows[1]!.checkpoint_id, 'no-such-id']), 2);
      assert.equal(await checkpointer.markSynced([rows[0]!.checkpoint_id]), 0, 'already synced');
      assert.deepEqual((await checkpointer.fetchUnsynced(10)).map((u) => u.checkpoint), [rows[2]]);
      assert.deepEqual(await checkpointer.fetchUnsynced(10, 'another-project'), []);
      assert.equal((await checkpointer.fetchUnsynced(10, '')).length, 1);
      assert.equal(await checkpointer.markSynced([]), 0);
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
      assert.deepEqual((await checkpointer.fetchUnsynced(10)).map((u) => u.checkpoint.checkpoint_id), [b!.checkpoint_id]);
      assert.equal(await checkpointer.markQuarantined({}), 0);
      assert.deepEqual(await checkpointer.getById(a!.checkpoint_id), a, 'the row itself is unchanged');
    },
  },
];
