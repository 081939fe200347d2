/**
 * The Platform arbitrates claims of replicated executions (docs/adr/0054), on both engines against the local
 * Platform: host A (the backend's store) pauses a refund and replicates it; host B (its own SQLite store) restores
 * it. Whichever host decides first wins; the other gets AlreadyResumed naming the host, principal and time of the
 * decision, lists nothing pending, and the side effect runs once; the Platform holds one decision and one `run_end`.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { AlreadyResumed, connect, disconnect, drainReplication, ExecutionBusy, SQLiteCheckpointer, type Checkpointer } from '../../src/index.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, startCounterServer, startPlatform, type ScenarioContext } from '../harness/index.js';

const area = conformance('connected: the Platform arbitrates replicated executions');
const KEY = 'ak_arbiter_0123456789abcdef';

async function setUp(t: ScenarioContext) {
  const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
  t.defer(() => platform.stop());
  const counter = await startCounterServer();
  t.defer(() => counter.close());
  t.defer(() => disconnect());
  await connect({ apiKey: KEY, target: platform.url });
  const hostA = checkpointerFor(t.backend) as Checkpointer;
  t.defer(() => hostA.close());
  const hostB = new SQLiteCheckpointer(path.join(t.cwd, 'host-b', 'local.db'));
  t.defer(() => hostB.close());
  const paused = await approvalChain(hostA, { counterUrl: counter.url }).run({ amount: 120 }, { executionId: 'refund-42' });
  assert.is(paused.status, 'paused');
  assert.is((await drainReplication(hostA))?.outcome, 'drained');
  const runEnds = () => platform.read((s) => s.checkpoints().filter((r) => r.body.execution_id === 'refund-42' && r.body.step_type === 'run_end').length);
  return { platform, counter, hostA, hostB, runEnds };
}

area.scenario('host B decides first: stale host A gets AlreadyResumed naming B, and lists nothing pending', { timeoutMs: 60_000 }, async (t) => {
  const { platform, counter, hostA, hostB, runEnds } = await setUp(t);
  const done = await approvalChain(hostB, { counterUrl: counter.url }).resume('refund-42', {
    resumeValue: { approved: true, metadata: {} },
    approver: 'alice',
  });
  assert.is(done.status, 'completed');
  await drainReplication(hostB);

  const stale = await approvalChain(hostA, { counterUrl: counter.url })
    .resume('refund-42', { resumeValue: { approved: false, metadata: {} }, approver: 'bob' })
    .catch((e: unknown) => e);
  assert.instance(stale, AlreadyResumed);
  const claim = platform.read((s) => s.claims())[0]!;
  assert.is(
    (stale as Error).message,
    `execution 'refund-42' was already resumed: decided by alice (sdk) on host ${claim.host} at ${claim.decided_at} (the Platform holds that decision)`,
  );
  assert.equal(await hostA.listPendingInterrupts(), [], 'the stale host lists nothing pending');
  assert.is(counter.count('/finalize'), 1, 'the side effect ran once');
  assert.is(
    platform.read((s) => s.claims().length),
    1,
    'one decision on the Platform',
  );
  await drainReplication(hostA);
  assert.is(runEnds(), 1, 'one run_end on the Platform');
});

area.scenario('host A decides first: host B, restoring afterwards, gets AlreadyResumed; the side effect runs once', { timeoutMs: 60_000 }, async (t) => {
  const { platform, counter, hostA, hostB, runEnds } = await setUp(t);
  const done = await approvalChain(hostA, { counterUrl: counter.url }).resume('refund-42', {
    resumeValue: { approved: true, metadata: {} },
    approver: 'alice',
  });
  assert.is(done.status, 'completed');
  await drainReplication(hostA);

  const late = await approvalChain(hostB, { counterUrl: counter.url })
    .resume('refund-42', { resumeValue: { approved: false, metadata: {} }, approver: 'bob' })
    .catch((e: unknown) => e);
  assert.instance(late, AlreadyResumed);
  assert.equal(await hostB.listPendingInterrupts(), []);
  assert.equal(await hostA.listPendingInterrupts(), []);
  assert.is(counter.count('/finalize'), 1);
  assert.ok(platform.read((s) => s.claims().length) <= 1, 'at most one decision on the Platform');
  await drainReplication(hostB);
  assert.is(runEnds(), 1, 'one run_end on the Platform');
});

area.scenario(
  '8 resumers racing across 3 hosts: one decision applied, every other attempt refused, nothing pending anywhere',
  { timeoutMs: 90_000 },
  async (t) => {
    const { platform, counter, hostA, hostB, runEnds } = await setUp(t);
    const hostC = new SQLiteCheckpointer(path.join(t.cwd, 'host-c', 'local.db'));
    t.defer(() => hostC.close());
    const hosts = [hostA, hostB, hostC];
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        approvalChain(hosts[i % 3]!, { counterUrl: counter.url })
          .resume('refund-42', { resumeValue: { approved: i % 2 === 0, metadata: {} }, approver: `user-${i}` })
          .then(
            (result) => result.status,
            (error: unknown) => error,
          ),
      ),
    );
    const completed = attempts.filter((a) => a === 'completed');
    assert.is(completed.length, 1, `outcomes: ${attempts.map((a) => (typeof a === 'string' ? a : (a as Error).constructor.name)).join(', ')}`);
    assert.ok(
      attempts.every((a) => a === 'completed' || a instanceof AlreadyResumed || a instanceof ExecutionBusy),
      attempts.map((a) => (typeof a === 'string' ? a : (a as Error).message)).join(' | '),
    );
    assert.is(counter.count('/finalize'), 1, 'the side effect ran once');
    assert.is(
      platform.read((s) => s.claims().length),
      1,
      'one decision on the Platform',
    );
    for (const host of hosts) {
      await drainReplication(host);
      assert.equal(await host.listPendingInterrupts(), [], 'nothing pending');
    }
    assert.is(runEnds(), 1, 'one run_end on the Platform');
  },
);

area.run();
