/**
 * The quickstart agent: a support desk that looks orders up and refunds them, and pauses for a person's approval
 * before any refund. It works with no API key: a deterministic model plays the support conversation. With
 * OPENAI_API_KEY set it talks to OpenAI instead (model from OPENAI_MODEL, default gpt-4o-mini); with ANTHROPIC_API_KEY,
 * to Anthropic (ANTHROPIC_MODEL, default claude-3-5-haiku-latest).
 *
 *   npx agentkit agent serve examples/quickstart-agent.ts:support --host 127.0.0.1     # serve it on :8000
 *   node --conditions=agentkit-source --import tsx examples/quickstart-agent.ts                 # or run it once, here
 *
 * Checkpoints (the paused run) and traces go to the local store, ./.agentkit/local.db (or AGENTKIT_LOCAL_DB), where
 * `agentkit list-pending`, `agentkit resume` and `agentkit traces list` read them.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Type from 'typebox';
import { Agent, AnthropicModel, checkpointerFor, guardrail, interrupt, OpenAICompatibleModel, tool, type ChatModel, type Message } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

const orders: Record<string, { total: number; status: string }> = {
  '42': { total: 50, status: 'delivered' },
  '1001': { total: 1200, status: 'shipped' },
};

export const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look an order up by its number',
  parameters: Type.Object({ order_id: Type.String({ description: 'The order number, digits only' }) }),
  replayClass: 'read_only',
  execute: ({ order_id }) => {
    const order = orders[order_id];
    if (!order) throw new Error(`there is no order ${order_id}`);
    return { order_id, ...order };
  },
});

/** Refunds need a person's approval: the run pauses here until `resume` brings the decision. */
export const refund = tool({
  name: 'refund',
  description: 'Refund an order; a manager must approve every refund',
  parameters: Type.Object({ order_id: Type.String(), amount: Type.Number({ minimum: 0 }) }),
  replayClass: 'side_effecting',
  // It calls interrupt(): it runs inside the agent's run, which checkpoints the pause (and `mcp serve --expose-tools` leaves it out).
  pauses: true,
  execute: ({ order_id, amount }) => {
    const decision = interrupt('refund_approval', { order_id, amount });
    const by = typeof decision.metadata.approver === 'string' ? decision.metadata.approver : 'a manager';
    if (!decision.approved) return `refund of ${amount} USD on order ${order_id} declined by ${by}`;
    return `refunded ${amount} USD on order ${order_id}, approved by ${by}`;
  },
});

export const noCardNumbers = guardrail({
  name: 'no_card_numbers',
  position: 'input',
  check: (text) => (/\b(?:\d[ -]?){13,16}\b/.test(text) ? { passed: false, message: 'never send card numbers' } : true),
});

/**
 * The offline model: answers from the conversation, the way the instructions ask a real model to: look the order up,
 * refund it when the customer asked for a refund, then report the tool's result.
 */
function supportDesk(messages: readonly Message[]) {
  const last = messages.at(-1)!;
  const asked = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (last.role === 'tool') {
    if (last.is_error) return `Sorry: ${last.content.replace(/^Error: /, '')}.`;
    if (last.name === 'refund') return `Done: ${last.content}.`;
    const order = JSON.parse(last.content) as { order_id: string; total: number; status: string };
    if (/refund/i.test(asked))
      return {
        text: `Order ${order.order_id} is ${order.status}; asking for approval to refund ${order.total} USD. `,
        toolCalls: [{ name: 'refund', arguments: { order_id: order.order_id, amount: order.total } }],
      };
    return `Order ${order.order_id}: ${order.total} USD, ${order.status}.`;
  }
  const orderId = /order\s*#?\s*(\d+)/i.exec(asked)?.[1];
  if (!orderId) return 'I can look orders up and refund them: which order number?';
  return { toolCalls: [{ name: 'lookup_order', arguments: { order_id: orderId } }] };
}

/** OpenAI or Anthropic when a key is set, else the offline model. */
function model(): ChatModel {
  if (process.env.OPENAI_API_KEY) return new OpenAICompatibleModel({ provider: 'openai', model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini' });
  if (process.env.ANTHROPIC_API_KEY) return new AnthropicModel({ model: process.env.ANTHROPIC_MODEL ?? 'claude-3-5-haiku-latest' });
  return new FunctionModel(supportDesk);
}

export const support = new Agent({
  name: 'support',
  description: "Looks orders up by number and refunds them; every refund waits for a manager's approval.",
  systemPrompt:
    'You are a support desk. Look an order up with lookup_order before anything else. Refund only when the customer asks for a refund, for the order total, with the refund tool. Then say what the tool reported.',
  llm: model(),
  tools: [lookupOrder, refund],
  guardrails: [noCardNumbers],
  config: { maxIterations: 6, temperature: 0 },
  // The configured store: ./.agentkit/local.db, or the file or postgres://...?schema= URL in AGENTKIT_LOCAL_DB (a fleet).
  checkpointer: checkpointerFor(),
});

// Run when executed; importing the module (to serve the agent, resume it, or rebind its tools for replay) runs nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const result = await support.run('Please refund order 42 in full.');
  console.log(`status: ${result.status}`);
  console.log(`execution_id: ${result.execution_id}`);
  if (result.pending_interrupt) console.log(`pending: ${result.pending_interrupt.reason} ${JSON.stringify(result.pending_interrupt.context)}`);
  console.log(`trace: ${result.trace_id}`);
  console.log(
    `next: npx agentkit resume ${result.execution_id} --runner examples/quickstart-agent.ts:support --value '{"approved": true, "metadata": {"approver": "alice"}}'`,
  );
}
