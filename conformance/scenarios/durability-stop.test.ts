/**
 * Stopping runs at a step boundary (docs/adr/0051), in process, on every backend and for the four runner kinds: a
 * run bound to a StopSignal that drains mid-step finishes that step, writes its checkpoint and stops there with
 * RunStopped; it writes no `failed` row, and its lease is released but left active, so the execution is an orphan
 * at once (expired, recoverable) and a plain resume continues it to one `completed` row, the drained step not run
 * again. A signal that is never drained changes nothing.
 */
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import { Agent } from '../../src/agent/agent.js';
import { Chain } from '../../src/chain/chain.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { RunStopped } from '../../src/durability/errors.js';
import { supportsRecovery } from '../../src/durability/recovery-store.js';
import { StopSignal } from '../../src/durability/run-stop.js';
import type { ChatModel } from '../../src/llm/types.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { Swarm } from '../../src/swarm/swarm.js';
import { FunctionModel } from '../../src/testing/function-model.js';
import { tool } from '../../src/tools/function-tool.js';
import { checkpointerFor, conformance, runTsFile } from '../harness/index.js';

const area = conformance('durability: a stopping process stops its runs at a step boundary');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Resumable {
  resume(executionId: string): Promise<{ status: string }>;
}

/** A tool that drains `stop` while it runs (the SIGTERM arriving mid-step); `calls` counts its runs. */
function drainingTool(stop: StopSignal, calls: string[]) {
  return tool({
    name: 'work',
    description: 'Do the work',
    parameters: Type.Object({}),
    registry: false,
    replayClass: 'idempotent',
    execute: () => {
      calls.push('work');
      stop.drain();
      return 'worked';
    },
  });
}

/** A model that calls `work` once, then answers `done`. */
function worker(): ChatModel {
  return new FunctionModel((messages) => (messages.some((m) => m.role === 'tool') ? 'done' : { toolCalls: [{ name: 'work', arguments: {} }] }));
}

/** Run `start` under a fresh signal; it must stop with RunStopped at a boundary; then check the store and resume. */
async function stopsAndResumes(
  checkpointer: Checkpointer,
  runner: Resumable,
  calls: string[],
  start: (stop: StopSignal) => Promise<unknown>,
  stop: StopSignal,
) {
  let stopped: unknown;
  try {
    await stop.run(() => start(stop));
  } catch (error) {
    stopped = error;
  }
  assert.instance(stopped, RunStopped);
  const { executionId, atBoundary, code } = stopped as RunStopped;
  assert.ok(atBoundary);
  assert.is(code, 'run_stopped');
  assert.equal(calls, ['work'], 'the step under way finished');
  const rows = await checkpointer.list(executionId, { limit: 1000 });
  assert.equal(
    rows.filter((row) => row.step_type === 'run_end'),
    [],
    'no failed row',
  );
  assert.ok(supportsRecovery(checkpointer));
  // The release goes out as the run returns; the orphan is visible once it lands.
  let lease = undefined as Awaited<ReturnType<typeof checkpointer.activeLeases>>[number] | undefined;
  for (let i = 0; i < 200 && !(lease && Date.parse(lease.expires_at) <= Date.now()); i++) {
    lease = (await checkpointer.activeLeases({ limit: 100 })).find((l) => l.execution_id === executionId);
    if (!(lease && Date.parse(lease.expires_at) <= Date.now())) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(lease, 'still active');
  assert.ok(Date.parse(lease.expires_at) <= Date.now(), 'released: an orphan at once');
  const resumed = await runner.resume(executionId);
  assert.is(resumed.status, 'completed');
  assert.equal(calls, ['work'], 'the drained step is not run again');
  const after = await checkpointer.list(executionId, { limit: 1000 });
  // One `completed` terminal row per run (a supervisor's worker writes its own), none failed.
  const ends = after.filter((row) => row.step_type === 'run_end');
  assert.ok(ends.length > 0 && ends.every((row) => row.run_status === 'completed'), JSON.stringify(ends.map((row) => [row.agent_path, row.run_status])));
  assert.is(new Set(ends.map((row) => row.agent_path)).size, ends.length, 'no run ended twice');
  assert.is(after.at(-1)!.step_type, 'run_end');
}

area.scenario('a Chain stops after the node under way, before the next', { rows: ['transition:agent-resume-turn-crash'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const stop = new StopSignal();
  const calls: string[] = [];
  const after: string[] = [];
  const chain = new Chain('stop-chain', { checkpointer })
    .addNode('a', () => {
      calls.push('work');
      stop.drain();
      return { a: 1 };
    })
    .addNode('b', () => {
      after.push('b');
      return { b: 1 };
    })
    .connect('a', 'b');
  await stopsAndResumes(checkpointer, chain, calls, () => chain.run({}), stop);
  assert.equal(after, ['b'], 'the next node ran once, on the resume');
});

area.scenario('an Agent stops at the turn after the tool under way', { rows: ['transition:agent-resume-turn-crash'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const stop = new StopSignal();
  const calls: string[] = [];
  const agent = new Agent({ name: 'stop-agent', llm: worker(), tools: [drainingTool(stop, calls)], checkpointer, trace: false });
  await stopsAndResumes(checkpointer, agent, calls, () => agent.run('go'), stop);
});

area.scenario("a Swarm stops at its member's next turn", { rows: ['transition:agent-resume-turn-crash'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const stop = new StopSignal();
  const calls: string[] = [];
  const member = new Agent({ name: 'desk', llm: worker(), tools: [drainingTool(stop, calls)], trace: false });
  const swarm = new Swarm({ name: 'stop-swarm', agents: [member], entrypoint: 'desk', checkpointer });
  await stopsAndResumes(checkpointer, swarm, calls, () => swarm.run('go', { trace: false }), stop);
});

area.scenario("a Supervisor stops at its worker's next turn", { rows: ['transition:agent-resume-turn-crash'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const stop = new StopSignal();
  const calls: string[] = [];
  const lead = new FunctionModel((messages) =>
    messages.some((m) => m.role === 'tool') ? 'lead done' : { toolCalls: [{ name: 'delegate_to_ops', arguments: { task: 'work' } }] },
  );
  const ops = new Agent({ name: 'ops', llm: worker(), tools: [drainingTool(stop, calls)], trace: false });
  const supervisor = new Supervisor({ name: 'stop-lead', llm: lead, workers: [{ agent: ops, role: 'ops', description: 'does ops' }], checkpointer });
  await stopsAndResumes(checkpointer, supervisor, calls, () => supervisor.run('go', { trace: false }), stop);
});

area.scenario('a signal that is never drained changes nothing', { rows: ['transition:agent-resume-turn-crash'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const stop = new StopSignal();
  const agent = new Agent({ name: 'steady', llm: worker(), tools: [drainingTool(new StopSignal(), [])], checkpointer, trace: false });
  const result = await stop.run(() => agent.run('go'));
  assert.is(result.status, 'completed');
  assert.is(stop.state, 'running');
});

area.scenario(
  "docs/durability.md's stop example is examples/durability/stop-signal.ts, and it runs as written: stopped, then recovered",
  { rows: ['transition:agent-resume-turn-crash'], backends: ['sqlite'], timeoutMs: 60_000 },
  async (t) => {
    const example = path.join(root, 'examples/durability/stop-signal.ts');
    const source = await readFile(example, 'utf8');
    const docs = await readFile(path.join(root, 'docs/durability.md'), 'utf8');
    const shown = source.slice(source.indexOf('const stop = new StopSignal();'), source.indexOf("\n\n// Another replica's sweep"));
    assert.ok(shown.length > 200 && docs.includes(shown), 'docs/durability.md shows the stop part of the example verbatim');
    const run = await runTsFile([example, path.join(t.cwd, 'example.db')], { cwd: root, env: process.env });
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /^stopped ([0-9a-f-]{36}); another process continues it\ncompleted \1 \(attempt 1\)\n$/);
  },
);

area.run();
