/**
 * The optional replication (`fetchUnsynced`, `markSynced`), quarantine (`markQuarantined`) and push (`fetchLocalOnly`,
 * `markPushed`) protocols, and consent at write time (docs/adr/0054): a backend stores each row with the stamp
 * `stampOf(row)` gives when it stores it (`stampRows` first when it stores rows later, outside the writer's context).
 */
import assert from 'node:assert/strict';
import { supportsPush, supportsQuarantine, supportsReplication } from '../checkpointer.js';
import { setWriteStampSource, type WriteStamp } from '../write-hook.js';
import type { ContractCase } from './types.js';
import { newExecutionId, nodeRow } from './fixtures.js';

/** Run `write` as a connected process writes (rows queued to `project`). */
async function stamped<T>(stamp: WriteStamp, write: () => Promise<T>): Promise<T> {
  setWriteStampSource(() => stamp);
  try {
    return await write();
  } finally {
    setWriteStampSource(null);
  }
}

const queued = <T>(write: () => Promise<T>) => stamped({ queued: true, project: '' }, write);

export const replicationCases: ContractCase[] = [
  {
    group: 'replication',
    name: 'unsynced rows come oldest first with increasing sequences until marked synced',
    requires: 'replication',
    async run({ checkpointer }) {
      assert.ok(supportsReplication(checkpointer));
      const id = newExecutionId();
      const rows = await queued(() => checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b'), nodeRow(id, 'c')]));
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
      const [a, b, c, d] = await queued(() => checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b'), nodeRow(id, 'c'), nodeRow(id, 'd')]));
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
      const again = await queued(() => checkpointer.put(c!));
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
      const [a, b] = await queued(() => checkpointer.putWrites([nodeRow(id, 'a'), nodeRow(id, 'b')]));
      assert.equal(await checkpointer.markQuarantined({ [a!.checkpoint_id]: 'payload too large', 'no-such-id': 'x' }), 1);
      assert.deepEqual(
        (await checkpointer.fetchUnsynced(10)).map((u) => u.checkpoint.checkpoint_id),
        [b!.checkpoint_id],
      );
      assert.equal(await checkpointer.markQuarantined({}), 0);
      assert.deepEqual(await checkpointer.getById(a!.checkpoint_id), a, 'the row itself is unchanged');
    },
  },
  {
    group: 'replication',
    name: 'consent at write time: rows written without it are local-only until pushed; queued rows keep their project',
    requires: 'replication',
    async run({ checkpointer }) {
      assert.ok(supportsReplication(checkpointer) && supportsPush(checkpointer));
      const id = newExecutionId();
      const [local] = await stamped({ queued: false, project: 'p1' }, () => checkpointer.putWrites([nodeRow(id, 'local')]));
      const [sent] = await stamped({ queued: true, project: 'p1' }, () => checkpointer.putWrites([nodeRow(id, 'sent')]));
      const ours = (rows: Array<{ checkpoint: { checkpoint_id: string } }>) =>
        rows.map((u) => u.checkpoint.checkpoint_id).filter((x) => x === local!.checkpoint_id || x === sent!.checkpoint_id);
      assert.deepEqual(ours(await checkpointer.fetchUnsynced(1000)), [sent!.checkpoint_id], 'only the consented row is queued');
      assert.deepEqual(
        (await checkpointer.fetchUnsynced(1000, 'p1')).map((u) => [u.checkpoint.checkpoint_id, u.project_id]),
        [[sent!.checkpoint_id, 'p1']],
      );
      assert.deepEqual(ours(await checkpointer.fetchLocalOnly(1000, 'p1')), [local!.checkpoint_id]);
      assert.deepEqual(await checkpointer.fetchLocalOnly(1000, 'another-project'), []);
      assert.deepEqual(await checkpointer.fetchLocalOnly(1000, 'p1', { since: '2999-01-01T00:00:00Z' }), []);
      assert.equal(await checkpointer.markPushed([local!.checkpoint_id]), 1);
      assert.equal(await checkpointer.markPushed([local!.checkpoint_id]), 0, 'already pushed');
      assert.deepEqual(await checkpointer.fetchLocalOnly(1000, 'p1'), []);
      assert.deepEqual(await checkpointer.getById(local!.checkpoint_id), local, 'the row itself is unchanged');
    },
  },
];
