/**
 * Live provider tests: one per provider family, run only when its key (`<PROVIDER>_API_KEY`; optional for local
 * servers) and `AGENTKIT_LIVE_<PROVIDER>_MODEL` are set, otherwise listed as skipped (never silently absent).
 * `AGENTKIT_LIVE_<PROVIDER>_BASE_URL` points a preset elsewhere; Azure needs it (its endpoint is per account).
 * Each test runs an agent with one tool, whole and streamed, against the real API.
 */
import * as assert from 'uvu/assert';
import Type from 'typebox';
import { suite } from '../harness/index.js';
import { Agent, AnthropicModel, OPENAI_COMPATIBLE_PRESETS, OpenAICompatibleModel, tool, type ChatModel, type OpenAIProviderName } from '../../src/index.js';

const test = suite('runtime: live providers', { timeoutMs: 120_000 });
const env = process.env;

const families: Array<{ name: string; keyEnv: string; keyRequired: boolean; build: (model: string, baseUrl?: string) => ChatModel }> = [
  ...(Object.keys(OPENAI_COMPATIBLE_PRESETS) as OpenAIProviderName[])
    .filter((p) => p !== 'custom')
    .map((provider) => ({
      name: provider,
      keyEnv: OPENAI_COMPATIBLE_PRESETS[provider].apiKeyEnv,
      keyRequired: OPENAI_COMPATIBLE_PRESETS[provider].keyRequired,
      build: (model: string, baseUrl?: string) => new OpenAICompatibleModel({ provider, model, baseUrl, maxRetries: 3 }),
    })),
  {
    name: 'anthropic',
    keyEnv: 'ANTHROPIC_API_KEY',
    keyRequired: true,
    build: (model: string, baseUrl?: string) => new AnthropicModel({ model, baseUrl, maxRetries: 3 }),
  },
];

for (const family of families) {
  const upper = family.name.toUpperCase();
  const modelVar = `AGENTKIT_LIVE_${upper}_MODEL`;
  const baseVar = `AGENTKIT_LIVE_${upper}_BASE_URL`;
  const model = env[modelVar];
  const needs = [
    family.keyRequired && !env[family.keyEnv] ? family.keyEnv : null,
    model ? null : modelVar,
    family.name === 'azure' && !env[baseVar] ? baseVar : null,
  ].filter(Boolean);
  const label = `${family.name}: an agent calls a tool and answers, whole and streamed`;
  if (needs.length > 0) {
    test.skip(label);
    console.log(`skipped live test ${family.name}: set ${needs.join(' and ')}`);
    continue;
  }
  test(label, async () => {
    const calls: Array<{ a: number; b: number }> = [];
    const add = tool({
      name: 'add',
      description: 'Add two integers and return the sum.',
      parameters: Type.Object({ a: Type.Integer(), b: Type.Integer() }),
      registry: false,
      execute: ({ a, b }) => {
        calls.push({ a, b });
        return a + b;
      },
    });
    const agent = new Agent({
      name: `live-${family.name}`,
      systemPrompt: 'Use the add tool for any arithmetic. Reply with the number only.',
      llm: family.build(model!, env[baseVar]),
      tools: [add],
      config: { temperature: 0, maxTokens: 200 },
      trace: false,
    });
    const result = await agent.run('What is 17 + 25?');
    assert.equal(calls, [{ a: 17, b: 25 }]);
    assert.match(result.output, /42/);
    assert.ok(result.tokens_used > 0, 'usage is reported');
    assert.is(result.tool_calls[0]!.output, 42);

    const deltas: string[] = [];
    let done = false;
    for await (const event of agent.stream('What is 100 + 23?')) {
      if (event.type === 'text_delta') deltas.push(event.text);
      if (event.type === 'done') {
        done = true;
        assert.match(event.result.output, /123/);
        assert.ok(deltas.join('').includes(event.result.output.trim()), 'the answer arrived as deltas');
      }
    }
    assert.ok(done);
    assert.equal(calls.at(-1), { a: 100, b: 23 });
  });
}

test.run();
