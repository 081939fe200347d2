/**
 * Connected mode, the replication outbox under failure, on SQLite and Postgres: the Platform is killed while runs
 * checkpoint; the runs finish and no row is lost (all kept unsynced locally); when the Platform comes back on the same
 * port the outbox drains by itself (backoff retry, no new write needed); a row the Platform rejects on payload
 * grounds is quarantined with the Platform's reason and does not block the rows after it; a refused key (401) stops
 * the drain with every row kept.
 */
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import pg from 'pg';
import { connect, disconnect, drainReplication, replicationStatus, type Checkpointer } from '../../src/index.js';
import { fiveSteps } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, startPlatform, type ScenarioContext } from '../harness/index.js';

const area = conformance('connected: replication outage and quarantine');
const KEY = 'ak_outage_0123456789abcdef';

async function quarantineReasons(t: ScenarioContext): Promise<Record<string, string>> {
  const sql = 'SELECT checkpoint_id, quarantine_reason FROM %s WHERE quarantine_reason IS NOT NULL';
  if (t.backend.kind === 'sqlite') {
    const db = new Database(t.backend.dbPath, { readonly: true });
    try {
      return Object.fromEntries((db.prepare(sql.replace('%s', 'checkpoints')).all() as Array<{ checkpoint_id: string; quarantine_reason: string }>).map((r) => [r.checkpoint_id, r.quarantine_reason]));
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

area.scenario('Platform down while runs checkpoint: nothing lost, drains when back; a rejected row is quarantined and does not block', { timeoutMs: 60_000 }, async (t) => {
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
  const received = back.read((s) => s.checkpoints().map((r) => r.body.checkpoint_id as string));
  assert.equal([...received].sort(), [...expected].sort(), 'every row arrived once; the rejected one did not');
  const reasons = await quarantineReasons(t);
  assert.equal(Object.keys(reasons), [big.checkpoint_id]);
  assert.match(reasons[big.checkpoint_id]!, /^checkpoint is \d+ bytes, over the 8192-byte row limit$/);
  const last = await drainReplication(checkpointer);
  assert.equal([last?.outcome, last?.synced], ['drained', 0]);
});

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
  assert.is(platform.read((s) => s.checkpoints().length), 0);
});

area.run();
