import { openai } from '@ai-sdk/openai';
import { Agent, aiSdkModel, tool, Type } from 'agentkit';

const orders: Record<string, { total: number; status: string }> = { '42': { total: 50, status: 'delivered' }, '43': { total: 20, status: 'shipped' } };

const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look an order up by its number',
  parameters: Type.Object({ order_id: Type.String() }),
  replayClass: 'read_only',
  execute: ({ order_id }) => ({ order_id, ...orders[order_id] }),
});

// Any AI SDK provider package works the same way: anthropic('claude-3-5-haiku-latest'), bedrock(...), google(...).
// @ai-sdk/openai reads OPENAI_API_KEY (and OPENAI_BASE_URL, when set) itself; agentkit masks the key in errors.
if (!process.env.OPENAI_API_KEY) {
  console.error('error: this example calls OpenAI: set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)');
  process.exit(1);
}
const agent = new Agent({
  name: 'orders',
  systemPrompt: 'Look the order up with lookup_order, then answer in one sentence.',
  llm: aiSdkModel(openai.chat('gpt-4o-mini')),
  tools: [lookupOrder],
  config: { temperature: 0 },
});

const result = await agent.run('Where is order 42?');
console.log(result.output);
console.log(`model calls traced as gen_ai.system=${agent.llm.provider}, gen_ai.request.model=${agent.llm.model}; tokens: ${result.tokens_used}`);

for await (const event of agent.stream('Where is order 43?')) {
  if (event.type === 'tool_call_end') console.log(`calling ${event.name} ${JSON.stringify(event.arguments)}`);
  if (event.type === 'text_delta') process.stdout.write(event.text);
}
console.log();
