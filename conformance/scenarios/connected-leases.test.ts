/**
 * Continuing a replicated execution after a crash takes the Platform's lease (docs/adr/0054), on both engines
 * against the local Platform. Host A runs a chain that stops mid-way (its node waits); its rows reached the Platform,
 * which keeps the execution leased while they arrive. Host B (its own store, a restored copy) cannot continue it
 * then (ExecutionBusy naming the lease); once A is silent past the lease time (a crash), B takes the lease and
 * finishes the run; a host with a stale copy then learns the run finished (AlreadyResumed) and runs nothing. The
 * side effect runs once.
 */
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { AlreadyResumed, Chain, connect, disconnect, drainReplication, ExecutionBusy, SQLiteCheckpointer, type Checkpointer } from '../../src/index.js';
import { restoreIfMissing } from '../../src/durability/run-end.js';
import { checkpointerFor, conformance, startCounterServer, startPlatform } from '../harness/index.js';

const area = conformance('connected: the Platform leases replicated executions continued after a crash');
const KEY = 'ak_leases_0123456789abcdef';
const LEASE_TTL_MS = 1500;

/** A chain whose middle node waits for `gate`, then a side effect counted by the counter server. */
function slowChain(checkpointer: Checkpointer, gate: Promise<void>, counterUrl: string): Chain {
  return new Chain('slow', { checkpointer })
    .addNode('start', () => ({ order: 42 }))
    .addNode('wait', async () => {
      await gate;
      return { waited: true };
    })
    .addNode('refund', async () => {
      await fetch(`${counterUrl}/refund`, { method: 'POST' });
      return { refunded: true };
    })
    .connect('start', 'wait')
    .connect('wait', 'refund');
}

area.scenario('a live run is not continued elsewhere; after its silence one host continues it; a stale copy runs nothing', { timeoutMs: 90_000 }, async (t) => {
  const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY], leaseTtlMs: LEASE_TTL_MS });
  t.defer(() => platform.stop());
  const counter = await startCounterServer();
  t.defer(() => counter.close());
  t.defer(() => disconnect());
  await connect({ apiKey: KEY, target: platform.url });

  const hostA = checkpointerFor(t.backend) as Checkpointer;
  t.defer(() => hostA.close());
  let crash!: (error: Error) => void;
  const stuck = new Promise<void>((_, reject) => {
    crash = reject;
  });
  const running = slowChain(hostA, stuck, counter.url)
    .run({}, { executionId: 'slow-1' })
    .catch((error: unknown) => error);
  // A has written its first rows and they reached the Platform.
  for (let i = 0; i < 200 && (await hostA.list('slow-1', { limit: 10 })).length < 2; i++) await sleep(25);
  await drainReplication(hostA);

  const hostB = new SQLiteCheckpointer(path.join(t.cwd, 'host-b', 'local.db'));
  t.defer(() => hostB.close());
  const hostC = new SQLiteCheckpointer(path.join(t.cwd, 'host-c', 'local.db'));
  t.defer(() => hostC.close());
  for (const host of [hostB, hostC]) {
    await restoreIfMissing(host, 'slow-1');
    assert.ok((await host.list('slow-1', { limit: 10 })).length >= 1, 'a restored copy');
  }

  const busy = await slowChain(hostB, Promise.resolve(), counter.url)
    .resume('slow-1')
    .catch((e: unknown) => e);
  assert.instance(busy, ExecutionBusy);
  assert.match(
    (busy as Error).message,
    /^execution 'slow-1' is being run elsewhere: its running run on the host sending its rows holds the Platform's lease until \S+; nothing was run here/,
  );
  assert.is(counter.count('/refund'), 0, 'nothing ran on B');

  // A crashes (it stops sending rows): once the lease lapses, B continues the run to its end.
  await sleep(LEASE_TTL_MS + 500);
  const done = await slowChain(hostB, Promise.resolve(), counter.url).resume('slow-1');
  assert.is(done.status, 'completed');
  assert.is(counter.count('/refund'), 1);
  await drainReplication(hostB);

  // A stale copy learns the run finished and runs nothing.
  const stale = await slowChain(hostC, Promise.resolve(), counter.url)
    .resume('slow-1')
    .catch((e: unknown) => e);
  assert.instance(stale, AlreadyResumed);
  assert.match((stale as Error).message, /^execution 'slow-1' already finished elsewhere \(its run_end of \S+ is on the Platform\)/);
  assert.is(counter.count('/refund'), 1, 'the side effect ran once');
  const runEnds = await platform.read((s) => s.checkpoints().filter((r) => r.body.execution_id === 'slow-1' && r.body.step_type === 'run_end').length);
  assert.is(runEnds, 1, 'one run_end on the Platform');

  crash(new Error('host A crashed'));
  await running;
});

area.run();
