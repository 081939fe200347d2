/**
 * The served quickstart with an AI SDK model swapped in, nothing else changed: the README's first command serves
 * conformance/fixtures/ai-sdk/support.ts (the quickstart agent whose model is `aiSdkModel` over the AI SDK's mock
 * model) instead of examples/quickstart-agent.ts, and every `curl` and `npx agentkit` line of the README's quickstart
 * runs as written through a real shell: `/run` answers, `/run/stream` streams the tool calls, the pause and `done`,
 * `list-pending` shows the pause, `resume` (another process, with its own model object) completes the refund, and the
 * served runs' model spans name the AI SDK provider and model.
 */
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { conformance, startCli } from '../harness/index.js';
import { BIN } from '../harness/cli.js';
import { bashBlock } from '../harness/readme.js';
import { TraceStore } from '../../src/index.js';

const run = promisify(execFile);
const area = conformance('served agent with an AI SDK model');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const QUICKSTART = 'examples/quickstart-agent.ts:support';
const SWAPPED = 'conformance/fixtures/ai-sdk/support.ts:support';

area.scenario(
  'the README quickstart, served with an AI SDK model swapped in: /run, /run/stream, list-pending, resume in another process, traces',
  {
    rows: ['cli:agent serve', 'cli:list-pending', 'cli:resume', 'cli:traces list', 'route:POST /run', 'route:POST /run/stream'],
    backends: ['sqlite'],
    surfaces: ['cli'],
    timeoutMs: 90_000,
  },
  async (t) => {
    if (t.backend.kind !== 'sqlite') throw new Error('the quickstart runs on the local store');
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const serve = /npx agentkit (agent serve .*?)\s*(#.*)?$/.exec(bashBlock(readme, /^## Quickstart/m, 0)[0]!);
    assert.ok(serve?.[1]?.includes(QUICKSTART), `the README serves the quickstart agent: ${serve?.[1]}`);
    const argv = serve![1]!
      .replace(QUICKSTART, SWAPPED)
      .split(/\s+/)
      .filter((arg, i, all) => arg !== '--port' && all[i - 1] !== '--port');
    const env = { ...t.env, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined } as Record<string, string | undefined>;
    const server = startCli([...argv, '--port', '0'], { cwd: root, env });
    t.defer(() => server.kill());
    const [, url] = await server.waitForStderr(/serving agent '[^']+' on (http:\/\/[^ ]+)/);
    const base = url!.replace('0.0.0.0', '127.0.0.1');

    let executionId = '';
    const outputs: string[] = [];
    for (const line of bashBlock(readme, /^## Quickstart/m, 1)) {
      const command = line
        .replace(/https?:\/\/(localhost|127\.0\.0\.1):8000/g, base)
        .replace(/^npx agentkit /, `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `)
        .replace(QUICKSTART, SWAPPED)
        .replace(/(^|\s)(examples|conformance)\//g, `$1${root}/$2/`);
      // The README keeps the paused run's id in $id (its stream line shows the stream on stderr).
      const { stdout, stderr } = await run('/bin/sh', ['-c', command], { cwd: t.cwd, env: { ...process.env, ...env, id: executionId } as NodeJS.ProcessEnv });
      const output = `${stdout}${stderr}`;
      outputs.push(output);
      const paused = /"type":"paused"[^\n]*"execution_id":"([0-9a-f-]{36})"/.exec(output);
      if (paused && !executionId) executionId = paused[1]!;
    }
    const [answered, streamed] = outputs;
    const all = outputs.join('\n');
    assert.match(answered!, /"output":"Order 42: 50 USD, delivered\."/, '/run answered from the AI SDK model');
    assert.match(answered!, /"status":"completed"/);
    assert.match(answered!, /"tokens_used":30\b/, 'two model calls of 15 V4 tokens each');
    const events = streamed!
      .trim()
      .split('\n\n')
      .map((frame) => JSON.parse(frame.replace(/^event: [a-z_]+\ndata: /, '')) as { type: string; name?: string; arguments?: unknown; text?: string });
    assert.equal(
      events.filter((e) => e.type === 'tool_call').map((e) => [e.name, e.arguments]),
      [
        ['lookup_order', { order_id: '42' }],
        ['refund', { order_id: '42', amount: 50 }],
      ],
      '/run/stream carries the tool calls the model streamed',
    );
    assert.is(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => e.text)
        .join(''),
      'Order 42 is delivered; asking for approval to refund 50 USD. ',
      'and its text, word by word as the model streamed it',
    );
    assert.ok(events.filter((e) => e.type === 'delta').length > 5);
    assert.equal(
      events.slice(-2).map((e) => e.type),
      ['paused', 'done'],
    );
    assert.ok(executionId, `the stream paused a run:\n${all}`);
    assert.match(all, new RegExp(`${executionId}  [^\\n]*refund_`), 'list-pending shows the paused run');
    assert.match(all, /status: completed\n/, 'resume completed the run');
    assert.match(all, /output: Done: refunded 50 USD on order 42, approved by alice\./, 'the resumed model read the approved refund');
    assert.match(all, /agent\.support/, 'traces list shows the runs');

    // A graceful stop flushes the server's spans: every model span names the AI SDK provider and model.
    server.child.kill('SIGTERM');
    await server.exited;
    const store = new TraceStore({ dbPath: t.backend.dbPath });
    const traces = await store.listTraces();
    assert.is(traces.length, 3, 'the /run, the streamed run, and its resume');
    for (const trace of traces) {
      const llm = (await store.spans(trace.trace_id)).filter((s) => s.name === 'llm.chat_completion');
      assert.ok(llm.length > 0);
      for (const span of llm) assert.equal([span.attributes['gen_ai.system'], span.attributes['gen_ai.request.model']], ['mock-provider', 'mock-model-id']);
    }
  },
);

area.run();
