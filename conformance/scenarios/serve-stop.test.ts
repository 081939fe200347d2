/**
 * One stop behaviour on SIGTERM (docs/adr/0051, docs/serving.md#stopping), on SQLite (processes sharing one file)
 * and on Postgres: two `agent serve` replicas of one runner on one store, with a long lease (60 s, so nothing here
 * waits for an expiry) and a short sweep interval. SIGTERM one while its runs are inside their payout tool: each
 * finishes its payout, stops at the next step boundary, answers 503 `run_stopped` with its execution id (a stream:
 * an `error` event, `done` stopped), and completes on the survivor, handed over while the stopping replica is still
 * alive (its slow run still mid-payout). No `failed` row comes from the stop, and every side effect happens once. A
 * run still mid-step when `--grace-ms` runs out writes nothing more and is recovered once its process is gone.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { listExecutions } from '../../src/recovery/index.js';
import { parseLeaseOwner } from '../../src/durability/lease-owner.js';
import { supportsRecovery } from '../../src/durability/recovery-store.js';
import type { BackendConfig } from '../fixtures/durability/chains.js';
import { liveLog, until, writeLiveRunner } from '../fixtures/durability/live-log.js';
import { backendConfig, checkpointerFor, conformance, startCli, type ScenarioContext } from '../harness/index.js';

const area = conformance('serving: one stop behaviour on SIGTERM');
const ENV = {
  AGENTKIT_EXECUTION_LEASE_MS: '60000',
  AGENTKIT_RECOVER_INTERVAL_MS: '250',
  LIVE_TOOL_MS: '1500',
  LIVE_SLOW_MS: '15000',
  LIVE_REPLAY_CLASS: 'idempotent',
};

async function startReplica(t: ScenarioContext, runner: string, log: string, extra: string[] = []) {
  const proc = startCli(['agent', 'serve', runner, '--port', '0', '--host', '127.0.0.1', ...extra], { cwd: t.cwd, env: { ...t.env, ...ENV, LIVE_LOG: log } });
  t.defer(() => proc.kill());
  const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 60_000);
  return { proc, url: url!, pid: proc.child.pid! };
}

type Answer = { http: number; body: Record<string, unknown> } | null;

/** POST /run; the status and body, or null when the connection was cut. */
function post(url: string, input: string): Promise<Answer> {
  return fetch(`${url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) }).then(
    async (response) => ({ http: response.status, body: (await response.json()) as Record<string, unknown> }),
    () => null,
  );
}

/** POST /run/stream; the events it sent. */
async function stream(url: string, input: string): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${url}/run/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

area.scenario(
  'SIGTERM one of two replicas under load: its runs stop at a step boundary, answer run_stopped, and complete on the survivor, once',
  { rows: ['cli:agent serve'], surfaces: ['cli'], timeoutMs: 300_000 },
  async (t) => {
    const runner = await writeLiveRunner(t, backendConfig(t.backend) as BackendConfig);
    const log = path.join(t.cwd, 'live.log');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    assert.ok(supportsRecovery(checkpointer));
    const [stopping, survivor] = await Promise.all([startReplica(t, runner, log), startReplica(t, runner, log)]);
    const stoppedRefs = ['a0', 'a1'];
    const answers = stoppedRefs.map((ref) => post(stopping.url, `pay ${ref}`));
    const streamed = stream(stopping.url, 'pay a2');
    const slow = post(stopping.url, 'pay slow');
    const survivorAnswers = ['b0', 'b1', 'b2'].map((ref) => post(survivor.url, `pay ${ref}`));
    const victimRefs = [...stoppedRefs, 'a2', 'slow'];
    await until(
      () => victimRefs.every((ref) => liveLog(log).some((l) => l.what === 'payout' && l.ref === ref && l.pid === stopping.pid)),
      "the stopping replica's runs inside their payout",
    );
    stopping.proc.child.kill('SIGTERM');

    // The quick runs finish their payout, stop at the next boundary and say so, with their execution ids.
    const stopped = await Promise.all(answers);
    for (const answer of stopped) {
      assert.ok(answer, 'answered, not cut');
      assert.is(answer.http, 503);
      assert.is(answer.body.code, 'run_stopped');
      assert.type(answer.body.execution_id, 'string');
      assert.match(String(answer.body.detail), /shutting down and stopped execution '[^']+' at a step boundary/);
      assert.not.match(String(answer.body.detail), /\n/);
    }
    const events = await streamed;
    const error = events.find((e) => e.type === 'error');
    assert.is(error?.code, 'run_stopped', JSON.stringify(events));
    assert.equal(events.at(-1)?.type, 'done');
    assert.is(events.at(-1)?.status, 'stopped');
    const streamId = String(events.at(-1)?.execution_id);

    // Handed over at once: they complete on the survivor while the stopping replica still runs its slow payout.
    const ids = [...stopped.map((a) => String(a!.body.execution_id)), streamId];
    await until(async () => {
      const items = await listExecutions(checkpointer, { limit: 100 });
      return ids.every((id) => items.find((item) => item.execution_id === id)?.state === 'completed');
    }, 'the stopped runs completed on the survivor');
    assert.is(stopping.proc.child.exitCode, null, 'handed over before the stopping replica exited');

    // The slow run reaches its boundary within the grace period too, then the replica exits cleanly.
    const slowAnswer = await slow;
    assert.is(slowAnswer?.http, 503);
    assert.equal(await stopping.proc.exited, { code: 0, signal: null });
    await until(async () => {
      const items = await listExecutions(checkpointer, { limit: 100 });
      return items.length === 7 && items.every((item) => item.state === 'completed');
    }, 'every run completed');
    for (const answer of await Promise.all(survivorAnswers)) assert.is(answer?.body.status, 'completed');

    const lines = liveLog(log);
    for (const ref of [...victimRefs, 'b0', 'b1', 'b2']) {
      assert.is(lines.filter((l) => l.what === 'payout' && l.ref === ref).length, 1, `${ref}: paid once`);
      const notified = lines.filter((l) => l.what === 'notify' && l.ref === ref);
      assert.is(notified.length, 1, `${ref}: notified once`);
      if (victimRefs.includes(ref)) assert.is(notified[0]!.pid, survivor.pid, `${ref}: continued by the survivor`);
    }
    for (const item of await listExecutions(checkpointer, { limit: 100 })) {
      const rows = await checkpointer.list(item.execution_id, { limit: 1000 });
      assert.equal(
        rows.filter((row) => row.step_type === 'run_end').map((row) => row.run_status),
        ['completed'],
        `${item.execution_id}: one terminal row, no failed row from the stop`,
      );
    }
    const recoveries = await checkpointer.listRecoveries({ limit: 100 });
    assert.is(recoveries.length, victimRefs.length, JSON.stringify(recoveries));
    assert.ok(recoveries.every((r) => r.outcome === 'resumed' && r.attempt === 1 && parseLeaseOwner(r.recovered_by)?.pid === survivor.pid));
    assert.match(stopping.proc.stderr(), /agentkit: stopping: in-flight runs stop at their next step boundary \(grace 25000 ms\)/);
    survivor.proc.child.kill('SIGTERM');
    assert.equal(await survivor.proc.exited, { code: 0, signal: null });
  },
);

area.scenario(
  'a run still mid-step when --grace-ms runs out writes nothing more (no failed row) and is recovered once its process is gone',
  { rows: ['cli:agent serve'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    const runner = await writeLiveRunner(t, backendConfig(t.backend) as BackendConfig);
    const log = path.join(t.cwd, 'live.log');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const stopping = await startReplica(t, runner, log, ['--grace-ms', '200', '--no-recover']);
    const answer = post(stopping.url, 'pay slow');
    await until(() => liveLog(log).some((l) => l.what === 'payout' && l.ref === 'slow'), 'the run inside its payout');
    stopping.proc.child.kill('SIGTERM');
    assert.equal(await stopping.proc.exited, { code: 0, signal: null });
    assert.is(await answer, null, 'the connection was cut at the end of the grace');
    const [item] = await listExecutions(checkpointer);
    assert.is(item!.state, 'orphaned');
    const rows = await checkpointer.list(item!.execution_id, { limit: 1000 });
    assert.equal(
      rows.filter((row) => row.step_type === 'run_end'),
      [],
      'no failed row',
    );
    const survivor = await startReplica(t, runner, log);
    await until(async () => (await listExecutions(checkpointer)).map((i) => i.state).join() === 'completed', 'recovered and completed');
    assert.is(liveLog(log).filter((l) => l.what === 'notify' && l.ref === 'slow').length, 1);
    survivor.proc.child.kill('SIGTERM');
    assert.equal(await survivor.proc.exited, { code: 0, signal: null });
  },
);

area.run();
