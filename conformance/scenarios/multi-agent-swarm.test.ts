/**
 * Swarm durability on SQLite and Postgres (reference e2e gate 7): a SIGKILL inside the second agent's tool and an
 * interrupt in it, each resumed by a fresh process' worth of objects to completion with the handoffs recorded; the
 * handoff cap and the allowlists enforced on the first run and on resume; `agentkit resume` on a paused swarm.
 */
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, AlreadyResumed, ExecutionBusy, ChainResumeError, Swarm, SwarmError, TraceStore, flushTraces } from '../../src/index.js';
import { FunctionModel } from '../../src/testing/index.js';
import { contentTeam, newProbe } from '../fixtures/multi-agent/team.js';
import { backendConfig, checkpointerFor, conformance, spawnNode } from '../harness/index.js';

const area = conformance('multi-agent: swarm');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const HANDOFF_ROWS = ['handoff:0', 'handoff:1', 'handoff:2'];

area.scenario(
  "SIGKILL in the analyst's tool; resume re-invokes the tool without a new model call and completes",
  { rows: ['transition:swarm-resume', 'transition:agent-resume-tool-crash'], timeoutMs: 60_000 },
  async (t) => {
    const args = JSON.stringify({ config: backendConfig(t.backend), executionId: 'swarm-crash' });
    const child = spawnNode('conformance/fixtures/multi-agent/child.ts', ['swarm-crash', args], {
      env: { AGENTKIT_LOCAL_DB: path.join(t.cwd, 'child-traces.db') },
    });
    t.defer(() => child.process.kill('SIGKILL'));
    await child.waitForLine((line) => line === 'started slow_analyze', 30_000);
    child.process.kill('SIGKILL');
    assert.is((await child.exit()).signal, 'SIGKILL');

    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const latest = await checkpointer.getLast('swarm-crash');
    assert.is(latest!.agent_path, 'swarm:content_team/agent:analyst/tool:slow_analyze');
    assert.is(latest!.node_id, 'turn:0/tool:slow_analyze');
    const before = await checkpointer.list('swarm-crash');
    const boundary = before.find((r) => r.node_id === 'handoff:1')!;
    assert.equal(
      [
        boundary.step_type,
        boundary.agent_path,
        boundary.state_snapshot.active_agent,
        boundary.state_snapshot.handoff_count,
        boundary.state_snapshot.path,
        boundary.state_snapshot.shared_context,
      ],
      ['handoff', 'swarm:content_team', 'analyst', 1, ['researcher', 'analyst'], { topic: 'q3 sales' }],
    );
    assert.equal(Object.keys(boundary.state_snapshot).sort(), [
      'accumulated_tool_calls',
      'active_agent',
      'current_input',
      'handoff_count',
      'iteration',
      'last_reason',
      'original_input',
      'path',
      'shared_context',
      'total_tokens',
    ]);

    const probe = newProbe();
    const traceDb = path.join(t.cwd, 'traces.db');
    const result = await contentTeam(probe, { checkpointer }).resume('swarm-crash', { traceDb });
    assert.is(result.status, 'completed');
    assert.is(result.output, 'Report complete.');
    assert.is(result.execution_id, 'swarm-crash');
    assert.equal(
      result.tool_calls.map((c) => c.tool_name),
      ['handoff_to_analyst', 'slow_analyze', 'handoff_to_reporter'],
    );
    assert.equal(result.tool_calls[1]!.arguments, { item: 'q3' }, 'the saved arguments');
    // The analyst's turn 0 was not asked again; the tool ran once, here; the researcher did not run again.
    assert.equal([probe.models.researcher!.calls, probe.models.analyst!.calls, probe.models.reporter!.calls], [0, 1, 1]);
    assert.equal(probe.tools, { slow_analyze: 1 });

    const rows = await checkpointer.list('swarm-crash');
    assert.equal(
      rows.filter((r) => r.agent_path === 'swarm:content_team').map((r) => r.node_id),
      [...HANDOFF_ROWS, 'run_end'],
    );
    assert.is(rows.at(-1)!.run_status, 'completed');
    assert.equal(rows.find((r) => r.node_id === 'handoff:2')!.state_snapshot.shared_context, { topic: 'q3 sales', analysis: { trend: 'up' } });

    await flushTraces();
    assert.match(result.trace_id!, /^[0-9a-f]{32}$/);
    const [span] = await new TraceStore({ dbPath: traceDb }).spans(result.trace_id!);
    assert.equal(
      [span!.name, span!.parent_span_id, span!.attributes['swarm.resumed_execution_id'], span!.attributes['swarm.handoff_count']],
      ['swarm.content_team', null, 'swarm-crash', 2],
    );

    try {
      await contentTeam(newProbe(), { checkpointer }).resume('swarm-crash');
      assert.unreachable('a finished swarm resumed');
    } catch (error) {
      assert.instance(error, AlreadyResumed);
      assert.is((error as Error).message, "Swarm 'content_team' execution 'swarm-crash' already finished (completed); there is nothing to resume");
    }
  },
);

area.scenario(
  'a crash between a handoff and the next boundary completes the saved handoff without asking the member again',
  { rows: ['transition:swarm-resume'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    // The process "dies" when the swarm writes handoff:2: that write never completes and nothing after it runs.
    const dying = new Proxy(checkpointer, {
      get(target, key, receiver) {
        if (key === 'put')
          return (row: { node_id: string }, fence?: never) => (row.node_id === 'handoff:2' ? new Promise(() => undefined) : target.put(row as never, fence));
        // A dead process renews nothing.
        if (key === 'renewLease') return async () => false;
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const first = newProbe();
    void contentTeam(first, { checkpointer: dying }).run('Write the Q3 report', { executionId: 'swarm-gap', trace: false });
    await until(async () => (await checkpointer.getLast('swarm-gap'))?.node_id === 'turn:1/tool:handoff_to_reporter' && first.tools.slow_analyze === 1);

    // Its lease expires (released here rather than waited for).
    await checkpointer.releaseLease('swarm-gap', (await checkpointer.leaseOf('swarm-gap'))!.owner);
    const probe = newProbe();
    const result = await contentTeam(probe, { checkpointer }).resume('swarm-gap', { trace: false });
    assert.equal([result.status, result.output], ['completed', 'Report complete.']);
    assert.equal([probe.models.analyst!.calls, probe.models.reporter!.calls, probe.tools.slow_analyze ?? 0], [0, 1, 0], 'the analyst is not asked again');
    assert.equal(
      result.tool_calls.map((c) => c.tool_name),
      ['handoff_to_analyst', 'handoff_to_reporter'],
    );
    assert.equal(result.tool_calls[1]!.arguments, { reason: 'analysis done', context: { analysis: { trend: 'up' } } });
    const boundary = (await checkpointer.list('swarm-gap')).find((r) => r.node_id === 'handoff:2')!;
    assert.equal(
      [boundary.state_snapshot.active_agent, boundary.state_snapshot.handoff_count, boundary.state_snapshot.last_reason],
      ['reporter', 2, 'analysis done'],
    );
  },
);

/** Poll `check` until it holds (the run under test is abandoned mid-way, so there is nothing to await). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
}

area.scenario(
  "an interrupt in the analyst's tool pauses the swarm; a fresh swarm resumes it with the value",
  { rows: ['transition:swarm-resume', 'transition:running->paused', 'transition:paused->running', 'transition:paused-claimed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const traceDb = path.join(t.cwd, 'traces.db');
    const first = newProbe();
    const paused = await contentTeam(first, { checkpointer, analystTool: 'interrupt_analyze' }).run('Write the Q3 report', {
      executionId: 'swarm-pause',
      traceDb,
    });
    assert.is(paused.status, 'paused');
    assert.is(paused.output, '');
    assert.equal(paused.pending_interrupt, {
      reason: 'interrupt_analyze_approval',
      context: { item: 'q3' },
      node_id: 'turn:0/tool:interrupt_analyze',
      agent_path: 'swarm:content_team/agent:analyst/tool:interrupt_analyze',
    });
    assert.equal(
      paused.tool_calls.map((c) => c.tool_name),
      ['handoff_to_analyst'],
    );
    assert.equal([first.models.reporter!.calls, first.tools.interrupt_analyze], [0, 1]);
    const pending = await checkpointer.listPendingInterrupts();
    assert.equal(
      pending.map((p) => [p.execution_id, p.chain_name, p.agent_path]),
      [['swarm-pause', 'analyst', 'swarm:content_team/agent:analyst/tool:interrupt_analyze']],
    );
    const rows = await checkpointer.list('swarm-pause');
    assert.not.ok(
      rows.some((r) => r.step_type === 'run_end'),
      'no terminal row on a pause',
    );

    try {
      await contentTeam(newProbe(), { checkpointer, analystTool: 'interrupt_analyze' }).resume('swarm-pause');
      assert.unreachable('resumed a pause without a value');
    } catch (error) {
      assert.instance(error, ChainResumeError);
      assert.match((error as Error).message, "is paused at 'turn:0/tool:interrupt_analyze' in agent 'analyst' (interrupt_analyze_approval); pass resumeValue");
    }

    const second = newProbe();
    const resumed = await contentTeam(second, { checkpointer, analystTool: 'interrupt_analyze' }).resume('swarm-pause', {
      resumeValue: { approved: true, metadata: { approver: 'alice' } },
      traceDb,
    });
    assert.is(resumed.status, 'completed');
    assert.is(resumed.output, 'Report complete.');
    assert.equal(
      resumed.tool_calls.map((c) => c.tool_name),
      ['handoff_to_analyst', 'interrupt_analyze', 'handoff_to_reporter'],
    );
    assert.equal(resumed.tool_calls[1]!.output, { item: 'q3', approved: true, approver: 'alice' });
    assert.equal(second.approvals, [{ approved: true, metadata: { approver: 'alice' } }]);
    assert.equal([second.models.researcher!.calls, second.models.analyst!.calls, second.models.reporter!.calls], [0, 1, 1]);
    assert.equal(await checkpointer.listPendingInterrupts(), []);
    assert.not.equal(resumed.trace_id, paused.trace_id, 'the resume has its own swarm.<name> root span');

    try {
      await contentTeam(newProbe(), { checkpointer, analystTool: 'interrupt_analyze' }).resume('swarm-pause', {
        resumeValue: { approved: true },
        trace: false,
      });
      assert.unreachable('resumed twice');
    } catch (error) {
      assert.instance(error, AlreadyResumed);
    }
    await flushTraces();
  },
);

area.scenario(
  'concurrent resumers of a paused swarm: one completes, the others get ExecutionBusy or AlreadyResumed, the tool runs once',
  { rows: ['transition:paused-claimed', 'error:already-resumed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await contentTeam(newProbe(), { checkpointer, analystTool: 'interrupt_analyze' }).run('Write the Q3 report', { executionId: 'swarm-race', trace: false });
    const probes = Array.from({ length: 5 }, () => newProbe());
    const outcomes = await Promise.allSettled(
      probes.map((probe) =>
        contentTeam(probe, { checkpointer, analystTool: 'interrupt_analyze' }).resume('swarm-race', { resumeValue: { approved: true }, trace: false }),
      ),
    );
    assert.equal(
      outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<{ status: string }>).value.status),
      ['completed'],
    );
    assert.ok(
      outcomes
        .filter((o) => o.status === 'rejected')
        .every((o) => [AlreadyResumed, ExecutionBusy].some((kind) => (o as PromiseRejectedResult).reason instanceof kind)),
    );
    assert.is(
      probes.reduce((n, p) => n + (p.tools.interrupt_analyze ?? 0), 0),
      1,
    );
    assert.is(
      probes.reduce((n, p) => n + p.models.reporter!.calls, 0),
      1,
    );
  },
);

/** Two agents that always hand off to each other. */
function pingPong(checkpointer: ReturnType<typeof checkpointerFor>, maxHandoffs?: number): { swarm: Swarm; a: FunctionModel; b: FunctionModel } {
  const a = new FunctionModel(() => ({ toolCalls: [{ name: 'handoff_to_b', arguments: { reason: 'your turn' } }] }));
  const b = new FunctionModel(() => ({ toolCalls: [{ name: 'handoff_to_a', arguments: { reason: 'back to you' } }] }));
  const swarm = new Swarm({
    name: 'pingpong',
    agents: [new Agent({ name: 'a', llm: a }), new Agent({ name: 'b', llm: b })],
    entrypoint: 'a',
    maxHandoffs,
    checkpointer,
  });
  return { swarm, a, b };
}

area.scenario(
  'the 9th handoff beyond the default cap of 8 is refused, on the run and again on resume',
  { rows: ['transition:running->failed', 'transition:swarm-resume'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const { swarm, a, b } = pingPong(checkpointer);
    assert.is(swarm.maxHandoffs, 8);
    try {
      await swarm.run('go', { executionId: 'swarm-cap', trace: false });
      assert.unreachable('the 9th handoff went through');
    } catch (error) {
      assert.instance(error, SwarmError);
      assert.is((error as SwarmError).code, 'swarm_error');
      assert.is((error as Error).message, "swarm 'pingpong' refused handoff 9 (from 'a' to 'b'): maxHandoffs is 8");
    }
    assert.equal([a.calls, b.calls], [5, 4], 'nine member runs: eight handoffs went through');
    const own = (await checkpointer.list('swarm-cap')).filter((r) => r.agent_path === 'swarm:pingpong');
    assert.equal(
      own.map((r) => r.node_id),
      ['handoff:0', 'handoff:1', 'handoff:2', 'handoff:3', 'handoff:4', 'handoff:5', 'handoff:6', 'handoff:7', 'handoff:8', 'run_end'],
    );
    assert.equal(
      [own.at(-1)!.run_status, own.at(-1)!.node_output],
      ['failed', { error: "SwarmError: swarm 'pingpong' refused handoff 9 (from 'a' to 'b'): maxHandoffs is 8" }],
    );
    assert.equal(own[8]!.state_snapshot.handoff_count, 8);

    // A failed swarm resumes from its latest boundary: agent a runs again and its handoff is refused again.
    const again = pingPong(checkpointer);
    try {
      await again.swarm.resume('swarm-cap', { trace: false });
      assert.unreachable('the cap was lifted by the resume');
    } catch (error) {
      assert.instance(error, SwarmError);
      assert.is((error as Error).message, "swarm 'pingpong' refused handoff 9 (from 'a' to 'b'): maxHandoffs is 8");
    }
    assert.equal([again.a.calls, again.b.calls], [1, 0]);

    const small = pingPong(checkpointer, 0);
    const refused = await small.swarm.run('go', { trace: false }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.instance(refused, SwarmError);
    assert.is((refused as Error).message, "swarm 'pingpong' refused handoff 1 (from 'a' to 'b'): maxHandoffs is 0");
  },
);

area.scenario(
  'a handoff the allowlist does not permit is refused: the model reads the refusal, the peer never runs',
  { rows: ['transition:running->completed'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const seen: unknown[] = [];
    const researcher = new FunctionModel((messages) => {
      const last = messages.at(-1)!;
      if (last.role === 'user') return { toolCalls: [{ name: 'handoff_to_reporter', arguments: { reason: 'skip the analyst' } }] };
      seen.push(last.content);
      return 'I may only hand off to the analyst.';
    });
    const reporter = new FunctionModel(() => 'report');
    const swarm = new Swarm({
      name: 'strict',
      agents: [
        new Agent({ name: 'researcher', llm: researcher }),
        new Agent({ name: 'analyst', llm: new FunctionModel(() => 'analysis') }),
        new Agent({ name: 'reporter', llm: reporter }),
      ],
      entrypoint: 'researcher',
      handoffs: { researcher: ['analyst'], analyst: ['reporter'] },
      checkpointer,
    });
    const result = await swarm.run('report now', { trace: false });
    assert.equal([result.status, result.output], ['completed', 'I may only hand off to the analyst.']);
    assert.equal(seen, ["Error: Unknown tool 'handoff_to_reporter'"]);
    assert.equal(
      researcher.requests[0]!.tools!.map((tool) => tool.name),
      ['handoff_to_analyst'],
      'the model is offered only the allowed handoffs',
    );
    assert.is(reporter.calls, 0);
    assert.equal(
      result.tool_calls.map((c) => [c.tool_name, c.error]),
      [['handoff_to_reporter', "Unknown tool 'handoff_to_reporter'"]],
    );
    const own = (await checkpointer.list(result.execution_id)).filter((r) => r.agent_path === 'swarm:strict');
    assert.equal(
      own.map((r) => r.node_id),
      ['handoff:0', 'run_end'],
    );
  },
);

area.scenario(
  'agentkit resume --runner file.ts:swarm resumes a paused swarm',
  { rows: ['cli:resume', 'transition:swarm-resume'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const teamModule = pathToFileURL(path.join(root, 'conformance/fixtures/multi-agent/team.ts')).href;
    const chainsModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
    await writeFile(
      path.join(t.cwd, 'runner.mts'),
      `import { contentTeam, newProbe } from ${JSON.stringify(teamModule)};
import { openCheckpointer } from ${JSON.stringify(chainsModule)};
export const swarm = () => contentTeam(newProbe(), { checkpointer: openCheckpointer(${JSON.stringify(backendConfig(t.backend))}), analystTool: 'interrupt_analyze' });
`,
    );
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await contentTeam(newProbe(), { checkpointer, analystTool: 'interrupt_analyze' }).run('Write the Q3 report', { executionId: 'swarm-cli', trace: false });

    const resumed = await t.cli(['resume', 'swarm-cli', '--runner', 'runner.mts:swarm', '--value', '{"approved": true, "metadata": {"approver": "dana"}}']);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(resumed.stdout, 'execution_id: swarm-cli\nstatus: completed\noutput: Report complete.\npending_interrupt: null\n');
    const again = await t.cli(['resume', 'swarm-cli', '--runner', 'runner.mts:swarm']);
    assert.equal(
      [again.code, again.stderr],
      [2, "error: execution id 'swarm-cli' (swarm 'content_team') already finished (completed); there is nothing to resume\n"],
    );
  },
);

area.run();
