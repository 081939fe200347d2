/**
 * The multi-agent examples docs/agents.md points at run offline: the support swarm pauses in one process and the
 * real `agentkit` binary resumes it with the runner's own `resume`; the research supervisor completes.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, spawnNode, type ScenarioContext } from '../harness/index.js';

const area = conformance('multi-agent: examples');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the examples keep their checkpoints in this variant. */
function storeEnv(t: ScenarioContext): Record<string, string> {
  if (t.backend.kind === 'postgres') return { ...t.env, DATABASE_URL: t.backend.url, AGENTKIT_PG_SCHEMA: t.backend.schema };
  return { ...t.env };
}

async function runExample(t: ScenarioContext, file: string): Promise<string[]> {
  const child = spawnNode(file, [], { env: storeEnv(t) });
  t.defer(() => child.process.kill('SIGKILL'));
  const exit = await child.exit(30_000);
  assert.is(exit.code, 0, child.stderr());
  return child.lines;
}

area.scenario(
  'examples/multi-agent/support-swarm.ts pauses; agentkit resume --runner <file>:supportSwarm completes it',
  { rows: ['cli:resume', 'transition:swarm-resume'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    const lines = await runExample(t, 'examples/multi-agent/support-swarm.ts');
    assert.is(lines[0], 'status: paused');
    const executionId = /^execution_id: (\S+)$/.exec(lines[1]!)![1]!;
    assert.is(
      lines[2],
      `pending_interrupt: {"reason":"credit_approval","context":{"customer":"C-7","amount":250},"node_id":"turn:0/tool:issue_credit","agent_path":"swarm:support/agent:billing/tool:issue_credit"}`,
    );
    const runner = `${path.join(root, 'examples/multi-agent/support-swarm.ts')}:supportSwarm`;
    const resumed = await t.bin(['resume', executionId, '--runner', runner, '--value', '{"approved": true, "metadata": {"approver": "alice"}}'], {
      env: storeEnv(t),
    });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(
      resumed.stdout,
      `execution_id: ${executionId}\nstatus: completed\noutput: Credited $250 to C-7. Is there anything else?\npending_interrupt: null\n`,
    );
  },
);

area.scenario('examples/multi-agent/research-supervisor.ts runs to its answer', { rows: [], backends: ['sqlite'], timeoutMs: 60_000 }, async (t) => {
  const lines = await runExample(t, 'examples/multi-agent/research-supervisor.ts');
  assert.equal(lines.slice(0, 3), [
    'status: completed',
    'output: Q3 summary: In Q3, revenue grew 12%; churn fell to 3%.',
    'delegations: delegate_to_researcher, delegate_to_writer',
  ]);
});

area.run();
