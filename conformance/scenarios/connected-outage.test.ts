/**
 * Connected mode, the replication outbox under failure, on SQLite and Postgres: the Platform is killed while runs
 * checkpoint; the runs finish and no row is lost (all kept unsynced locally); when the Platform comes back on the same
 * port the outbox drains by itself (backoff retry, no new write needed); a row the Platform rejects on payload
 * grounds is quarantined with the Platform's reason and does not block the rows after it; a refused key (401) stops
 * the drain with every row kept. A drain pass stops once it has caught up: rows written while it runs go in the next
 * pass, together, instead of a few at a time; a backlog larger than a batch still goes in one pass.
 */
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import pg from 'pg';
import { connect, disconnect, drainReplication, replicationStatus, type Checkpointer } from '../../src/index.js';
import type { ClaimingCheckpointer, ReplicatingCheckpointer } from '../../src/durability/checkpointer.js';
import { setWriteStampSource } from '../../src/durability/write-hook.js';
import { drainOnce } from '../../src/platform/drain.js';
import { fiveSteps } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, startPlatform, type ScenarioContext } from '../harness/index.js';

const area = conformance('connected: replication outage and quarantine');
const KEY = 'ak_outage_0123456789abcdef';

async function quarantineReasons(t: ScenarioContext): Promise<Record<string, string>> {
  const sql = 'SELECT checkpoint_id, quarantine_reason FROM %s WHERE quarantine_reason IS NOT NULL';
  if (t.backend.kind === 'sqlite') {
    const db = new Database(t.backend.dbPath, { readonly: true });
    try {
      return Object.fromEntries(
        (db.prepare(sql.replace('%s', 'checkpoints')).all() as Array<{ checkpoint_id: string; quarantine_reason: string }>).map((r) => [
          r.checkpoint_id,
          r.quarantine_reason,
        ]),
      );
    } finally {
      db.close();
    }
  }
  if (t.backend.kind !== 'postgres') throw new Error('storage backend needed');
  const client = new pg.Client({ connectionString: t.backend.url });
  await client.connect();
  try {
    const result = await client.query<{ checkpoint_id: string; quarantine_reason: string }>(sql.replace('%s', `${t.backend.schema}.checkpoints`));
    return Object.fromEntries(result.rows.map((r) => [r.checkpoint_id, r.quarantine_reason]));
  } finally {
    await client.end();
  }
}

async function waitFor(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

area.scenario(
  'Platform down while runs checkpoint: nothing lost, drains when back; a rejected row is quarantined and does not block',
  { timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY], maxRowBytes: 8192 });
    t.defer(() => disconnect());
    await connect({ apiKey: KEY, target: platform.url });
    const checkpointer = checkpointerFor(t.backend) as Checkpointer & { fetchUnsynced(limit: number): Promise<unknown[]> };
    t.defer(() => checkpointer.close());
    const port = platform.port;
    await platform.kill();

    const chain = fiveSteps(checkpointer);
    for (let i = 0; i < 3; i++) assert.is((await chain.run({ total: 0 }, { executionId: `down-${i}` })).status, 'completed');
    const big = await checkpointer.put({ execution_id: 'down-big', chain_name: 'five_steps', node_id: 'blob', state_snapshot: { blob: 'x'.repeat(20_000) } });
    for (let i = 3; i < 5; i++) assert.is((await chain.run({ total: 0 }, { executionId: `down-${i}` })).status, 'completed');
    const expected: string[] = [];
    for (let i = 0; i < 5; i++) expected.push(...(await checkpointer.list(`down-${i}`)).map((r) => r.checkpoint_id));
    await waitFor('a failed drain', () => replicationStatus(checkpointer)?.outcome === 'unavailable');
    assert.match(replicationStatus(checkpointer)!.error!, /is unreachable \(ECONNREFUSED\)/);
    assert.is((await checkpointer.fetchUnsynced(1000)).length, expected.length + 1, 'every row kept, unsynced');

    const back = await startPlatform({ dir: t.cwd, apiKeys: [KEY], maxRowBytes: 8192, port });
    t.defer(() => back.stop());
    await waitFor('the outbox to drain by itself', async () => (await checkpointer.fetchUnsynced(1)).length === 0);
    const received = await back.read((s) => s.checkpoints().map((r) => r.body.checkpoint_id as string));
    assert.equal([...received].sort(), [...expected].sort(), 'every row arrived once; the rejected one did not');
    const reasons = await quarantineReasons(t);
    assert.equal(Object.keys(reasons), [big.checkpoint_id]);
    assert.match(reasons[big.checkpoint_id]!, /^checkpoint is \d+ bytes, over the 8192-byte row limit$/);
    const last = await drainReplication(checkpointer);
    assert.equal([last?.outcome, last?.synced], ['drained', 0]);
  },
);

area.scenario(
  'a drain pass stops once it has caught up: rows written during it wait for the next pass; a backlog goes in one',
  { timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    const connection = { apiKey: KEY, target: platform.url, project: null };
    // Rows written as a connected process writes them (queued, docs/adr/0054), without its background drains: this
    // scenario drives each pass itself.
    setWriteStampSource(() => ({ queued: true, project: '' }));
    t.defer(() => setWriteStampSource(null));
    const checkpointer = checkpointerFor(t.backend) as Checkpointer & ReplicatingCheckpointer;
    t.defer(() => checkpointer.close());
    const row = (execution: string, i: number) => ({ execution_id: execution, chain_name: 'c', node_id: `n${i}`, state_snapshot: { i } });
    const received = async () => await platform.read((s) => s.checkpoints().map((r) => r.body.checkpoint_id as string));

    // 450 rows written before the pass (more than two batches of 200): all of them go in one pass.
    const backlog: string[] = [];
    for (let i = 0; i < 450; i += 50)
      backlog.push(...(await checkpointer.putWrites(Array.from({ length: 50 }, (_, j) => row('backlog', i + j)))).map((r) => r.checkpoint_id));
    const first = await drainOnce(checkpointer, connection);
    assert.equal([first.outcome, first.synced], ['drained', 450]);
    assert.equal(await received(), backlog, 'oldest first, every row once');

    // Three rows, and a step that writes while the pass is reading: the pass sends the three it read and stops.
    // One after another: concurrent puts may commit in any order on a pooled Postgres connection, and the outbox sends
    // in commit (seq) order, which is what this asserts.
    const before: { checkpoint_id: string }[] = [];
    for (const i of [0, 1, 2]) before.push(await checkpointer.put(row('live', i)));
    let during: string | null = null;
    const writing = new Proxy(checkpointer, {
      get(target, key) {
        // Postgres claims its batch (withClaimedBatch); the write lands once the batch has been read, either way.
        if (key === 'withClaimedBatch' && 'withClaimedBatch' in target) {
          const claiming = target as unknown as ClaimingCheckpointer;
          return (limit: number, send: Parameters<ClaimingCheckpointer['withClaimedBatch']>[1]) =>
            claiming.withClaimedBatch(limit, async (rows, marks) => {
              if (during === null) during = (await target.put(row('live', 3))).checkpoint_id;
              return send(rows, marks);
            });
        }
        if (key !== 'fetchUnsynced') {
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        }
        return async (limit: number) => {
          const rows = await target.fetchUnsynced(limit);
          if (during === null) during = (await target.put(row('live', 3))).checkpoint_id;
          return rows;
        };
      },
    });
    const second = await drainOnce(writing, connection);
    assert.equal([second.outcome, second.synced], ['drained', 3]);
    assert.equal(await received(), [...backlog, ...before.map((r) => r.checkpoint_id)]);
    assert.equal(
      (await checkpointer.fetchUnsynced(10)).map((u) => u.checkpoint.checkpoint_id),
      [during],
      'the row written during the pass is kept for the next',
    );
    const third = await drainOnce(checkpointer, connection);
    assert.equal([third.outcome, third.synced], ['drained', 1]);
    assert.equal((await received()).at(-1), during);
  },
);

area.scenario('a refused key stops the drain with every row kept', { timeoutMs: 40_000 }, async (t) => {
  const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
  t.defer(() => platform.stop());
  t.defer(() => disconnect());
  await connect({ apiKey: 'ak_revoked_key_0000', target: platform.url, verify: false });
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  await fiveSteps(checkpointer).run({ total: 0 }, { executionId: 'refused' });
  const result = await drainReplication(checkpointer);
  assert.is(result?.outcome, 'refused');
  assert.match(result!.error!, /^Invalid API key: the Platform at .* refused it \(401\)$/);
  assert.is((await checkpointer.fetchUnsynced(100)).length, (await checkpointer.list('refused')).length);
  assert.is(await platform.read((s) => s.checkpoints().length), 0);
});

area.run();
