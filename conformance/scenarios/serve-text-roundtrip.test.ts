/**
 * Text is text: a run input holding NUL and other code points valid in JSON strings (the private-use character
 * Postgres storage uses as its escape, control characters, a line separator, an astral emoji) is served, stored in
 * the checkpoints and the trace, and read back exactly, on SQLite and on Postgres (which refuses NUL in text and
 * jsonb unless agentkit escapes it).
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { conformance } from '../harness/index.js';
import { checkpointerFor } from '../harness/checkpointers.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { createServeApp } from '../../src/serve/app.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { TraceStore, flushTraces } from '../../src/tracing/index.js';

const area = conformance('served text round trip');

const TEXT = 'a\u0000b \uE000 \uE0000 c\u0001\u001f \uFFFF \u2028 \u{1F600} "q" \\ end\u0000';

area.scenario('NUL and friends round-trip through the run, the checkpoints and the trace', { rows: ['route:POST /run'], surfaces: ['http'] }, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const traceDb = path.join(t.cwd, 'traces.db');
  const server = await t.serve(createServeApp(toServeTarget(weatherAgent({ checkpointer, traceDb }), { traceDb })));
  const response = await fetch(`${server.url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: TEXT }) });
  const body = (await response.json()) as { output: string; status: string; execution_id: string; trace_id: string };
  assert.is(response.status, 200, JSON.stringify(body));
  assert.is(body.status, 'completed');
  assert.is(body.output, `You said: ${TEXT}`);

  const rows = await checkpointer.list(body.execution_id);
  assert.ok(rows.length > 0, 'the run left checkpoints');
  const stored = JSON.stringify(rows.map((row) => [row.state_snapshot, row.node_input, row.node_output]));
  assert.ok(stored.includes(JSON.stringify(TEXT).slice(1, -1)), 'the input is stored exactly');
  assert.ok(stored.includes(JSON.stringify(`You said: ${TEXT}`).slice(1, -1)), 'the answer is stored exactly');

  await flushTraces();
  const trace = await new TraceStore({ dbPath: traceDb }).getTrace(body.trace_id);
  const spans = JSON.stringify(trace.spans);
  assert.ok(
    spans.includes(JSON.stringify(TEXT).slice(1, -1)) || spans.includes(JSON.stringify(JSON.stringify(TEXT)).slice(1, -1)),
    'the trace holds the exact text',
  );
});

area.run();
