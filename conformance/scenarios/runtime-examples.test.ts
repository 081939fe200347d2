/** The runnable examples the docs point at run offline (scripted model, no key) and leave a trace. */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { conformance, runTsFile } from '../harness/index.js';

const area = conformance('runtime: examples');

area.scenario(
  'examples/quickstart-agent.ts runs without a key, pauses at the refund, resumes from the CLI, and its traces are listed',
  { backends: ['sqlite'], timeoutMs: 30_000 },
  async (t) => {
    const env: Record<string, string | undefined> = { ...process.env, ...t.env };
    delete env.OPENAI_API_KEY;
    delete env.ANTHROPIC_API_KEY;
    const run = await runTsFile([path.resolve('examples/quickstart-agent.ts')], { cwd: t.cwd, env });
    assert.is(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.is(lines[0], 'status: paused');
    const executionId = /^execution_id: ([0-9a-f-]{36})$/.exec(lines[1]!)?.[1];
    assert.ok(executionId, lines[1]);
    assert.is(lines[2], 'pending: refund_approval {"order_id":"42","amount":50}');
    const traceId = /^trace: ([0-9a-f]{32})$/.exec(lines[3]!)?.[1];
    assert.ok(traceId, lines[3]);
    const runner = `${path.resolve('examples/quickstart-agent.ts')}:support`;
    const resumed = await t.bin(['resume', executionId!, '--runner', runner, '--value', '{"approved": false, "metadata": {"approver": "bob"}}'], {
      env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' },
    });
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /^status: completed\noutput: Done: refund of 50 USD on order 42 declined by bob\.\n/m);
    const listed = await t.cli(['traces', 'list']);
    assert.match(listed.stdout, new RegExp(`^${traceId}  agent\\.support  OK +6  `, 'm'));
  },
);

area.run();
