/**
 * A support Swarm: `triage` reads the request and hands it to `billing` or `tech`; billing's credit tool pauses for a
 * manager's approval above $100. The run pauses, and is resumed later, from another process, by the CLI.
 *
 *   node --conditions=agentkit-source --import tsx examples/multi-agent/support-swarm.ts   # runs until the approval
 *   npx agentkit list-pending
 *   npx agentkit resume <execution_id> --runner examples/multi-agent/support-swarm.ts:supportSwarm \
 *       --value '{"approved": true, "metadata": {"approver": "alice"}}'
 *
 * The models are FunctionModels (offline, deterministic) deciding from the conversation. Checkpoints go to the local
 * store (./.agentkit/local.db, or AGENTKIT_LOCAL_DB), or to Postgres when DATABASE_URL is set.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Type from 'typebox';
import { Agent, PostgresCheckpointer, SQLiteCheckpointer, Swarm, interrupt, tool, type Checkpointer } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

/** Credit a customer's account; above $100 a manager approves first (the run pauses until then). */
const issueCredit = tool({
  name: 'issue_credit',
  description: 'Credit a customer account',
  parameters: Type.Object({ customer: Type.String(), amount: Type.Number() }),
  pauses: true,
  execute: ({ customer, amount }) => {
    if (amount > 100) {
      const decision = interrupt('credit_approval', { customer, amount });
      if (!decision.approved) return `Credit of $${amount} for ${customer} was rejected.`;
    }
    return `Credited $${amount} to ${customer}.`;
  },
});

/** Routes billing questions to billing and everything else to tech, passing the customer along. */
const triageModel = () =>
  new FunctionModel((messages) => {
    const text = String(messages.at(-1)!.content);
    const customer = /customer ([\w-]+)/.exec(text)?.[1] ?? 'unknown';
    const target = /refund|credit|charge/i.test(text) ? 'billing' : 'tech';
    return { toolCalls: [{ name: `handoff_to_${target}`, arguments: { reason: `a ${target} question`, context: { customer } } }] };
  });

/** Issues the credit the shared state names, then reports the tool's result. */
const billingModel = () =>
  new FunctionModel((messages) => {
    const last = messages.at(-1)!;
    if (last.role === 'tool') return `${last.content} Is there anything else?`;
    const customer = /"customer":"([\w-]+)"/.exec(String(last.content))?.[1] ?? 'unknown';
    const amount = Number(/\$(\d+)/.exec(String(last.content))?.[1] ?? 0);
    return { toolCalls: [{ name: 'issue_credit', arguments: { customer, amount } }] };
  });

/** The members (docs/agents.md imports them): triage routes, billing credits, tech answers. */
export const triage = new Agent({ name: 'triage', systemPrompt: 'Route the request.', llm: triageModel() });
export const billing = new Agent({ name: 'billing', systemPrompt: 'Resolve billing requests.', llm: billingModel(), tools: [issueCredit] });
export const tech = new Agent({ name: 'tech', systemPrompt: 'Resolve technical problems.', llm: new FunctionModel(() => 'Please restart the router.') });

/** The swarm on a given checkpointer. */
export function buildSupportSwarm(checkpointer: Checkpointer): Swarm {
  return new Swarm({
    name: 'support',
    agents: [triage, billing, tech],
    entrypoint: 'triage',
    handoffs: { triage: ['billing', 'tech'], billing: ['triage'], tech: ['triage'] },
    maxHandoffs: 4,
    checkpointer,
  });
}

/** The runner the CLI loads: a zero-argument factory, so each command gets its own checkpointer. */
export function supportSwarm(): Swarm {
  const url = process.env.DATABASE_URL;
  return buildSupportSwarm(url ? new PostgresCheckpointer(url, { schema: process.env.AGENTKIT_PG_SCHEMA ?? 'agentkit' }) : new SQLiteCheckpointer());
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const swarm = supportSwarm();
  const result = await swarm.run(process.argv[2] ?? 'Please credit customer C-7 $250 for the double charge');
  console.log(`status: ${result.status}`);
  console.log(`execution_id: ${result.execution_id}`);
  if (result.pending_interrupt) console.log(`pending_interrupt: ${JSON.stringify(result.pending_interrupt)}`);
  else console.log(`output: ${result.output}`);
  await swarm.checkpointer?.close();
}
