/**
 * A support agent whose refund tool pauses for a manager's approval; the run is resumed later, from another process,
 * by the CLI, and the tool runs again with the decision.
 *
 *   node --conditions=agentkit-source --import tsx examples/durability/refund-agent.ts   # runs until the approval: prints the execution id
 *   npx agentkit list-pending                                                    # the paused run
 *   npx agentkit resume <execution_id> --runner examples/durability/refund-agent.ts:refundAgent \
 *       --value '{"approved": true, "metadata": {"approver": "alice"}}'
 *
 * The model is a FunctionModel (offline, deterministic) that decides from the conversation: it asks for the refund,
 * then reports the tool's result. Checkpoints go to the local store (./.agentkit/local.db, or AGENTKIT_LOCAL_DB), or
 * to Postgres when DATABASE_URL is set (schema AGENTKIT_PG_SCHEMA, default agentkit).
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Type from 'typebox';
import { Agent, PostgresCheckpointer, SQLiteCheckpointer, interrupt, tool, type Checkpointer } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

/** Issue a refund; above $1,000 it needs a manager's approval, so it pauses the run with `interrupt()`. */
export const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an order; large refunds wait for a manager',
  parameters: Type.Object({ order_id: Type.String(), amount: Type.Number() }),
  replayClass: 'side_effecting',
  pauses: true,
  execute: ({ order_id, amount }) => {
    if (amount <= 1000) return `Refunded $${amount} on order ${order_id}.`;
    // First call: pauses the run. On resume the tool runs again from the top and interrupt() returns the decision.
    const decision = interrupt('refund_approval', { order_id, amount });
    const approver = typeof decision.metadata.approver === 'string' ? decision.metadata.approver : 'a manager';
    return decision.approved
      ? `Refunded $${amount} on order ${order_id}, approved by ${approver}.`
      : `Refund of $${amount} on order ${order_id} was rejected by ${approver}.`;
  },
});

/** Asks for the refund the user wants, then answers with the tool's result. */
function refundModel(): FunctionModel {
  return new FunctionModel((messages) => {
    const last = messages.at(-1)!;
    if (last.role === 'tool') return `${last.content} Anything else?`;
    const text = String(last.content);
    const order_id = /order ([\w-]+)/.exec(text)?.[1] ?? 'unknown';
    const amount = Number(/\$([\d,]+)/.exec(text)?.[1]?.replace(/,/g, '') ?? 0);
    return { toolCalls: [{ name: 'issue_refund', arguments: { order_id, amount } }] };
  });
}

/** The agent on a given checkpointer. */
export function buildRefundAgent(checkpointer: Checkpointer): Agent {
  return new Agent({ name: 'refund-agent', systemPrompt: 'You issue refunds.', llm: refundModel(), tools: [issueRefund], checkpointer });
}

/** The runner the CLI loads: a zero-argument factory, so each command gets its own checkpointer. */
export function refundAgent(): Agent {
  const url = process.env.DATABASE_URL;
  const checkpointer = url ? new PostgresCheckpointer(url, { schema: process.env.AGENTKIT_PG_SCHEMA ?? 'agentkit' }) : new SQLiteCheckpointer();
  return buildRefundAgent(checkpointer);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const agent = refundAgent();
  const result = await agent.run(process.argv[2] ?? 'Please refund order A-1042 for $5,000');
  console.log(`status: ${result.status}`);
  console.log(`execution_id: ${result.execution_id}`);
  if (result.pending_interrupt) console.log(`pending_interrupt: ${JSON.stringify(result.pending_interrupt)}`);
  else console.log(`output: ${result.output}`);
  await agent.checkpointer?.close();
}
