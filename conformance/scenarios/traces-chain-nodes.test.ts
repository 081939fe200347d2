/**
 * A chain's trace shows its nodes (issue 48, docs/adr/0059), on both engines: a served chain that pauses in a node
 * has a `chain.review` root (OK, `agentkit.status = paused`) with one `chain.node.<id>` child per node run, the
 * agent of its first node nested under that node; `traces list` says `paused` until the run is resumed; the resume's
 * trace has the node it re-ran with the decision, and the pause's trace no longer lists as paused.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, startCli, type ScenarioContext } from '../harness/index.js';
import { TraceStore } from '../../src/index.js';

const area = conformance('traces: chain nodes');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REVIEW = `${path.join(root, 'conformance/fixtures/replay/review-chain.ts')}:review`;

async function servedRun(t: ScenarioContext): Promise<{ execution_id: string; trace_id: string; status: string }> {
  const server = startCli(['agent', 'serve', REVIEW, '--host', '127.0.0.1', '--port', '0'], { cwd: t.cwd, env: t.env });
  t.defer(() => server.kill());
  const [, url] = await server.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/);
  const response = await fetch(`${url}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'Refund order 42' }),
  });
  const body = (await response.json()) as { execution_id: string; trace_id: string; status: string };
  server.child.kill('SIGTERM');
  assert.is((await server.exited).code, 0, server.stderr());
  return body;
}

area.scenario(
  'a chain with an interrupt: a span per node, paused in traces list until resumed',
  { rows: ['cli:traces list'], surfaces: ['cli'], timeoutMs: 90_000, storeEnv: true },
  async (t) => {
    const run = await servedRun(t);
    assert.is(run.status, 'paused');
    const store = new TraceStore({ dbPath: t.store! });
    t.defer(() => store.close());
    const spans = await store.spans(run.trace_id);
    const byName = new Map(spans.map((s) => [s.name, s]));
    const rootSpan = spans.find((s) => s.parent_span_id === null)!;
    assert.is(rootSpan.name, 'chain.review');
    assert.equal([rootSpan.status, rootSpan.attributes['agentkit.status']], ['OK', 'paused']);
    const nodes = spans.filter((s) => s.name.startsWith('chain.node.'));
    assert.equal(
      nodes.map((s) => [s.name, s.parent_span_id === rootSpan.span_id, s.status, s.attributes['agentkit.status'] ?? null]),
      [
        ['chain.node.draft', true, 'OK', null],
        ['chain.node.approve', true, 'OK', 'paused'],
      ],
    );
    assert.is(byName.get('chain.node.draft')!.attributes['chain.node.output'], 'Your refund is on its way.');
    assert.equal(JSON.parse(byName.get('chain.node.draft')!.attributes['chain.node.input'] as string), { input: 'Refund order 42' });
    assert.is(byName.get('agent.writer')!.parent_span_id, byName.get('chain.node.draft')!.span_id, 'the agent nests under its node');

    const listed = await t.cli(['traces', 'list']);
    assert.is(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${run.trace_id}\\s+chain\\.review\\s+paused\\s+`));
    const json = JSON.parse((await t.cli(['traces', 'list', '--json'])).stdout) as { items: Array<{ trace_id: string; status: string; run_status?: string }> };
    assert.equal(
      json.items.filter((i) => i.trace_id === run.trace_id).map((i) => [i.status, i.run_status]),
      [['OK', 'paused']],
    );

    const resumed = await t.bin(['resume', run.execution_id, '--runner', REVIEW, '--value', '{"approved": true}', '--approver', 'bob']);
    assert.is(resumed.code, 0, resumed.stderr);
    const after = JSON.parse((await t.cli(['traces', 'list', '--json'])).stdout) as { items: Array<{ trace_id: string; name: string; run_status?: string }> };
    assert.is(after.items.length, 2);
    assert.ok(
      after.items.every((i) => i.run_status === undefined),
      'resumed: no trace lists as paused',
    );
    const resumeTrace = after.items.find((i) => i.trace_id !== run.trace_id)!.trace_id;
    const resumeSpans = await store.spans(resumeTrace);
    assert.equal(
      resumeSpans.map((s) => s.name),
      ['chain.review', 'chain.node.approve', 'chain.node.publish'],
    );
    assert.is(resumeSpans[0]!.attributes['agentkit.resumed_from.trace_id'], run.trace_id);
    const decision = resumeSpans[1]!.events.find((e) => e.name === 'agentkit.decision');
    assert.equal(
      [
        decision?.attributes?.['agentkit.decision.approved'],
        decision?.attributes?.['agentkit.decision.decided_by'],
        decision?.attributes?.['agentkit.decision.surface'],
      ],
      [true, 'bob', 'cli'],
    );
  },
);

area.run();
