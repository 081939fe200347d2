/**
 * Exactly once, with real processes on SQLite and Postgres, for an Agent, a Chain, a Swarm and a Supervisor whose
 * approved body is slow (500 ms) and logs each run of itself:
 *
 *   - N concurrent `agentkit resume` processes (the built binary) without `--value` on a paused run: exactly one
 *     exits 0, the body runs once, one terminal row, no pending row left (the others exit 2: ExecutionBusy, or
 *     AlreadyResumed when they arrive after the winner finished);
 *   - a resumer SIGKILLed right after its claim: the next resume completes with the first decision, never pausing;
 *   - SIGKILL in the first node / first model call / first member: `resume` by id continues the run;
 *   - a crashed run resumed by two processes at once: one runs, the other gets ExecutionBusy; a lease whose owner
 *     died is taken over once it expires.
 *
 * Size (CI): `AGENTKIT_RACE_PROCESSES` racers (default 4) x `AGENTKIT_RACE_TRIALS` trials (default 1) per runner and
 * backend. The long soak (8 and 32 processes, 20 trials): `SOAK_SIZES=8,32 SOAK_TRIALS=20 node scripts/bench.mjs exactly-once`.
 */
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Checkpoint } from '../../src/index.js';
import { exactlyOnceRunner, RUNNER_KINDS, type RunnerKind } from '../fixtures/durability/exactly-once.js';
import { backendConfig, checkpointerFor, conformance, spawnNode, startCli, type ScenarioContext } from '../harness/index.js';

const area = conformance('durability: exactly once');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROCESSES = Number(process.env.AGENTKIT_RACE_PROCESSES ?? 4);
const TRIALS = Number(process.env.AGENTKIT_RACE_TRIALS ?? 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const input = (kind: RunnerKind) => (kind === 'chain' ? 'refund 5' : 'Please refund 5');

/** A runner file exporting every kind on the variant's store, and a fresh log file. */
async function setUp(t: ScenarioContext, tag: string): Promise<{ runner: (kind: RunnerKind) => string; logFile: string }> {
  const fixture = pathToFileURL(path.join(root, 'conformance/fixtures/durability/exactly-once.ts')).href;
  const config = JSON.stringify(backendConfig(t.backend));
  const lines = RUNNER_KINDS.map((kind) => `export const ${kind} = () => exactlyOnceRunnerFor(${JSON.stringify(kind)}, ${config});`);
  await writeFile(path.join(t.cwd, 'runners.mts'), `import { exactlyOnceRunnerFor } from ${JSON.stringify(fixture)};\n${lines.join('\n')}\n`);
  return { runner: (kind) => `runners.mts:${kind}`, logFile: path.join(t.cwd, `${tag}.log`) };
}

function logLines(file: string, prefix: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith(prefix))
    : [];
}

async function waitForLog(file: string, prefix: string, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (logLines(file, prefix).length < count) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} '${prefix}' line(s) in ${file}`);
    await sleep(50);
  }
}

/** Terminal rows of the execution's owner (workers of a supervisor write their own at their paths). */
function ownerEnds(rows: readonly Checkpoint[]): Checkpoint[] {
  return rows.filter((r) => r.step_type === 'run_end' && (r.agent_path === null || !r.agent_path.includes('/')));
}

/** Point the fixture's log at `file` in this process (for in-process runs and resumes) until the scenario ends. */
function logHere(t: ScenarioContext, file: string): void {
  const previous = process.env.EXACTLY_ONCE_LOG;
  process.env.EXACTLY_ONCE_LOG = file;
  t.defer(() => {
    if (previous === undefined) delete process.env.EXACTLY_ONCE_LOG;
    else process.env.EXACTLY_ONCE_LOG = previous;
  });
}

/** Resume `kind`'s execution in this process, as the SDK surface does. */
async function resumeHere(
  t: ScenarioContext,
  kind: RunnerKind,
  executionId: string,
  options: Record<string, unknown>,
): Promise<{ status: string; output: unknown }> {
  const checkpointer = checkpointerFor(t.backend);
  try {
    return await (exactlyOnceRunner(kind, checkpointer).resume as (id: string, o: unknown) => Promise<{ status: string; output: unknown }>)(
      executionId,
      options,
    );
  } finally {
    await checkpointer.close();
  }
}

async function pause(t: ScenarioContext, kind: RunnerKind, executionId: string): Promise<void> {
  const checkpointer = checkpointerFor(t.backend);
  try {
    const paused = await exactlyOnceRunner(kind, checkpointer).run(input(kind), { executionId } as never);
    assert.is(paused.status, 'paused', `${kind} paused`);
  } finally {
    await checkpointer.close();
  }
}

area.scenario(
  `${PROCESSES} concurrent agentkit resume processes without --value: one exits 0, the body runs once, one terminal row (Agent, Chain, Swarm, Supervisor)`,
  { rows: ['cli:resume', 'transition:paused-claimed'], surfaces: ['cli'], timeoutMs: 600_000 },
  async (t) => {
    const { runner, logFile } = await setUp(t, 'race');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    for (const kind of RUNNER_KINDS) {
      for (let trial = 0; trial < TRIALS; trial++) {
        const id = `race-${kind}-${trial}`;
        await pause(t, kind, id);
        const before = logLines(logFile, 'body').length;
        const runs = await Promise.all(
          Array.from({ length: PROCESSES }, () => t.bin(['resume', id, '--runner', runner(kind)], { env: { EXACTLY_ONCE_LOG: logFile } })),
        );
        const winners = runs.filter((r) => r.code === 0);
        assert.is(winners.length, 1, `${kind} trial ${trial}: exit codes ${runs.map((r) => r.code).join(',')}; ${runs.map((r) => r.stderr).join(' | ')}`);
        assert.match(winners[0]!.stdout, 'status: completed');
        for (const loser of runs.filter((r) => r.code !== 0)) {
          assert.is(loser.code, 2, loser.stderr);
          assert.match(loser.stderr, /is being run by another process right now|already finished/);
        }
        assert.is(logLines(logFile, 'body').length - before, 1, `${kind} trial ${trial}: the approved body ran once`);
        const rows = await checkpointer.list(id, { limit: 10_000 });
        assert.equal(
          ownerEnds(rows).map((r) => r.run_status),
          ['completed'],
          `${kind} trial ${trial}: one terminal row`,
        );
        assert.is(rows.filter((r) => r.step_type === 'resume').length, 1, 'one decision recorded');
        assert.equal(await checkpointer.listPendingInterrupts(), [], 'no pending row left');
      }
    }
  },
);

area.scenario(
  'a resumer SIGKILLed right after its claim: the next resume completes with the first decision and never pauses again; a different value is refused',
  { rows: ['cli:resume', 'transition:paused->running'], surfaces: ['sdk', 'cli'], timeoutMs: 300_000 },
  async (t) => {
    const { runner, logFile } = await setUp(t, 'killed');
    logHere(t, logFile);
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const env = { EXACTLY_ONCE_LOG: logFile, AGENTKIT_EXECUTION_LEASE_MS: '1000' };
    for (const [i, kind] of RUNNER_KINDS.entries()) {
      const id = `killed-${kind}`;
      await pause(t, kind, id);
      const first = startCli(['resume', id, '--runner', runner(kind), '--value', '{"approved": true, "metadata": {"approver": "first"}}'], {
        cwd: t.cwd,
        env: { ...env, EXACTLY_ONCE_HANG: 'body', ...t.env },
      });
      t.defer(() => first.kill());
      await waitForLog(logFile, 'body', 2 * i + 1);
      first.kill();
      assert.is((await first.exited).signal, 'SIGKILL');
      assert.equal(await checkpointer.listPendingInterrupts(), [], 'the claim was committed');
      await sleep(1200); // the dead resumer's lease expires
      // For two kinds, a different value first: refused, naming the first decision (one pause has one decision).
      // Then without a value (approval by default, as the CLI sends it): the first decision applies.
      if (i % 2 === 1) {
        await resumeHere(t, kind, id, { resumeValue: { approved: false, metadata: { approver: 'second' } } }).then(
          () => assert.unreachable(`${kind}: a different decision must be refused`),
          (error: Error) => assert.match(error.message, /already has a decision: approved by \S+ \(cli\)/, kind),
        );
      }
      const next = await resumeHere(t, kind, id, { defaultResumeValue: { approved: true } });
      assert.is(next.status, 'completed', `${kind}: the run completed, it did not pause again`);
      assert.match(JSON.stringify(next.output), 'refunded 5', `${kind}: the approved branch ran`);
      const bodies = logLines(logFile, 'body').slice(-2);
      assert.equal(
        bodies.map((line) => JSON.parse(line.slice(5)) as unknown),
        [
          { approved: true, metadata: { approver: 'first' } },
          { approved: true, metadata: { approver: 'first' } },
        ],
        `${kind}: both runs of the body saw the first decision`,
      );
      const rows = await checkpointer.list(id, { limit: 10_000 });
      assert.equal(
        ownerEnds(rows).map((r) => r.run_status),
        ['completed'],
      );
      assert.is(rows.filter((r) => r.status === 'interrupted').length, 1, `${kind}: the human was asked once`);
    }
  },
);

area.scenario(
  'SIGKILL in the first node, first model call or first member: resume by id continues the run',
  { rows: ['transition:failed->running'], timeoutMs: 300_000 },
  async (t) => {
    const { logFile } = await setUp(t, 'first');
    logHere(t, logFile);
    const config = JSON.stringify(backendConfig(t.backend));
    for (const kind of ['chain', 'agent', 'swarm'] as const) {
      const id = `first-${kind}`;
      const child = spawnNode('conformance/fixtures/durability/exactly-once.ts', ['run', kind, config, id], {
        env: { EXACTLY_ONCE_LOG: logFile, EXACTLY_ONCE_HANG: 'first' },
      });
      t.defer(() => child.process.kill('SIGKILL'));
      await waitForLog(logFile, `started ${kind}`, 1);
      child.process.kill('SIGKILL');
      assert.is((await child.exit()).signal, 'SIGKILL');
      const resumed = await resumeHere(t, kind, id, { defaultResumeValue: { approved: true } });
      assert.is(resumed.status, 'paused', `${kind}: the run went on from its start to the approval (not "No checkpoint found")`);
      const approved = await resumeHere(t, kind, id, { defaultResumeValue: { approved: true } });
      assert.is(approved.status, 'completed');
      assert.is(logLines(logFile, `started ${kind}`).length, 2, `${kind}: the first step ran again once`);
    }
  },
);

area.scenario(
  "a crashed run resumed by two processes at once: one runs, the other gets ExecutionBusy; a dead local owner's lease is taken over at once, a remote one's once expired",
  { rows: ['cli:resume'], surfaces: ['cli'], timeoutMs: 300_000 },
  async (t) => {
    const { runner, logFile } = await setUp(t, 'lease');
    const config = JSON.stringify(backendConfig(t.backend));
    const crash = async (id: string) => {
      const child = spawnNode('conformance/fixtures/durability/exactly-once.ts', ['run', 'chain', config, id], {
        env: { EXACTLY_ONCE_LOG: logFile, EXACTLY_ONCE_HANG: 'first' },
      });
      t.defer(() => child.process.kill('SIGKILL'));
      await waitForLog(logFile, 'started', logLines(logFile, 'started').length + 1);
      child.process.kill('SIGKILL');
      await child.exit();
    };
    await crash('crashed-twice');
    // The resumed first node takes 3 s: both resumers start well within it.
    const both = await Promise.all(
      [0, 1].map(() => t.bin(['resume', 'crashed-twice', '--runner', runner('chain')], { env: { EXACTLY_ONCE_LOG: logFile, EXACTLY_ONCE_FIRST_MS: '3000' } })),
    );
    assert.equal(both.map((r) => r.code).sort(), [0, 2], both.map((r) => r.stderr).join(' | '));
    const busy = both.find((r) => r.code === 2)!;
    assert.match(
      busy.stderr,
      "error: execution id 'crashed-twice' (chain 'refund-flow') is being run by another process right now (it holds the execution's lease); nothing was run here.",
    );
    assert.match(both.find((r) => r.code === 0)!.stdout, 'status: paused');

    // The SIGKILLed run's lease names a process of this host that no longer exists: taken over at once.
    await crash('orphaned');
    const env = { EXACTLY_ONCE_LOG: logFile, AGENTKIT_EXECUTION_LEASE_MS: '5000' };
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const dead = await store.leaseOf('orphaned');
    assert.ok(dead && Date.parse(dead.expires_at) > Date.now(), 'the dead run still holds an unexpired lease');
    const atOnce = await t.bin(['resume', 'orphaned', '--runner', runner('chain')], { env });
    assert.is(atOnce.code, 0, atOnce.stderr);
    assert.match(atOnce.stdout, 'status: paused', "a dead local owner's lease was taken over before it expired");
    assert.is((await store.leaseOf('orphaned'))!.generation, dead!.generation + 1);

    // A holder on another host cannot be checked: its lease blocks until it expires.
    await crash('remote');
    const local = (await store.leaseOf('remote'))!.owner;
    assert.ok(await store.acquireLease('remote', 'elsewhere.example:4242:instance:owner', 5000, { takeOverFrom: local }));
    const takenAt = Date.now();
    const blocked = await t.bin(['resume', 'remote', '--runner', runner('chain')], { env });
    assert.is(blocked.code, 2, `the remote owner's lease still holds (${Date.now() - takenAt} ms after it was taken): ${blocked.stderr}`);
    assert.match(blocked.stderr, 'is being run by another process right now');
    await sleep(Math.max(0, takenAt + 5200 - Date.now()));
    const taken = await t.bin(['resume', 'remote', '--runner', runner('chain')], { env });
    assert.is(taken.code, 0, taken.stderr);
    assert.match(taken.stdout, 'status: paused', 'the expired lease was taken over and the run went on');
  },
);

area.run();
