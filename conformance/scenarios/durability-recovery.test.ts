/**
 * Recovery of orphaned executions (docs/adr/0050), on SQLite (processes sharing one file) and on Postgres, through
 * the CLI (`executions list`, `recover`) against real processes killed with SIGKILL:
 * - a run killed inside its idempotent tool is listed orphaned and recovered to completed, once;
 * - the recovering process itself killed mid-recovery: recovered again with the attempt counted, and past the cap
 *   the execution is failed with the reason;
 * - a run killed inside a side-effecting tool is parked `needs_attention`, not re-run; `resume` finishes it.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { BackendConfig } from '../fixtures/durability/chains.js';
import { liveLog, until, writeLiveRunner } from '../fixtures/durability/live-log.js';
import { backendConfig, checkpointerFor, conformance, spawnNode, type ScenarioContext } from '../harness/index.js';
import { startCli } from '../harness/cli-process.js';

const area = conformance('durability: recovery of orphaned executions');
const LEASE = { AGENTKIT_EXECUTION_LEASE_MS: '1000' };

/** The pids that logged `what` for `ref`. */
function logged(file: string, what: string, ref: string): number[] {
  return liveLog(file)
    .filter((line) => line.what === what && line.ref === ref)
    .map((line) => line.pid);
}

/** Start `ref` in a child process and SIGKILL it inside its payout tool. */
async function killInPayout(t: ScenarioContext, config: BackendConfig, ref: string, log: string, replayClass: string): Promise<void> {
  const child = spawnNode('conformance/fixtures/durability/live-run.ts', [JSON.stringify(config), ref], {
    env: { ...LEASE, LIVE_LOG: log, LIVE_TOOL_MS: '60000', LIVE_REPLAY_CLASS: replayClass },
  });
  t.defer(() => child.process.kill('SIGKILL'));
  await until(() => logged(log, 'payout', ref).length === 1, 'the run inside its payout');
  child.process.kill('SIGKILL');
  await child.exit(30_000).catch(() => undefined);
}

/** `--db` naming the scenario's store (the configured one on SQLite). */
function dbFlag(t: ScenarioContext): string[] {
  if (t.backend.kind !== 'postgres') return [];
  const url = new URL(t.backend.url);
  url.searchParams.set('schema', t.backend.schema);
  return ['--db', url.toString()];
}

async function listed(
  t: ScenarioContext,
  state: string,
): Promise<Array<{ execution_id: string; recoverable: boolean; recover_attempts: number; reason: string | null }>> {
  const run = await t.bin(['executions', 'list', '--state', state, '--json', ...dbFlag(t)]);
  assert.is(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

area.scenario(
  'a run SIGKILLed in its idempotent tool is listed orphaned and `recover` completes it once',
  { rows: ['cli:resume'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    const config = backendConfig(t.backend) as BackendConfig;
    const runner = await writeLiveRunner(t, config);
    const log = path.join(t.cwd, 'live.log');
    await killInPayout(t, config, 'orphan-1', log, 'idempotent');
    const orphans = await listed(t, 'orphaned');
    const orphan = orphans.find((o) => o.execution_id === 'orphan-1');
    assert.ok(orphan, JSON.stringify(orphans));
    assert.is(orphan!.recoverable, true);

    const env = { ...LEASE, LIVE_LOG: log, LIVE_TOOL_MS: '10', LIVE_REPLAY_CLASS: 'idempotent' };
    const recovered = await t.bin(['recover', '--runner', runner, '--json'], { env });
    assert.is(recovered.code, 0, recovered.stderr);
    const outcomes = JSON.parse(recovered.stdout) as Array<{ execution_id: string; outcome: string; attempt: number }>;
    assert.equal(
      outcomes.map((o) => [o.execution_id, o.outcome, o.attempt]),
      [['orphan-1', 'completed', 1]],
    );
    assert.is(logged(log, 'notify', 'orphan-1').length, 1, 'notified once');
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const rows = await checkpointer.list('orphan-1', { limit: 1000 });
    assert.is(rows.filter((row) => row.step_type === 'run_end').length, 1, 'one terminal row');
    assert.is(rows.at(-1)!.run_status, 'completed');
    assert.is((await listed(t, 'orphaned')).length, 0, 'no orphan left');
    const again = await t.bin(['recover', '--runner', runner, '--json'], { env });
    assert.equal(JSON.parse(again.stdout), [], 'a second sweep finds nothing');
  },
);

area.scenario(
  'the recovering process SIGKILLed mid-recovery: recovered again with the attempt counted; past the cap, failed with the reason',
  { rows: ['cli:resume'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    const config = backendConfig(t.backend) as BackendConfig;
    const runner = await writeLiveRunner(t, config);
    const log = path.join(t.cwd, 'live.log');
    await killInPayout(t, config, 'orphan-2', log, 'idempotent');
    const env = { ...LEASE, LIVE_LOG: log, LIVE_TOOL_MS: '60000', LIVE_REPLAY_CLASS: 'idempotent', AGENTKIT_RECOVER_MAX_ATTEMPTS: '2' };
    for (const attempt of [1, 2]) {
      const recovering = startCli(['recover', '--runner', runner], { cwd: t.cwd, env: { ...process.env, ...t.env, ...env } });
      t.defer(() => recovering.kill());
      await until(() => logged(log, 'payout', 'orphan-2').length === attempt + 1, `recovery attempt ${attempt} inside its payout`);
      recovering.kill();
      await recovering.exited;
      const [orphan] = (await listed(t, 'orphaned')).filter((o) => o.execution_id === 'orphan-2');
      assert.is(orphan?.recover_attempts, attempt, 'the attempt was counted before it ran');
    }
    const capped = await t.bin(['recover', '--runner', runner, '--json'], { env });
    assert.is(capped.code, 0, capped.stderr);
    const [outcome] = JSON.parse(capped.stdout) as Array<{ outcome: string; attempt: number; detail: string }>;
    assert.is(outcome!.outcome, 'failed');
    assert.is(outcome!.attempt, 3);
    assert.match(outcome!.detail, 'recovery gave up after 2 attempts');
    assert.is(logged(log, 'payout', 'orphan-2').length, 3, 'not run a fourth time');
    const failed = await listed(t, 'failed');
    assert.ok(failed.some((o) => o.execution_id === 'orphan-2'));
  },
);

area.scenario(
  'a run SIGKILLed inside a side-effecting tool is parked needs_attention, not re-run; `resume` finishes it',
  { rows: ['cli:resume'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    const config = backendConfig(t.backend) as BackendConfig;
    const runner = await writeLiveRunner(t, config);
    const log = path.join(t.cwd, 'live.log');
    await killInPayout(t, config, 'orphan-3', log, 'side_effecting');
    const env = { ...LEASE, LIVE_LOG: log, LIVE_TOOL_MS: '10' };
    const recovered = await t.bin(['recover', '--runner', runner, '--json'], { env });
    assert.is(recovered.code, 0, recovered.stderr);
    const [outcome] = JSON.parse(recovered.stdout) as Array<{ outcome: string; detail: string }>;
    assert.is(outcome!.outcome, 'parked');
    assert.match(outcome!.detail, "crashed inside tool 'payout' (side_effecting, not idempotent)");
    assert.is(logged(log, 'payout', 'orphan-3').length, 1, 'not re-run');
    const parked = await listed(t, 'needs_attention');
    assert.equal(
      parked.map((o) => o.execution_id),
      ['orphan-3'],
    );
    assert.is((await t.bin(['recover', '--runner', runner, '--json'], { env })).stdout.trim(), '[]', 'a parked run stays parked');
    const resumed = await t.bin(['resume', 'orphan-3', '--runner', runner], { env });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, 'status: completed');
    assert.is((await listed(t, 'completed')).filter((o) => o.execution_id === 'orphan-3').length, 1);
  },
);

area.run();
