/**
 * The agent of docs/ui.md's replay example: a support desk with a read-only order lookup and a deterministic model
 * (no API key needed) whose wording follows its system prompt. Run it once to leave a trace in ./.agentkit/local.db,
 * then start the UI with it registered so its traces can be forked and rerun:
 *
 *   node --conditions=agentkit-source --import tsx examples/replay/ui-desk.ts       # prints trace_id: <id>
 *   npx agentkit ui --agent examples/replay/ui-desk.ts:desk
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Type from 'typebox';
import { Agent, tool, type Message } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look an order up by its number',
  parameters: Type.Object({ order_id: Type.String() }),
  replayClass: 'read_only',
  execute: ({ order_id }) => ({ order_id, status: order_id === '42' ? 'delivered' : 'shipped' }),
});

/** Asks for the order in the question, then answers from the lookup; "polite" in the prompt adds a courtesy. */
const model = new FunctionModel((messages: readonly Message[]) => {
  const polite = /polite/i.test(messages[0]?.content ?? '') ? 'Certainly! ' : '';
  const last = messages.at(-1)!;
  if (last.role === 'user') {
    const orderId = /\d+/.exec(last.content ?? '')?.[0] ?? '0';
    return { text: 'Checking.', toolCalls: [{ name: 'lookup_order', arguments: { order_id: orderId } }] };
  }
  const { order_id, status } = JSON.parse(last.content ?? '{}') as { order_id: string; status: string };
  return `${polite}Order ${order_id} is ${status}.`;
});

export const desk = new Agent({ name: 'desk', systemPrompt: 'You are a support desk.', llm: model, tools: [lookupOrder] });

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const result = await desk.run(process.argv[2] ?? 'Where is order 42?');
  console.log(result.output);
  console.log(`trace_id: ${result.trace_id}`);
}
