/**
 * Connected mode, checkpoint replication and restore, on SQLite and Postgres against the local Platform server:
 * a paused run replicates (every row, oldest first, marked synced only once acknowledged); the local store is lost;
 * `agentkit resume` on a new store restores it from the Platform and completes it; after a restore, 16 concurrent
 * resumers still yield exactly one winner; restore is skipped when disabled, when not connected, or when the store
 * knows the execution. A paused Swarm and a paused Supervisor (whose resumes read more than the latest row) restore
 * their whole replicated history and complete. Rows a previous process left unsent go out when a later process connects (with no new write);
 * a restore the Platform cannot answer fails with one line naming the Platform and the missing local record.
 */
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  AlreadyResumed,
  connect,
  disconnect,
  drainReplication,
  ExecutionBusy,
  jobScope,
  PlatformError,
  PostgresCheckpointer,
  restoreIfMissing,
  SQLiteCheckpointer,
  type Checkpointer,
} from '../../src/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { TraceStore } from '../../src/tracing/trace-store.js';
import { approverAgent } from '../fixtures/durability/agents.js';
import { approvalChain, fiveSteps } from '../fixtures/durability/chains.js';
import { contentTeam, newProbe, planner } from '../fixtures/multi-agent/team.js';
import { conformance, spawnNode, startCounterServer, startPlatform, type ScenarioContext } from '../harness/index.js';
import { createTestSchema, dropTestSchema, testPgUrl } from '../harness/postgres.js';

const area = conformance('connected: checkpoint replication and restore');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chainsModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
const KEY = 'ak_replica_0123456789abcdef';

type Store = { kind: 'sqlite'; dbPath: string } | { kind: 'postgres'; url: string; schema: string };

/** A brand-new, empty store of the variant's backend ("another host"). */
async function newStore(t: ScenarioContext, name: string): Promise<Store> {
  if (t.backend.kind === 'postgres') {
    const schema = await createTestSchema(testPgUrl());
    t.defer(() => dropTestSchema(schema, testPgUrl()));
    return { kind: 'postgres', url: testPgUrl(), schema };
  }
  return { kind: 'sqlite', dbPath: path.join(t.cwd, name, 'local.db') };
}

function open(store: Store): Checkpointer {
  return store.kind === 'sqlite' ? new SQLiteCheckpointer(store.dbPath) : new PostgresCheckpointer(store.url, { schema: store.schema });
}

area.scenario(
  'a paused run replicates; on a new store `agentkit resume` restores and completes it; 16 resumers after restore: one winner',
  { surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    t.defer(() => disconnect());
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    await connect({ apiKey: KEY, target: platform.url });

    // Host A pauses two runs; the outbox sends every row.
    const hostA = await newStore(t, 'host-a');
    const a = open(hostA);
    t.defer(() => a.close());
    for (const id of ['exec-cli', 'exec-race'])
      assert.is((await approvalChain(a, { counterUrl: counter.url }).run('refund order 42', { executionId: id })).status, 'paused');
    const drained = await drainReplication(a);
    assert.is(drained?.outcome, 'drained');
    const local = await a.list('exec-cli');
    const remote = (await platform.read((s) => s.checkpoints().map((r) => r.body))).filter((r) => r.execution_id === 'exec-cli');
    assert.equal(
      remote.map((r) => [r.checkpoint_id, r.node_id, r.status]),
      local.map((r) => [r.checkpoint_id, r.node_id, r.status]),
      'every row, oldest first',
    );
    assert.ok(remote.every((r, i) => i === 0 || (r.sequence as number) > (remote[i - 1]!.sequence as number)));
    assert.equal(await (a as SQLiteCheckpointer).fetchUnsynced(100), [], 'all marked synced');
    disconnect();

    // Host B: empty store; the CLI (connected through the environment) restores and completes the run.
    const hostB = await newStore(t, 'host-b');
    const runner = path.join(t.cwd, 'runner.mts');
    await writeFile(
      runner,
      `import { approvalRunner } from ${JSON.stringify(chainsModule)};\nexport const refund = () => approvalRunner(${JSON.stringify(hostB)}, { counterUrl: ${JSON.stringify(counter.url)} });\n`,
    );
    const env = { HOME: path.join(t.cwd, 'home'), AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: platform.url };
    const off = await t.cli(['resume', 'exec-cli', '--runner', 'runner.mts:refund'], { env: { ...env, AGENTKIT_RESTORE_FROM_PLANE: '0' } });
    assert.is(off.code, 1, 'restore disabled: the new store does not know the execution');
    const resumed = await t.cli(['resume', 'exec-cli', '--runner', 'runner.mts:refund'], { env });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /^execution_id: exec-cli\nstatus: completed\n/);
    assert.is(counter.count('/finalize'), 1);
    const b = open(hostB);
    t.defer(() => b.close());
    const rowsB = await b.list('exec-cli');
    assert.equal(
      rowsB.slice(0, local.length).map((r) => r.checkpoint_id),
      local.map((r) => r.checkpoint_id),
      'the whole replicated history, in order',
    );
    const after = rowsB.slice(local.length - 1);
    assert.equal(
      after.map((r) => [r.node_id, r.status, r.step_type]),
      [
        ['approval', 'interrupted', 'hitl_pause'],
        ['approval', 'completed', 'resume'],
        ['approval', 'completed', after[2]!.step_type],
        ['finalize', 'completed', after[3]!.step_type],
        ['run_end', 'completed', 'run_end'],
      ],
      'restored interrupted row, decision, rest of the run',
    );
    const sentBack = (await platform.read((s) => s.checkpoints().map((r) => r.body))).filter((r) => r.execution_id === 'exec-cli');
    assert.is(sentBack.length, local.length + 4, 'the resume replicated its new rows, not the restored ones again');

    // Host C: 16 resumers race on a fresh store; restore happens once and exactly one claims the pause.
    await connect({ apiKey: KEY, target: platform.url });
    const hostC = await newStore(t, 'host-c');
    const remoteRace = await platform.read((s) => (s.checkpointHistory('exec-race') as Array<{ checkpoint_id: string }>).map((r) => r.checkpoint_id));
    const handles = Array.from({ length: 4 }, () => open(hostC));
    for (const handle of handles) t.defer(() => handle.close());
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        approvalChain(handles[i % 4]!, { counterUrl: counter.url })
          .resume('exec-race', { resumeValue: { approved: true, metadata: { approver: `racer-${i}` } } })
          .then(
            (result) => result.status,
            (error: unknown) => {
              if (error instanceof AlreadyResumed || error instanceof ExecutionBusy) return 'lost';
              throw error;
            },
          ),
      ),
    );
    assert.is(outcomes.filter((o) => o === 'completed').length, 1, outcomes.join());
    assert.is(outcomes.filter((o) => o === 'lost').length, 15);
    assert.is(counter.count('/finalize'), 2, 'finalize ran once for each execution');
    assert.equal(await handles[0]!.listPendingInterrupts(), []);
    assert.is((await handles[0]!.list('exec-race')).filter((r) => r.status === 'interrupted').length, 1, 'restored once');
    const raceRows = (await handles[0]!.list('exec-race')).map((r) => r.checkpoint_id);
    assert.equal(raceRows.slice(0, remoteRace.length), remoteRace, 'every replicated row restored once, in order, then the resume');

    // The store knows the execution now: nothing is fetched.
    assert.is(await restoreIfMissing(handles[0]!, 'exec-race'), null);
    disconnect();
    assert.is(await restoreIfMissing(open(await newStore(t, 'host-d')), 'exec-race'), null, 'not connected: no restore');
  },
);

area.scenario(
  'a paused Agent replicates and resumes on a new store: the conversation comes back, the refund happens once',
  { timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    t.defer(() => disconnect());
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    await connect({ apiKey: KEY, target: platform.url });
    const a = open(await newStore(t, 'agent-a'));
    t.defer(() => a.close());
    const paused = await approverAgent(a, { counterUrl: counter.url }).agent.run('refund 40', { executionId: 'agent-remote' });
    assert.is(paused.status, 'paused');
    assert.is((await drainReplication(a))?.outcome, 'drained');

    const b = open(await newStore(t, 'agent-b'));
    t.defer(() => b.close());
    const done = await approverAgent(b, { counterUrl: counter.url }).agent.resume('agent-remote', {
      resumeValue: { approved: true, metadata: { approver: 'lee' } },
    });
    assert.is(done.status, 'completed');
    assert.is(done.output, 'Result: refunded 40 (approved by lee)');
    assert.is(counter.count('/refund'), 1);
    assert.equal(await b.listPendingInterrupts(), []);
  },
);

area.scenario(
  'a paused Swarm and a paused Supervisor replicate; on a new store each restores its whole history and completes',
  { timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    t.defer(() => disconnect());
    await connect({ apiKey: KEY, target: platform.url });
    const a = open(await newStore(t, 'multi-a'));
    t.defer(() => a.close());
    const order = ['worker_a', 'worker_b'] as const;
    assert.is(
      (
        await contentTeam(newProbe(), { checkpointer: a, analystTool: 'interrupt_analyze' }).run('Write the Q3 report', {
          executionId: 'swarm-remote',
          trace: false,
        })
      ).status,
      'paused',
    );
    assert.is(
      (
        await planner(newProbe(), { checkpointer: a, workerBTool: 'interrupt_step', order }).run('Prepare the Q3 report', {
          executionId: 'sup-remote',
          trace: false,
        })
      ).status,
      'paused',
    );
    assert.is((await drainReplication(a))?.outcome, 'drained');
    const written = { swarm: (await a.list('swarm-remote')).map((r) => r.checkpoint_id), sup: (await a.list('sup-remote')).map((r) => r.checkpoint_id) };

    // Host B: an empty store; the local store of host A is gone.
    const b = open(await newStore(t, 'multi-b'));
    t.defer(() => b.close());
    const swarmProbe = newProbe();
    const swarm = await contentTeam(swarmProbe, { checkpointer: b, analystTool: 'interrupt_analyze' }).resume('swarm-remote', {
      resumeValue: { approved: true, metadata: { approver: 'alice' } },
      trace: false,
    });
    assert.is(swarm.status, 'completed');
    assert.is(swarm.output, 'Report complete.');
    assert.equal(
      swarm.tool_calls.map((c) => c.tool_name),
      ['handoff_to_analyst', 'interrupt_analyze', 'handoff_to_reporter'],
    );
    assert.equal(
      [swarmProbe.models.researcher!.calls, swarmProbe.models.analyst!.calls, swarmProbe.models.reporter!.calls],
      [0, 1, 1],
      'the researcher is not asked again',
    );
    assert.equal(
      (await b.list('swarm-remote')).slice(0, written.swarm.length).map((r) => r.checkpoint_id),
      written.swarm,
      'the whole history, in order',
    );

    const supProbe = newProbe();
    const sup = await planner(supProbe, { checkpointer: b, workerBTool: 'interrupt_step', order }).resume('sup-remote', {
      resumeValue: { approved: true, metadata: { approver: 'alice' } },
      trace: false,
    });
    assert.is(sup.status, 'completed');
    assert.is(sup.output, 'Final report ready.');
    assert.equal(
      [supProbe.models.planner!.calls, supProbe.models.worker_a!.calls, supProbe.models.worker_b!.calls],
      [3, 0, 1],
      'worker_a answered from its restored record',
    );
    assert.equal(
      (await b.list('sup-remote')).slice(0, written.sup.length).map((r) => r.checkpoint_id),
      written.sup,
    );
    assert.equal(await b.listPendingInterrupts(), []);
  },
);

area.scenario('the UI resume route restores a run paused on another host and resumes it', { surfaces: ['http'], timeoutMs: 40_000 }, async (t) => {
  const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
  t.defer(() => platform.stop());
  t.defer(() => disconnect());
  const counter = await startCounterServer();
  t.defer(() => counter.close());
  await connect({ apiKey: KEY, target: platform.url });
  const a = open(await newStore(t, 'ui-a'));
  t.defer(() => a.close());
  assert.is((await approvalChain(a).run('refund', { executionId: 'ui-remote' })).status, 'paused');
  await drainReplication(a);

  const b = open(await newStore(t, 'ui-b'));
  t.defer(() => b.close());
  const app = createUiApp({
    checkpointer: b,
    traceStore: new TraceStore({ dbPath: path.join(t.cwd, 'ui-traces.db') }),
    auth: { mode: 'none' },
    runners: [approvalChain(b, { counterUrl: counter.url })],
  });
  const { url } = await t.serve(app);
  const status = await fetch(`${url}/api/auth/status`);
  const csrf = /agentkit_csrf=([0-9a-f]+)/.exec(status.headers.getSetCookie().join(';'))![1]!;
  const response = await fetch(`${url}/api/executions/ui-remote/resume`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `agentkit_csrf=${csrf}`, 'x-csrf-token': csrf },
    body: JSON.stringify({ approved: true, metadata: { approver: 'ui' } }),
  });
  const body = (await response.json()) as { result: { status: string } };
  assert.is(response.status, 200, JSON.stringify(body));
  assert.is(body.result.status, 'completed');
  assert.is(counter.count('/finalize'), 1);
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function waitFor(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

area.scenario(
  'rows queued while connected that a previous process left unsent go out when a later process connects and opens the store, with no new write',
  { timeoutMs: 40_000 },
  async (t) => {
    // The Platform is down while the previous process runs connected: its rows are queued, none is sent.
    const down = await startPlatform({ dir: t.cwd, apiKeys: [KEY], dbName: 'down.db' });
    await down.stop();
    t.defer(() => disconnect());
    const store = await newStore(t, 'leftover');
    await connect({ apiKey: KEY, target: down.url });
    const first = open(store);
    assert.is((await fiveSteps(first).run({ total: 0 }, { executionId: 'leftover' })).status, 'completed');
    const written = (await first.list('leftover')).map((r) => r.checkpoint_id);
    assert.is((await (first as SQLiteCheckpointer).fetchUnsynced(100)).length, written.length, 'queued while connected');
    await first.close();
    disconnect();

    // This process connects (the Platform is back on the same address), then only reads the store.
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY], port: down.port });
    t.defer(() => platform.stop());
    await connect({ apiKey: KEY, target: platform.url });
    const second = open(store);
    t.defer(() => second.close());
    assert.is((await second.list('leftover')).length, written.length);
    await waitFor('the leftover rows to reach the Platform', async () => (await platform.read((s) => s.checkpoints().length)) === written.length);
    assert.equal(await platform.read((s) => s.checkpoints().map((r) => r.body.checkpoint_id)), written, 'every row, oldest first');
    await waitFor('the rows to be marked synced', async () => (await (second as SQLiteCheckpointer).fetchUnsynced(100)).length === 0);
  },
);

area.scenario('connect() alone flushes the default local store a previous process left unsent', { backends: ['sqlite'], timeoutMs: 40_000 }, async (t) => {
  const down = await startPlatform({ dir: t.cwd, apiKeys: [KEY], dbName: 'down.db' });
  await down.stop();
  const dbPath = path.join(t.cwd, 'default', 'local.db');
  const first = new SQLiteCheckpointer(dbPath);
  // Queued by a run inside a connected job whose Platform is down: nothing is sent.
  await jobScope({ apiKey: KEY, target: down.url }, () => fiveSteps(first).run({ total: 0 }, { executionId: 'left-in-default' }));
  const written = (await first.list('left-in-default')).map((r) => r.checkpoint_id);
  assert.is((await first.fetchUnsynced(100)).length, written.length, 'queued while connected');
  await first.close();
  const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY], port: down.port });
  t.defer(() => platform.stop());

  const later = spawnNode('conformance/fixtures/platform/connect-and-wait.ts', [], {
    env: { HOME: path.join(t.cwd, 'home'), AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: platform.url, AGENTKIT_LOCAL_DB: dbPath },
  });
  t.defer(async () => {
    later.process.kill('SIGKILL');
    await later.exited;
  });
  await later.waitForLine((line) => line === 'connected', 20_000);
  await waitFor('the default store to be flushed', async () => (await platform.read((s) => s.checkpoints().length)) === written.length);
  assert.equal(await platform.read((s) => s.checkpoints().map((r) => r.body.checkpoint_id)), written);
  const check = new SQLiteCheckpointer(dbPath);
  t.defer(() => check.close());
  await waitFor('the rows to be marked synced', async () => (await check.fetchUnsynced(100)).length === 0);
});

area.scenario(
  'a process whose only work left is an awaited drainReplication stays up for it, a second round after a linger included',
  { backends: ['sqlite'], timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    const dbPath = path.join(t.cwd, 'waiter', 'local.db');
    const child = spawnNode('conformance/fixtures/platform/drain-waiter.ts', [dbPath], {
      env: { HOME: path.join(t.cwd, 'home'), AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: platform.url, AGENTKIT_LOCAL_DB: dbPath },
    });
    t.defer(() => child.process.kill('SIGKILL'));
    const exit = await child.exit();
    assert.is(exit.code, 0, child.stderr());
    // Before the fix the process ended during the drain's unref'd linger and printed nothing.
    assert.equal(child.lines, ['drained drained, 0 unsynced']);
    assert.is(await platform.read((s) => new Set(s.checkpoints().map((r) => r.body.execution_id)).size), 2, 'both runs reached the Platform');
  },
);

area.scenario(
  'a restore the Platform cannot answer: one line naming the Platform and that the local store has no record',
  { surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const target = `http://127.0.0.1:${await closedPort()}`;
    const expected = `cannot restore execution 'exec-elsewhere': the local store has no record of it and the Platform at ${target} is unreachable (ECONNREFUSED); try again when the Platform answers, or set AGENTKIT_RESTORE_FROM_PLANE=0 to use the local store alone`;
    t.defer(() => disconnect());
    const connected = await connect({ apiKey: KEY, target });
    assert.is(connected.verified, false);
    const store = await newStore(t, 'unreachable');
    const b = open(store);
    t.defer(() => b.close());
    const error = await approvalChain(b)
      .resume('exec-elsewhere', { resumeValue: { approved: true } })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.instance(error, PlatformError);
    assert.is((error as Error).message, expected);
    disconnect();

    const runner = path.join(t.cwd, 'runner.mts');
    await writeFile(
      runner,
      `import { approvalRunner } from ${JSON.stringify(chainsModule)};\nexport const refund = () => approvalRunner(${JSON.stringify(store)});\n`,
    );
    const result = await t.cli(['resume', 'exec-elsewhere', '--runner', 'runner.mts:refund'], {
      env: { HOME: path.join(t.cwd, 'home'), AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: target },
    });
    assert.is(result.code, 1);
    const lines = result.stderr.trim().split('\n');
    assert.is(lines.length, 1, result.stderr);
    assert.ok(lines[0]!.endsWith(expected), lines[0]);
    assert.not.match(result.stderr, /fetch failed|TypeError|\n\s+at /);
  },
);

area.run();
