/**
 * A refund workflow that pauses for a manager's approval and is resumed later, from another process, by the CLI.
 *
 *   node --import tsx examples/durability/refund-chain.ts            # runs until the approval: prints the execution id
 *   npx agentkit list-pending                                        # the paused run
 *   npx agentkit resume <execution_id> --runner examples/durability/refund-chain.ts:refundChain \
 *       --value '{"approved": true, "metadata": {"approver": "alice"}}'
 *
 * Checkpoints go to the local store (./.agentkit/local.db, or AGENTKIT_LOCAL_DB), or to Postgres when DATABASE_URL
 * is set (schema AGENTKIT_PG_SCHEMA, default agentkit).
 */
import { realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Chain, PostgresCheckpointer, SQLiteCheckpointer, idempotent, interrupt, type Checkpointer } from 'agentkit';

/** Place a hold on the customer's card: a side effect that must happen once per run, even across a resume. */
const placeHold = idempotent(async function placeHold(orderId: string, amount: number) {
  return { hold_id: `hold_${randomUUID().slice(0, 8)}`, order_id: orderId, amount };
});

/** The chain: assess -> approval (pauses above $1,000) -> refund | reject. */
export function buildRefundChain(checkpointer: Checkpointer): Chain {
  return new Chain('refund', { checkpointer })
    .addNode('assess', (state) => {
      const amount = Number(/\$([\d,]+)/.exec(String(state.input))?.[1]?.replace(/,/g, '') ?? 0);
      return { order_id: /order ([\w-]+)/.exec(String(state.input))?.[1] ?? 'unknown', amount };
    })
    .addNode('approval', async (state) => {
      const hold = await placeHold(state.order_id as string, state.amount as number);
      if ((state.amount as number) <= 1000) return { approved: true, approver: 'policy', hold_id: hold.hold_id };
      const decision = interrupt('manager_approval', { order_id: state.order_id as string, amount: state.amount as number, hold_id: hold.hold_id });
      return { approved: decision.approved, approver: decision.metadata.approver ?? 'unknown', hold_id: hold.hold_id };
    })
    .addNode('refund', (state) => `refunded $${String(state.amount)} on order ${String(state.order_id)} (approved by ${String(state.approver)})`)
    .addNode('reject', (state) => `refund of $${String(state.amount)} on order ${String(state.order_id)} rejected; hold ${String(state.hold_id)} released`)
    .connect('assess', 'approval')
    .connect('approval', 'refund', { condition: (state) => state.approved === true })
    .connect('approval', 'reject');
}

/** The runner the CLI loads: a zero-argument factory, so each command gets its own checkpointer. */
export function refundChain(): Chain {
  const url = process.env.DATABASE_URL;
  const checkpointer = url ? new PostgresCheckpointer(url, { schema: process.env.AGENTKIT_PG_SCHEMA ?? 'agentkit' }) : new SQLiteCheckpointer();
  return buildRefundChain(checkpointer);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const chain = refundChain();
  const result = await chain.run(process.argv[2] ?? 'refund order A-1042 for $50,000');
  console.log(`status: ${result.status}`);
  console.log(`execution_id: ${result.execution_id}`);
  if (result.pending_interrupt) console.log(`pending_interrupt: ${JSON.stringify(result.pending_interrupt)}`);
  else console.log(`output: ${String(result.output)}`);
  await chain.checkpointer?.close();
}
