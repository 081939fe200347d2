/**
 * A Swarm served by `agent serve`: POST /run returns the paused result with the member's pending interrupt, the SDK
 * resumes it, and POST /run/stream refuses it (only Agents stream).
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { buildSupportSwarm } from '../../examples/multi-agent/support-swarm.js';
import { createServeApp } from '../../src/serve/app.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { checkpointerFor, conformance } from '../harness/index.js';

const area = conformance('multi-agent: served');

area.scenario(
  'a served swarm pauses over POST /run, resumes through the SDK; /run/stream refuses it',
  { rows: ['route:POST /run', 'transition:swarm-resume'], surfaces: ['http'], timeoutMs: 40_000 },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const swarm = buildSupportSwarm(checkpointer);
    const server = await t.serve(createServeApp(toServeTarget(swarm, { traceDb: path.join(t.cwd, 'traces.db') })));
    const post = (route: string, input: string) =>
      fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });

    const response = await post('/run', 'Please credit customer C-9 $300 for the outage');
    assert.is(response.status, 200);
    const paused = (await response.json()) as { status: string; output: string; execution_id: string; pending_interrupt: unknown };
    assert.equal([paused.status, paused.output], ['paused', '']);
    assert.equal(paused.pending_interrupt, {
      reason: 'credit_approval',
      context: { customer: 'C-9', amount: 300 },
      node_id: 'turn:0/tool:issue_credit',
      agent_path: 'swarm:support/agent:billing/tool:issue_credit',
    });

    const resumed = await buildSupportSwarm(checkpointer).resume(paused.execution_id, { resumeValue: { approved: true }, trace: false });
    assert.equal([resumed.status, resumed.output], ['completed', 'Credited $300 to C-9. Is there anything else?']);

    const small = await post('/run', 'Please credit customer C-10 $20');
    assert.equal(((await small.json()) as { output: string }).output, 'Credited $20 to C-10. Is there anything else?');

    const stream = await post('/run/stream', 'hello');
    assert.is(stream.status, 400);
    assert.is(((await stream.json()) as { code: string }).code, 'streaming_unsupported');
  },
);

area.run();
