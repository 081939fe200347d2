/**
 * docs/llm-providers.md's AI SDK example is examples/ai-sdk/openai-agent.ts, character for character, and it runs as
 * written with the real `@ai-sdk/openai` provider package: pointed (by its own OPENAI_BASE_URL) at a loopback server
 * that speaks OpenAI's chat completions, it runs the tool loop whole and streamed, and prints what the page says.
 */
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, runTsFile, startFakeProvider } from '../harness/index.js';
import { orderDeskReply } from '../fixtures/ai-sdk/openai-chat.js';

const area = conformance('LLM providers: AI SDK docs example');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = path.join(root, 'examples/ai-sdk/openai-agent.ts');

area.scenario(
  'docs/llm-providers.md AI SDK example runs with @ai-sdk/openai: a tool loop, then the same streamed',
  { backends: ['sqlite'], timeoutMs: 30_000 },
  async (t) => {
    const page = await readFile(path.join(root, 'docs/llm-providers.md'), 'utf8');
    const block = /## AI SDK models[\s\S]*?```ts\n([\s\S]*?)```/.exec(page)?.[1];
    assert.is(block, await readFile(EXAMPLE, 'utf8'), 'the page shows the example file as it is');

    const server = await startFakeProvider(orderDeskReply);
    t.defer(() => server.close());
    const key = 'sk-docs-example-0123456789';
    const run = await runTsFile([EXAMPLE], { cwd: t.cwd, env: { ...process.env, ...t.env, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: key } });
    assert.is(run.code, 0, run.stderr);
    assert.is(
      run.stdout,
      [
        'Order 42 is delivered.',
        'model calls traced as gen_ai.system=openai.chat, gen_ai.request.model=gpt-4o-mini; tokens: 56',
        'calling lookup_order {"order_id":"43"}',
        'Order 43 is shipped.',
        '',
      ].join('\n'),
    );

    assert.equal(
      server.requests.map((r) => [r.method, r.path, r.headers.authorization, (r.body as { stream?: boolean }).stream ?? false]),
      [
        ['POST', '/v1/chat/completions', `Bearer ${key}`, false],
        ['POST', '/v1/chat/completions', `Bearer ${key}`, false],
        ['POST', '/v1/chat/completions', `Bearer ${key}`, true],
        ['POST', '/v1/chat/completions', `Bearer ${key}`, true],
      ],
    );
    const first = server.requests[0]!.body as Record<string, unknown>;
    assert.is(first.model, 'gpt-4o-mini');
    assert.is(first.temperature, 0);
    assert.equal(first.tools, [
      {
        type: 'function',
        function: {
          name: 'lookup_order',
          description: 'Look an order up by its number',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
        },
      },
    ]);
    const second = server.requests[1]!.body as { messages: unknown[] };
    assert.equal(second.messages.slice(1), [
      { role: 'user', content: 'Where is order 42?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"42"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"order_id":"42","total":50,"status":"delivered"}' },
    ]);
  },
);

area.run();
