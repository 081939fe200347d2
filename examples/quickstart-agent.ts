/**
 * A support agent with two tools and a guardrail. With OPENAI_API_KEY set it talks to OpenAI (model from
 * OPENAI_MODEL, default gpt-4o-mini); without a key it runs on a scripted model, so it works offline and in tests.
 *
 *   node --conditions=source --import tsx examples/quickstart-agent.ts
 *   npx agentkit traces list
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Type from 'typebox';
import { Agent, guardrail, OpenAICompatibleModel, tool, type ChatModel } from 'agentkit';
import { ScriptedModel } from 'agentkit/testing';

const orders: Record<string, { total: number; status: string }> = { '42': { total: 50, status: 'delivered' } };

export const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look an order up by its id',
  parameters: Type.Object({ order_id: Type.String({ description: 'The order id, digits only' }) }),
  replayClass: 'read_only',
  execute: ({ order_id }) => {
    const order = orders[order_id];
    if (!order) throw new Error(`no order ${order_id}`);
    return { order_id, ...order };
  },
});

export const refund = tool({
  name: 'refund',
  description: 'Refund an order',
  parameters: Type.Object({ order_id: Type.String(), amount: Type.Number({ minimum: 0 }) }),
  replayClass: 'side_effecting',
  execute: ({ order_id, amount }) => `refunded ${amount} USD on order ${order_id}`,
});

export const noCardNumbers = guardrail({
  name: 'no_card_numbers',
  position: 'input',
  check: (text) => (/\b(?:\d[ -]?){13,16}\b/.test(text) ? { passed: false, message: 'never send card numbers' } : true),
});

/** OpenAI when a key is set, else a scripted model playing the same conversation. */
function model(): ChatModel {
  if (process.env.OPENAI_API_KEY) return new OpenAICompatibleModel({ provider: 'openai', model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini' });
  return new ScriptedModel([
    { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] },
    { toolCalls: [{ name: 'refund', arguments: { order_id: '42', amount: 50 } }] },
    'Order 42 (50 USD, delivered) is refunded.',
  ]);
}

export const support = new Agent({
  name: 'support',
  systemPrompt: ({ context }) => `You are the support desk of ${(context as { shop: string }).shop}. Look orders up before refunding.`,
  llm: model(),
  tools: [lookupOrder, refund],
  guardrails: [noCardNumbers],
  config: { maxIterations: 6, temperature: 0 },
});

// Run when executed; importing the module (to serve the agent, or to rebind its tools for replay) runs nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const result = await support.run('Please refund order 42 in full.', { context: { shop: 'Acme' } });
  console.log(`output: ${result.output}`);
  console.log(`tools: ${result.tool_calls.map((c) => c.tool_name).join(', ')}`);
  console.log(`tokens: ${result.tokens_used}`);
  console.log(`trace: ${result.trace_id}`);
}
