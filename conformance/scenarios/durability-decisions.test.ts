/**
 * One decision record per pause, on SQLite and Postgres: who decided (the CLI's `--approver`, the SDK's `approver`),
 * through which surface, when and why, written with the claim and shown by `inspect` (its table and `--json`). A
 * pause whose claim was recorded by a resumer that died is continued with that decision; a resume bringing a
 * different value is refused (AlreadyResumed, exit 2) naming the decision and who made it, with nothing run.
 */
import * as assert from 'uvu/assert';
import { AlreadyResumed, Agent, tool } from '../../src/index.js';
import { interrupt } from '../../src/durability/interrupt.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { Type } from 'typebox';
import { approvalChain } from '../fixtures/durability/chains.js';
import { pauseRun, storeFlags, writeRunner } from '../fixtures/durability/cli-variant.js';
import { checkpointerFor, conformance } from '../harness/index.js';

const area = conformance('durability: decision records');

interface InspectJson {
  state: string;
  decisions: Array<{
    node_id: string;
    reason_for_pause: string;
    resume: { approved: boolean; metadata: Record<string, unknown> };
    decided_by: unknown;
    reason: string | null;
    decided_at: string;
  }>;
}

area.scenario(
  'resume --approver --reason records who decided, through the CLI, when and why; inspect shows it',
  { rows: ['cli:resume', 'cli:inspect'], surfaces: ['cli'] },
  async (t) => {
    await pauseRun(t, 'exec-d1');
    const runner = await writeRunner(t);
    const resumed = await t.cli(['resume', 'exec-d1', '--runner', runner, '--approver', 'alice', '--reason', 'within budget', '--value', '{"approved": true}']);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /status: completed/);

    const json = await t.cli(['inspect', 'exec-d1', '--json', ...storeFlags(t)]);
    assert.is(json.code, 0, json.stderr);
    const inspected = JSON.parse(json.stdout) as InspectJson;
    assert.is(inspected.state, 'completed');
    assert.is(inspected.decisions.length, 1);
    const [decision] = inspected.decisions;
    assert.equal(decision!.decided_by, { principal: 'alice', surface: 'cli' });
    assert.equal(
      [decision!.node_id, decision!.reason_for_pause, decision!.reason, decision!.resume.approved],
      ['approval', 'manager_approval', 'within budget', true],
    );
    assert.match(decision!.decided_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const text = await t.cli(['inspect', 'exec-d1', ...storeFlags(t)]);
    assert.match(text.stdout, /^Decision: {2}manager_approval: approved by alice \(cli\) at \S+, reason "within budget"$/m);

    // Without --approver the CLI records the OS user running it.
    await pauseRun(t, 'exec-d2', 'refund order 43');
    assert.is((await t.cli(['resume', 'exec-d2', '--runner', runner])).code, 0);
    const byDefault = JSON.parse((await t.cli(['inspect', 'exec-d2', '--json', ...storeFlags(t)])).stdout) as InspectJson;
    assert.equal(byDefault.decisions[0]!.decided_by, { principal: (await import('node:os')).userInfo().username, surface: 'cli' });
    assert.is(byDefault.decisions[0]!.reason, null);

    const blank = await t.cli(['resume', 'exec-d2', '--runner', runner, '--approver', ' ']);
    assert.equal(
      [blank.code, blank.stderr],
      [2, 'error: --approver must name someone (it is recorded with the decision); usage: agentkit resume <execution_id> --runner <target> [options]\n'],
    );
  },
);

area.scenario(
  'a decision recorded by a resumer that died applies; a different value is refused naming it, the same value or none continues once',
  { rows: ['cli:resume', 'error:already-resumed'], surfaces: ['cli'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    try {
      await approvalChain(checkpointer).run('refund order 44', { executionId: 'exec-d3' });
      // A resumer that claimed the pause (the decision row commits with the claim) and died before the node re-ran.
      const claimed = await checkpointer.claimPendingInterrupt('exec-d3', {
        resume: { approved: true, metadata: { approver: 'bob' } },
        claimedBy: 'host:1:dead',
        decision: { decidedBy: { principal: 'bob', surface: 'sdk' }, reason: 'fine' },
      });
      assert.ok(claimed, 'the claim got the pending row');
    } finally {
      await checkpointer.close();
    }
    const runner = await writeRunner(t);
    const refused = await t.cli(['resume', 'exec-d3', '--runner', runner, '--value', '{"approved": false}']);
    assert.is(refused.code, 2, refused.stdout);
    assert.match(refused.stderr, /already has a decision: approved by bob \(sdk\) at \S+, reason "fine"; a different resumeValue is refused/);
    const stillOpen = JSON.parse((await t.cli(['inspect', 'exec-d3', '--json', ...storeFlags(t)])).stdout) as InspectJson;
    assert.is(stillOpen.state, 'incomplete', 'the refused resume ran nothing');

    const same = await t.cli(['resume', 'exec-d3', '--runner', runner, '--value', '{"approved": true, "metadata": {"approver": "bob"}}']);
    assert.is(same.code, 0, same.stderr);
    assert.match(same.stdout, /status: completed/);
    const done = JSON.parse((await t.cli(['inspect', 'exec-d3', '--json', ...storeFlags(t)])).stdout) as InspectJson & {
      checkpoints: Array<{ step_type: string | null }>;
    };
    assert.is(done.decisions.length, 1, 'one decision for one pause');
    assert.is(done.checkpoints.filter((c) => c.step_type === 'run_end').length, 1, 'one terminal row');
  },
);

area.scenario("SDK: a different value for an Agent's recorded decision is AlreadyResumed; none continues with the recorded one", {}, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  try {
    const refund = tool({
      name: 'refund',
      description: 'Refund an order',
      parameters: Type.Object({ order_id: Type.String() }),
      registry: false,
      execute: ({ order_id }) => (interrupt('refund_approval', { order_id }).approved ? `refunded ${order_id}` : `declined ${order_id}`),
    });
    const script = () => new ScriptedModel([{ toolCalls: [{ name: 'refund', arguments: { order_id: '42' } }] }, 'done']);
    const agent = new Agent({ name: 'desk', llm: script(), tools: [refund], checkpointer, trace: false });
    const paused = await agent.run('refund 42');
    assert.is(paused.status, 'paused');
    const claimed = await checkpointer.claimPendingInterrupt(paused.execution_id, {
      resume: { approved: false, metadata: {} },
      claimedBy: 'host:2:dead',
      decision: { decidedBy: { principal: 'carol', surface: 'ui' }, reason: null },
    });
    assert.ok(claimed);
    // The resumed run re-invokes the tool with the decision, then asks the model once more.
    const again = new Agent({ name: 'desk', llm: new ScriptedModel(['done']), tools: [refund], checkpointer, trace: false });
    try {
      await again.resume(paused.execution_id, { resumeValue: { approved: true }, approver: 'dave' });
      assert.unreachable('a different value must be refused');
    } catch (error) {
      assert.instance(error, AlreadyResumed);
      assert.match((error as Error).message, /Agent 'desk' execution '[^']+' already has a decision: declined by carol \(ui\) at/);
    }
    const result = await again.resume(paused.execution_id);
    assert.is(result.status, 'completed');
    const rows = await checkpointer.list(paused.execution_id, { limit: 1000 });
    assert.is(rows.filter((r) => r.step_type === 'resume').length, 1);
    assert.match(JSON.stringify(rows.at(-1)!.state_snapshot), /declined 42/, 'the recorded decision (declined) is the one that took effect');
  } finally {
    await checkpointer.close();
  }
});

area.run();
