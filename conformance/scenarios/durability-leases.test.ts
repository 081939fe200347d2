/**
 * Fenced leases on every path (docs/adr/0015), on SQLite (processes sharing one file) and on Postgres:
 * - a live run resumed from another process through the SDK, the CLI and the UI gets ExecutionBusy, and its side
 *   effect and terminal row happen once (20 live runs per engine);
 * - a holder SIGSTOPped past its lease, taken over and finished by another process, writes nothing once SIGCONTed,
 *   runs no further tool, and exits with its one-line message;
 * - the same with the database stopped during a renewal (a Postgres cluster of the test's own).
 */
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { createUiApp } from '../../src/ui/app.js';
import { TraceStore } from '../../src/tracing/index.js';
import Type from 'typebox';
import { Agent, interrupt, tool } from '../../src/index.js';
import { FunctionModel } from '../../src/testing/index.js';
import { liveAgent } from '../fixtures/durability/live-run.js';
import { liveLog, until, writeLiveRunner } from '../fixtures/durability/live-log.js';
import { storeFlags } from '../fixtures/durability/cli-variant.js';
import type { BackendConfig } from '../fixtures/durability/chains.js';
import { backendConfig, checkpointerFor, conformance, spawnNode, type ScenarioContext } from '../harness/index.js';
import { postgresBinDir, startOwnPostgres } from '../harness/own-postgres.js';

const area = conformance('durability: fenced leases');
const LIVE_RUNS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A UI server (no auth) whose runner is the live agent on `checkpointer`. */
async function serveUi(t: ScenarioContext, checkpointer: Checkpointer): Promise<string> {
  const app = createUiApp({
    checkpointer,
    traceStore: new TraceStore({ dbPath: path.join(t.cwd, 'ui-traces.db') }),
    auth: { mode: 'none' },
    runners: [liveAgent(checkpointer)],
  });
  return (await t.serve(app)).url;
}

area.scenario(
  `${LIVE_RUNS} live runs resumed from another process via the SDK, the CLI and the UI: ExecutionBusy; each side effect and terminal row once`,
  { rows: ['cli:resume', 'route:POST /api/executions/{execution_id}/resume'], surfaces: ['sdk'], timeoutMs: 180_000 },
  async (t) => {
    const config = backendConfig(t.backend) as BackendConfig;
    const runner = await writeLiveRunner(t, config);
    const logFile = path.join(t.cwd, 'live.log');
    // The runs stay in their side effect until every resume below was refused (created at the end).
    const release = path.join(t.cwd, 'release');
    const refs = Array.from({ length: LIVE_RUNS }, (_, i) => `live-${i}`);
    const child = spawnNode('conformance/fixtures/durability/live-run.ts', [JSON.stringify(config), refs.join(',')], {
      env: { LIVE_LOG: logFile, LIVE_TOOL_MS: '0', LIVE_RELEASE: release },
    });
    t.defer(() => child.process.kill('SIGKILL'));
    await until(() => liveLog(logFile).filter((l) => l.what === 'payout').length === LIVE_RUNS, 'every live run in its side effect');

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    // SDK: every live run, from this process, at once.
    const sdk = await Promise.allSettled(refs.map((ref) => liveAgent(checkpointer).resume(ref)));
    for (const [i, outcome] of sdk.entries()) {
      assert.is(outcome.status, 'rejected', `SDK resume of ${refs[i]} ran it a second time`);
      const error = (outcome as PromiseRejectedResult).reason as { code?: string; message: string };
      assert.is(error.code, 'execution_busy', error.message);
      assert.match(error.message, `Agent 'payout-desk' execution '${refs[i]}' is being run by another process right now`);
    }
    // CLI: a value-less resume, and one with a value.
    for (const argv of [
      ['resume', 'live-0', '--runner', runner],
      ['resume', 'live-1', '--runner', runner, '--value', '{"approved": false}'],
    ]) {
      const cli = await t.bin(argv);
      assert.is(cli.code, 2, cli.stderr);
      assert.match(cli.stderr, 'is being run by another process right now');
      assert.not.match(cli.stderr, /\n\s+at /, 'no stack trace');
    }
    // UI: the resume route.
    const url = await serveUi(t, checkpointer);
    // The CSRF cookie first (writes need it even without sign-in).
    const status = await fetch(`${url}/api/auth/status`);
    const csrf = /agentkit_csrf=([0-9a-f]+)/.exec(status.headers.getSetCookie().join(';'))![1]!;
    const ui = await fetch(`${url}/api/executions/live-2/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `agentkit_csrf=${csrf}`, 'x-csrf-token': csrf },
      body: '{"approved":true}',
    });
    const body = (await ui.json()) as { code: string; detail: string };
    assert.is(ui.status, 409, JSON.stringify(body));
    assert.is(body.code, 'execution_busy', body.detail);

    writeFileSync(release, '');
    const exit = await child.exit(60_000);
    assert.is(exit.code, 0, child.stderr());
    const lines = liveLog(logFile);
    for (const ref of refs) {
      const of = (what: string) => lines.filter((l) => l.ref === ref && l.what === what);
      assert.is(of('payout').length, 1, `${ref}: the side effect ran once`);
      assert.is(of('notify').length, 1, `${ref}: notified once`);
      assert.is(of('model').length, 3, `${ref}: three model calls, all in the first process`);
      assert.ok(
        [...of('payout'), ...of('notify'), ...of('model')].every((l) => l.pid === child.process.pid),
        `${ref}: only the holder ran it`,
      );
      const rows = await checkpointer.list(ref, { limit: 1000 });
      assert.is(rows.filter((row) => row.step_type === 'run_end').length, 1, `${ref}: one terminal row`);
      assert.is(rows.at(-1)!.run_status, 'completed');
    }
  },
);

/**
 * The zombie: the holder is stopped in its side effect (SIGSTOP, or its database goes away), another process takes
 * the execution over once the lease expired and finishes it, then the holder goes on: it must write nothing more, run
 * no further tool, and exit with its one line.
 */
async function zombie(
  t: ScenarioContext,
  config: BackendConfig,
  checkpointer: Checkpointer,
  stall: (child: ReturnType<typeof spawnNode>) => Promise<() => Promise<void>>,
): Promise<void> {
  const runner = await writeLiveRunner(t, config);
  const logFile = path.join(t.cwd, 'zombie.log');
  const env = { LIVE_LOG: logFile, AGENTKIT_EXECUTION_LEASE_MS: '1000' };
  const child = spawnNode('conformance/fixtures/durability/live-run.ts', [JSON.stringify(config), 'zombie'], { env: { ...env, LIVE_TOOL_MS: '2500' } });
  t.defer(() => child.process.kill('SIGKILL'));
  await until(() => liveLog(logFile).some((l) => l.what === 'payout'), 'the holder in its side effect');
  const wake = await stall(child);
  await sleep(1500);

  const taken = await t.bin(['resume', 'zombie', '--runner', runner], { env: { ...env, LIVE_TOOL_MS: '10' } });
  assert.is(taken.code, 0, taken.stderr);
  assert.match(taken.stdout, 'status: completed');
  const before = await checkpointer.list('zombie', { limit: 1000 });
  assert.is(before.filter((row) => row.step_type === 'run_end').length, 1);

  await wake();
  const exit = await child.exit(30_000);
  assert.is(exit.code, 3, `the holder stops with its error: ${child.lines.join(' | ')} ${child.stderr()}`);
  const result = JSON.parse(child.lines.find((line) => line.includes('"ref":"zombie"'))!) as { code: string; error: string };
  assert.is(result.code, 'execution_busy');
  assert.match(result.error, "Agent 'payout-desk' stopped running execution 'zombie' in this process");
  assert.not.match(child.stderr(), /stopped running|Warning|lease/i, 'said once (by its error), no warning besides');
  const after = await checkpointer.list('zombie', { limit: 1000 });
  assert.equal(
    after.map((row) => row.checkpoint_id),
    before.map((row) => row.checkpoint_id),
    'the holder wrote nothing after it was taken over',
  );
  const mine = liveLog(logFile).filter((l) => l.pid === child.process.pid);
  assert.equal(
    mine.map((l) => l.what),
    ['model', 'payout'],
    'the holder asked its model once, ran its side effect once, and nothing after it woke up',
  );
  assert.is(liveLog(logFile).filter((l) => l.what === 'notify').length, 1, 'the next tool ran once, in the process that took over');
}

area.scenario(
  'a holder SIGSTOPped past its lease and taken over writes nothing once SIGCONTed, runs no further tool and exits with its one line',
  { rows: ['cli:resume'], surfaces: ['sdk'], timeoutMs: 120_000 },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await zombie(t, backendConfig(t.backend) as BackendConfig, checkpointer, async (child) => {
      child.process.kill('SIGSTOP');
      return async () => {
        child.process.kill('SIGCONT');
      };
    });
  },
);

area.scenario(
  'a holder whose database stops during a renewal writes nothing once it is back, runs no further tool and exits with its one line',
  { rows: ['cli:resume'], backends: 'none', surfaces: ['sdk'], timeoutMs: 120_000 },
  async (t) => {
    if (!postgresBinDir()) throw new Error('this scenario needs the PostgreSQL server binaries (apt-get install postgresql)');
    const own = await startOwnPostgres();
    t.defer(() => own.stop());
    const config: BackendConfig = { kind: 'postgres', url: own.url, schema: 'leases' };
    const checkpointer = new PostgresCheckpointer(own.url, { schema: 'leases' });
    t.defer(() => checkpointer.close());
    await checkpointer.setup();
    await zombie(t, config, checkpointer, async () => {
      // Down for longer than a renewal period: the holder's renewal fails, and it counts its lease as lost.
      await own.outage();
      await sleep(800);
      await own.restore();
      return async () => undefined;
    });
  },
);

area.scenario(
  'an execution knows its traces: the run and its resume each stamp their trace id, and inspect --json lists them',
  { rows: ['cli:inspect'], surfaces: ['cli'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const approve = tool({
      name: 'approve_refund',
      description: 'Refund once approved',
      parameters: Type.Object({}),
      registry: false,
      execute: () => (interrupt('manager_approval', { amount: 5 }).approved ? 'refunded' : 'declined'),
    });
    const model = new FunctionModel((messages) =>
      messages.at(-1)!.role === 'tool' ? `done: ${String(messages.at(-1)!.content)}` : { toolCalls: [{ id: 'c1', name: 'approve_refund', arguments: {} }] },
    );
    const agent = new Agent({ name: 'traced-desk', llm: model, tools: [approve], checkpointer, traceDb: path.join(t.cwd, 'traces.db') });
    const paused = await agent.run('refund 5', { executionId: 'traced' });
    const done = await agent.resume('traced', { resumeValue: { approved: true, metadata: {} } });
    assert.is(done.status, 'completed');
    assert.ok(paused.trace_id && done.trace_id && paused.trace_id !== done.trace_id, 'two traces');
    const inspect = await t.bin(['inspect', 'traced', '--json', ...storeFlags(t)]);
    assert.is(inspect.code, 0, inspect.stderr);
    assert.equal((JSON.parse(inspect.stdout) as { trace_ids: string[] }).trace_ids, [paused.trace_id, done.trace_id]);
    const text = await t.bin(['inspect', 'traced', ...storeFlags(t)]);
    assert.match(text.stdout, `Traces:    ${paused.trace_id}, ${done.trace_id}`);
  },
);

area.run();
