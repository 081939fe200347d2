/**
 * The durability CLI on a paused Agent (SQLite and Postgres): `list-pending` shows the agent's pause, `resume --runner`
 * calls `agent.resume` (in-process, with a runner file bound to the variant's store, and through the real binary on the
 * documented example, `examples/durability/refund-agent.ts`), a second resume exits 2, `inspect` shows the rows.
 */
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildRefundAgent } from '../../examples/durability/refund-agent.js';
import { backendConfig, checkpointerFor, conformance, spawnNode, type ScenarioContext } from '../harness/index.js';

const area = conformance('durability: agent CLI');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function storeFlags(t: ScenarioContext): string[] {
  return t.backend.kind === 'postgres' ? ['--connection-string', t.backend.url, '--schema', t.backend.schema] : [];
}

area.scenario(
  'list-pending and resume --runner on a paused agent; a second resume exits 2',
  { rows: ['cli:list-pending', 'cli:resume', 'cli:inspect', 'error:already-resumed'], surfaces: ['cli'] },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const paused = await buildRefundAgent(checkpointer).run('Please refund order B-7 for $2,500', { executionId: 'agent-cli' });
    assert.is(paused.status, 'paused');

    const listed = await t.cli(['list-pending', '--json', ...storeFlags(t)]);
    assert.is(listed.code, 0, listed.stderr);
    const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    assert.equal(
      rows.map((r) => [r.execution_id, r.chain_name, r.node_id, r.reason, r.context, r.agent_path]),
      [['agent-cli', 'refund-agent', 'turn:0/tool:issue_refund', 'refund_approval', { order_id: 'B-7', amount: 2500 }, 'agent:refund-agent/tool:issue_refund']],
    );

    const exampleModule = pathToFileURL(path.join(root, 'examples/durability/refund-agent.ts')).href;
    const fixtureModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
    await writeFile(
      path.join(t.cwd, 'agent-runner.mts'),
      `import { buildRefundAgent } from ${JSON.stringify(exampleModule)};
import { openCheckpointer } from ${JSON.stringify(fixtureModule)};
export const refund = () => buildRefundAgent(openCheckpointer(${JSON.stringify(backendConfig(t.backend))}));
`,
    );
    const chainsModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
    await writeFile(
      path.join(t.cwd, 'chain-runner.mts'),
      `import { approvalRunner } from ${JSON.stringify(chainsModule)};\nexport const refund = () => approvalRunner(${JSON.stringify(backendConfig(t.backend))});\n`,
    );
    const wrong = await t.cli(['resume', 'agent-cli', '--runner', 'chain-runner.mts:refund']);
    assert.equal([wrong.code, wrong.stdout], [2, '']);
    assert.is(
      wrong.stderr,
      "error: execution 'agent-cli' belongs to agent 'refund-agent' (read from its checkpoints), but --runner 'chain-runner.mts:refund' is chain 'refund'; resume it through the agent that ran it; usage: agentkit resume <execution_id> --runner <target> [options]\n",
    );
    assert.is((await checkpointer.listPendingInterrupts()).length, 1, 'the refused resume claimed nothing');

    const resumed = await t.cli([
      'resume',
      'agent-cli',
      '--runner',
      'agent-runner.mts:refund',
      '--value',
      '{"approved": true, "metadata": {"approver": "erin"}}',
    ]);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(
      resumed.stdout,
      'execution_id: agent-cli\nstatus: completed\noutput: Refunded $2500 on order B-7, approved by erin. Anything else?\npending_interrupt: null\n',
    );
    const again = await t.cli(['resume', 'agent-cli', '--runner', 'agent-runner.mts:refund']);
    assert.equal([again.code, again.stdout], [2, '']);
    assert.is(
      again.stderr,
      "error: execution id 'agent-cli' already finished (completed); there is nothing to resume. Use fork() to run it again from one of its checkpoints.\n",
    );
    const empty = await t.cli(['list-pending', ...storeFlags(t)]);
    assert.is(empty.stdout, 'No pending interrupts.\n');
    const inspected = await t.cli(['inspect', 'agent-cli', ...storeFlags(t)]);
    assert.is(inspected.code, 0, inspected.stderr);
    // The header names the runner that wrote the rows: this execution is an Agent's, not a chain's.
    assert.equal(inspected.stdout.split('\n').slice(0, 3), ['Execution: agent-cli', 'Agent:     refund-agent', 'State:     completed']);
    assert.match(
      inspected.stdout,
      /turn:0\s+completed\s+llm_call[\s\S]*turn:0\/tool:issue_refund\s+interrupted\s+hitl_pause[\s\S]*turn:1\s+completed\s+llm_call[\s\S]*run_end\s+completed\s+run_end\s+\S+\s+agent:ref\S*/,
    );
  },
);

area.scenario(
  'resume --runner on a crashed agent (SIGKILL in a tool) resumes it without a decision',
  { rows: ['cli:resume', 'transition:agent-resume-tool-crash'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const proc = spawnNode('conformance/fixtures/durability/agent-child.ts', [
      'crash-tool',
      JSON.stringify({ config: backendConfig(t.backend), executionId: 'agent-cli-crash' }),
    ]);
    t.defer(() => proc.process.kill('SIGKILL'));
    await proc.waitForLine((line) => line === 'started slow_paid', 30_000);
    proc.process.kill('SIGKILL');
    assert.is((await proc.exit()).signal, 'SIGKILL');

    const agentsModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/agents.ts')).href;
    const chainsModule = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
    await writeFile(
      path.join(t.cwd, 'payer.mts'),
      `import { payAgent } from ${JSON.stringify(agentsModule)};
import { openCheckpointer } from ${JSON.stringify(chainsModule)};
export const payer = () => payAgent(openCheckpointer(${JSON.stringify(backendConfig(t.backend))})).agent;
`,
    );
    const inspected = await t.cli(['inspect', 'agent-cli-crash', ...storeFlags(t)]);
    assert.equal(inspected.stdout.split('\n').slice(1, 3), ['Agent:     payer', 'State:     incomplete']);
    // No pause, so no decision: the default approval is not sent (the agent would refuse it as not paused).
    const resumed = await t.cli(['resume', 'agent-cli-crash', '--runner', 'payer.mts:payer']);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(resumed.stdout, 'execution_id: agent-cli-crash\nstatus: completed\noutput: Done — paid $100.\npending_interrupt: null\n');
    const withValue = await t.cli(['resume', 'agent-cli-crash', '--runner', 'payer.mts:payer', '--value', '{"approved": true}']);
    assert.equal([withValue.code, withValue.stdout], [2, '']);
    assert.match(withValue.stderr, /already finished \(completed\)/);
  },
);

area.scenario(
  'the documented agent example: pause from a script, approve with the real binary',
  { rows: ['cli:list-pending', 'cli:resume'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const env: Record<string, string> =
      t.backend.kind === 'postgres'
        ? { DATABASE_URL: t.backend.url, AGENTKIT_PG_SCHEMA: t.backend.schema }
        : { AGENTKIT_LOCAL_DB: (t.backend as { dbPath: string }).dbPath };
    const script = spawnNode('examples/durability/refund-agent.ts', ['Please refund order A-1042 for $5,000'], { env });
    t.defer(() => script.process.kill('SIGKILL'));
    const idLine = await script.waitForLine((line) => line.startsWith('execution_id: '));
    assert.is((await script.exit()).code, 0, script.stderr());
    assert.equal(script.lines[0], 'status: paused');
    assert.equal(
      script.lines[2],
      'pending_interrupt: {"reason":"refund_approval","context":{"order_id":"A-1042","amount":5000},"node_id":"turn:0/tool:issue_refund","agent_path":"agent:refund-agent/tool:issue_refund"}',
    );
    const executionId = idLine.slice('execution_id: '.length);

    const listed = await t.bin(['list-pending', ...storeFlags(t)], { env });
    // Piped output is never cut (docs/adr/0060): the execution id, node, reason and agent path are whole.
    assert.match(
      listed.stdout,
      new RegExp(`${executionId}\\s+refund-agent\\s+turn:0/tool:issue_refund\\s+refund_approval\\s+agent:refund-agent/tool:issue_refund\\s`),
      listed.stdout,
    );
    const example = path.join(root, 'examples/durability/refund-agent.ts');
    const resumed = await t.bin(
      ['resume', executionId, '--runner', `${example}:refundAgent`, '--value', '{"approved": false, "metadata": {"approver": "alice"}}'],
      { env },
    );
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, 'status: completed\noutput: Refund of $5000 on order A-1042 was rejected by alice. Anything else?\n');
  },
);

area.run();
