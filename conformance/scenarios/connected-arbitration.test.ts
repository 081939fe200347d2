/**
 * The Platform arbitrates claims of replicated executions (docs/adr/0054), on both engines against the local
 * Platform: host A (the backend's store) pauses a refund and replicates it; host B (its own SQLite store) restores
 * it. Whichever host decides first wins; the other gets AlreadyResumed naming the host, principal and time of the
 * decision, lists nothing pending, and the side effect runs once; the Platform holds one decision and one `run_end`.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { AlreadyResumed, connect, disconnect, drainReplication, ExecutionBusy, SQLiteCheckpointer, type Checkpointer } from '../../src/index.js';
import { quarantinedRows } from '../../src/index.js';
import { decisionOf } from '../../src/durability/decision.js';
import { restoreIfMissing } from '../../src/durability/run-end.js';
import { PlatformUnavailable } from '../../src/platform/errors.js';
import { storeFlags, writeRunner } from '../fixtures/durability/cli-variant.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, startCounterServer, startPlatform, type LocalPlatform, type ScenarioContext } from '../harness/index.js';

/** `--db` naming the variant's store (resume takes one store value; SQLite comes from AGENTKIT_LOCAL_DB otherwise). */
function dbFlag(t: ScenarioContext): string[] {
  if (t.backend.kind !== 'postgres') return [];
  const url = new URL(t.backend.url);
  url.searchParams.set('schema', t.backend.schema);
  return ['--db', url.toString()];
}

const area = conformance('connected: the Platform arbitrates replicated executions');
const KEY = 'ak_arbiter_0123456789abcdef';

async function setUp(t: ScenarioContext) {
  let platform: LocalPlatform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
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
  const runEnds = async () =>
    await platform.read((s) => s.checkpoints().filter((r) => r.body.execution_id === 'refund-42' && r.body.step_type === 'run_end').length);
  /** Stop the Platform; the returned function starts it again on the same port and database. */
  const outage = async () => {
    const port = platform.port;
    await platform.stop();
    return async () => {
      platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY], port });
      return platform;
    };
  };
  return { platform, counter, hostA, hostB, runEnds, outage };
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
  const claim = (await platform.read((s) => s.claims()))[0]!;
  assert.is(
    (stale as Error).message,
    `execution 'refund-42' was already resumed: decided by alice (sdk) on host ${claim.host} at ${claim.decided_at} (the Platform holds that decision)`,
  );
  assert.equal(await hostA.listPendingInterrupts(), [], 'the stale host lists nothing pending');
  assert.is(counter.count('/finalize'), 1, 'the side effect ran once');
  assert.is(await platform.read((s) => s.claims().length), 1, 'one decision on the Platform');
  await drainReplication(hostA);
  assert.is(await runEnds(), 1, 'one run_end on the Platform');
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
  assert.ok((await platform.read((s) => s.claims().length)) <= 1, 'at most one decision on the Platform');
  await drainReplication(hostB);
  assert.is(await runEnds(), 1, 'one run_end on the Platform');
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
    assert.is(await platform.read((s) => s.claims().length), 1, 'one decision on the Platform');
    for (const host of hosts) {
      await drainReplication(host);
      assert.equal(await host.listPendingInterrupts(), [], 'nothing pending');
    }
    assert.is(await runEnds(), 1, 'one run_end on the Platform');
  },
);

area.scenario(
  'Platform stopped: a replicated pause is not decided, the override is named; with it the conflicting decision is quarantined and shown',
  { timeoutMs: 90_000 },
  async (t) => {
    const { platform, counter, hostA, hostB, outage } = await setUp(t);
    const targetUrl = platform.url;
    // Host B decides through the Platform; then the Platform goes away before stale host A tries.
    const done = await approvalChain(hostB, { counterUrl: counter.url }).resume('refund-42', {
      resumeValue: { approved: true, metadata: {} },
      approver: 'alice',
    });
    assert.is(done.status, 'completed');
    await drainReplication(hostB);
    const restart = await outage();

    const refused = await approvalChain(hostA, { counterUrl: counter.url })
      .resume('refund-42', { resumeValue: { approved: false, metadata: {} }, approver: 'bob' })
      .catch((e: unknown) => e);
    assert.instance(refused, PlatformUnavailable);
    const message = (refused as Error).message;
    assert.match(message, /^the Platform at http:\/\/127\.0\.0\.1:\d+ cannot be reached to arbitrate execution 'refund-42' \(it was replicated/);
    assert.ok(message.includes('pass --offline-decision (SDK: { offlineDecision: true })'), message);
    assert.not.ok(message.includes(KEY), 'the key is never in an error');
    assert.is((await hostA.listPendingInterrupts()).length, 1, 'a refused resume claims nothing');

    // The CLI, connected through the environment: the same refusal as one line and exit 1; with the flag it decides.
    const runner = await writeRunner(t);
    const env = { AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: targetUrl };
    const args = ['resume', 'refund-42', '--runner', runner, '--value', '{"approved": false}', '--approver', 'bob', ...dbFlag(t)];
    const cli = await t.cli(args, { env });
    assert.is(cli.code, 1, cli.stdout + cli.stderr);
    assert.match(cli.stderr, /^error: the Platform at \S+ cannot be reached to arbitrate execution 'refund-42' .* pass --offline-decision .*\n$/);
    assert.is(cli.stderr.split('\n').length, 2, 'one line');
    const overridden = await t.cli([...args, '--offline-decision'], { env });
    assert.is(overridden.code, 0, overridden.stderr);
    assert.match(overridden.stdout, /^status: completed$/m);
    const offline = (await hostA.list('refund-42', { limit: 1000 })).map(decisionOf).find((d) => d !== null);
    assert.ok(offline?.offlineHost, 'the decision is recorded as made offline, naming the host');

    await restart();
    // This process's outbox retries on its own once the Platform is back; draining now waits for what is left.
    await drainReplication(hostA);
    const conflicts = await quarantinedRows(hostA, { executionId: 'refund-42' });
    assert.equal(
      conflicts.map((c) => c.step_type),
      ['resume'],
      'the Platform refused the offline decision row, and only it',
    );
    const reasons = conflicts.map((c) => c.reason);
    assert.match(reasons[0]!, /^conflict: decided by alice \(sdk\) on \S+ at \S+$/);
    assert.equal(await (hostA as SQLiteCheckpointer).fetchUnsynced(100), [], 'everything else was sent');

    const inspect = await t.cli(['inspect', 'refund-42', ...storeFlags(t)]);
    assert.is(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, /^Decision: {2}manager_approval: declined by bob \(cli\) at \S+ \(offline, on \S+, without the Platform\)$/m);
    assert.ok(inspect.stdout.includes(`Conflict:  approval: this host's offline decision was refused by the Platform (${reasons[0]})`), inspect.stdout);
    const json = JSON.parse((await t.cli(['inspect', 'refund-42', '--json', ...storeFlags(t)])).stdout);
    assert.equal(
      json.conflicts.map((c: { reason: string }) => c.reason),
      [reasons[0]],
    );
    const pending = await t.cli(['list-pending', ...storeFlags(t)]);
    assert.is(pending.code, 0);
    assert.ok(
      pending.stdout.includes(
        `No pending interrupts.\n\nConflicts: 1 offline decision(s) refused by the Platform (agentkit inspect <id> shows both):\n  refund-42 at approval: ${reasons[0]}\n`,
      ),
      pending.stdout,
    );
  },
);

area.scenario(
  'an offline decision that reaches the Platform first is the decision in force: a later claim elsewhere is refused',
  { timeoutMs: 90_000 },
  async (t) => {
    const { counter, hostA, hostB, outage } = await setUp(t);
    // Host B holds a stale paused copy, restored from the Platform before the outage.
    await restoreIfMissing(hostB, 'refund-42');
    assert.is((await hostB.listPendingInterrupts()).length, 1);
    const restart = await outage();
    const overridden = await approvalChain(hostA, { counterUrl: counter.url }).resume('refund-42', {
      resumeValue: { approved: true, metadata: {} },
      approver: 'carol',
      offlineDecision: true,
    });
    assert.is(overridden.status, 'completed');
    const platform = await restart();
    const drained = await drainReplication(hostA);
    assert.equal(drained?.quarantined, {}, 'no other decision: accepted');
    const claims = await platform.read((s) => s.claims());
    assert.equal(
      claims.map((c) => [c.execution_id, c.decision.decided_by.principal]),
      [['refund-42', 'carol']],
    );
    const late = await approvalChain(hostB, { counterUrl: counter.url })
      .resume('refund-42', { resumeValue: { approved: false, metadata: {} }, approver: 'dave' })
      .catch((e: unknown) => e);
    assert.instance(late, AlreadyResumed);
    assert.match((late as Error).message, /decided by carol \(sdk\) on host \S+ at /, (late as Error).message);
    assert.is(counter.count('/finalize'), 1, 'the side effect ran once');
    assert.equal(await hostB.listPendingInterrupts(), [], 'the stale copy lists nothing pending');
  },
);

area.run();
