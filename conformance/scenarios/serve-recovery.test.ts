/**
 * The served replica's recovery sweep (docs/adr/0050, docs/serving.md#recovery), on SQLite (processes sharing one
 * file) and on Postgres: three `agent serve` replicas of one runner on one store, with a short sweep interval, each
 * serving runs; one is SIGKILLed while its runs are inside their (idempotent) payout tool, and a fresh
 * replica takes its place. Five rounds: every execution the killed replica had started completes on a survivor,
 * recovered once (one recovery record, by another process), with one terminal row and its later side effect
 * (`notify`) done once; no execution is lost, failed or doubled. `--no-recover` leaves an orphan alone, and so does
 * every replica for a run started before the upgrade (fixtures/durability/pre-recovery: a v33 / Postgres v6 store).
 *
 * The lease lives 5 s. A SIGKILLed replica's leases are taken over at once whatever their time to live (its pid is
 * gone on this host, ADR 0015), so the time to live only has to outlast a loaded machine's stalls: a survivor whose
 * renewals stall past it is taken over by design, and its idempotent payout runs a third time. With 1 s, one CI run on
 * a loaded machine saw a victim's payout run three times; its log could not say which stall (a failure now prints the
 * payouts' processes, the recovery records and what the replicas said of recovery and leases).
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { supportsRecovery } from '../../src/durability/recovery-store.js';
import { listExecutions } from '../../src/recovery/index.js';
import { parseLeaseOwner } from '../../src/durability/lease-owner.js';
import type { BackendConfig } from '../fixtures/durability/chains.js';
import { liveLog, until, writeLiveRunner } from '../fixtures/durability/live-log.js';
import { backendConfig, checkpointerFor, conformance, startCli, type CliProcess, type ScenarioContext } from '../harness/index.js';
import { installOldStore } from '../harness/old-store.js';

const area = conformance('serving: recovery sweep of orphaned executions');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ROUNDS = 5;
const RUNS_PER_REPLICA = 3;
const ENV = {
  AGENTKIT_EXECUTION_LEASE_MS: '5000',
  AGENTKIT_RECOVER_INTERVAL_MS: '250',
  LIVE_TOOL_MS: '1500',
  LIVE_REPLAY_CLASS: 'idempotent',
};
/** How long a test waits to see that nothing recovers an orphan: eight sweep intervals (an orphan of a dead pid is due at once). */
const QUIET_MS = 8 * Number(ENV.AGENTKIT_RECOVER_INTERVAL_MS);

interface Replica {
  proc: CliProcess;
  url: string;
  pid: number;
}

async function startReplica(t: ScenarioContext, runner: string, log: string, extra: string[] = []): Promise<Replica> {
  const proc = startCli(['agent', 'serve', runner, '--port', '0', '--host', '127.0.0.1', ...extra], {
    cwd: t.cwd,
    env: { ...t.env, ...ENV, LIVE_LOG: log },
  });
  t.defer(() => proc.kill());
  const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 60_000);
  return { proc, url: url!, pid: proc.child.pid! };
}

/** POST /run; resolves with the status, or null when the connection died (the replica was killed). */
function post(replica: Replica, input: string): Promise<string | null> {
  return fetch(`${replica.url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) }).then(
    async (response) => ((await response.json()) as { status?: string }).status ?? `http ${response.status}`,
    () => null,
  );
}

area.scenario(
  'three served replicas, one SIGKILLed under load, five times: every run it started completes on a survivor, once',
  { rows: ['cli:agent serve'], surfaces: ['cli'], timeoutMs: 600_000 },
  async (t) => {
    const runner = await writeLiveRunner(t, backendConfig(t.backend) as BackendConfig);
    const log = path.join(t.cwd, 'live.log');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    assert.ok(supportsRecovery(checkpointer));
    const replicas = await Promise.all([0, 1, 2].map(() => startReplica(t, runner, log)));
    const latencies: number[] = [];
    let total = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const refs = replicas.map((_, r) => Array.from({ length: RUNS_PER_REPLICA }, (_, k) => `r${round}-${r}-${k}`));
      const answers = replicas.flatMap((replica, r) => refs[r]!.map((ref) => post(replica, `pay ${ref}`)));
      total += replicas.length * RUNS_PER_REPLICA;
      const victim = replicas[round % replicas.length]!;
      const victimRefs = refs[round % replicas.length]!;
      await until(
        () => victimRefs.every((ref) => liveLog(log).some((l) => l.what === 'payout' && l.ref === ref && l.pid === victim.pid)),
        `round ${round}: the victim's runs inside their payout`,
      );
      victim.proc.child.kill('SIGKILL');
      const killedAt = Date.now();
      await victim.proc.exited;
      replicas[round % replicas.length] = await startReplica(t, runner, log);

      await until(async () => {
        const items = await listExecutions(checkpointer, { limit: 1000 });
        return items.length === total && items.every((item) => item.state === 'completed');
      }, `round ${round}: every execution completed`);
      latencies.push(Date.now() - killedAt);

      const lines = liveLog(log);
      for (const ref of refs.flat()) {
        assert.is(lines.filter((l) => l.what === 'notify' && l.ref === ref).length, 1, `${ref}: notified once`);
        const payouts = lines.filter((l) => l.what === 'payout' && l.ref === ref);
        // The killed replica's payout died mid-call and was run again (it is idempotent); nobody else's ran twice.
        const expected = victimRefs.includes(ref) ? 2 : 1;
        if (payouts.length !== expected) {
          // Who ran it, and what the sweeps recorded: enough to tell a double claim from a stalled holder.
          const recoveries = await checkpointer.listRecoveries({ limit: 20 });
          const said = replicas.flatMap((replica) =>
            replica.proc
              .stderr()
              .split('\n')
              .filter((line) => /recover|lease/i.test(line)),
          );
          assert.unreachable(`${ref}: ${payouts.length} payouts, not ${expected}: ${JSON.stringify({ payouts, victim: victim.pid, recoveries, said })}`);
        }
        if (victimRefs.includes(ref)) assert.is.not(payouts[1]!.pid, victim.pid, `${ref}: continued by another process`);
      }
      const served = await Promise.all(answers);
      assert.equal(
        served.filter((status) => status !== null),
        Array(RUNS_PER_REPLICA * 2).fill('completed'),
        "the survivors' own runs answered completed",
      );
    }
    const items = await listExecutions(checkpointer, { limit: 1000 });
    assert.is(items.length, ROUNDS * 3 * RUNS_PER_REPLICA, 'no execution lost or added');
    for (const item of items) {
      const rows = await checkpointer.list(item.execution_id, { limit: 1000 });
      assert.is(rows.filter((row) => row.step_type === 'run_end').length, 1, `${item.execution_id}: one terminal row`);
      assert.is(rows.at(-1)!.run_status, 'completed');
    }
    const recoveries = await checkpointer.listRecoveries({ limit: 1000 });
    assert.is(recoveries.length, ROUNDS * RUNS_PER_REPLICA, 'each killed run recovered once');
    assert.ok(
      recoveries.every((r) => r.outcome === 'resumed' && r.attempt === 1),
      JSON.stringify(recoveries),
    );
    assert.is(new Set(recoveries.map((r) => r.execution_id)).size, recoveries.length, 'no execution recovered twice');
    assert.ok(
      recoveries.every((r) => parseLeaseOwner(r.recovered_by) !== null),
      'recoveries name their process',
    );
    process.stderr.write(`  kill-to-all-completed per round (${t.backend.kind}): ${latencies.join(', ')} ms\n`);
    for (const replica of replicas) {
      replica.proc.child.kill('SIGTERM');
      assert.equal(await replica.proc.exited, { code: 0, signal: null });
    }
  },
);

area.scenario(
  '`agent serve --no-recover` leaves an orphan alone; a replica with recovery on continues it',
  { rows: ['cli:agent serve'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    const runner = await writeLiveRunner(t, backendConfig(t.backend) as BackendConfig);
    const log = path.join(t.cwd, 'live.log');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const first = await startReplica(t, runner, log, ['--no-recover']);
    const answer = post(first, 'pay lone');
    await until(() => liveLog(log).some((l) => l.what === 'payout' && l.ref === 'lone'), 'the run inside its payout');
    first.proc.child.kill('SIGKILL');
    await first.proc.exited;
    assert.is(await answer, null);
    const idle = await startReplica(t, runner, log, ['--no-recover']);
    // Long enough for many sweeps, had there been any: the orphan stays an orphan.
    await sleep(QUIET_MS);
    assert.equal(
      (await listExecutions(checkpointer)).map((item) => item.state),
      ['orphaned'],
    );
    idle.proc.child.kill('SIGTERM');
    await idle.proc.exited;
    const sweeping = await startReplica(t, runner, log);
    await until(async () => (await listExecutions(checkpointer)).map((item) => item.state).join() === 'completed', 'the orphan completed');
    assert.is(liveLog(log).filter((l) => l.what === 'notify' && l.ref === 'lone').length, 1);
    await sweeping.proc.waitForStderr(/agentkit: recovered execution \S+ \(attempt 1\): completed/);
    sweeping.proc.child.kill('SIGTERM');
    assert.equal(await sweeping.proc.exited, { code: 0, signal: null });
  },
);

area.scenario(
  'a run started before the upgrade (a v33 / Postgres v6 store) is listed orphaned, not recoverable, and never recovered',
  { rows: ['cli:agent serve'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    await installOldStore(t.backend, path.join(root, 'conformance/fixtures/durability/pre-recovery'), 33);
    const runner = await writeLiveRunner(t, backendConfig(t.backend) as BackendConfig);
    const log = path.join(t.cwd, 'live.log');
    const replica = await startReplica(t, runner, log);
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    // Long enough for many sweeps after the store was upgraded on open: the old run stays where it was.
    await sleep(QUIET_MS);
    const [item, ...rest] = await listExecutions(checkpointer);
    assert.equal(rest, []);
    assert.is(item!.execution_id, 'pre-recovery-orphan');
    assert.is(item!.state, 'orphaned');
    assert.is(item!.recoverable, false);
    assert.is(item!.recover_attempts, 0);
    assert.equal(await checkpointer.listRecoveries({ limit: 10 }), []);
    assert.equal(liveLog(log), [], 'nothing of it ran');
    assert.not.match(replica.proc.stderr(), /recover/);
    replica.proc.child.kill('SIGTERM');
    assert.equal(await replica.proc.exited, { code: 0, signal: null });
  },
);

area.run();
