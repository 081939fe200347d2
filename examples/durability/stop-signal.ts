/**
 * Handing runs over on shutdown (ADR 0051): a SIGTERM arrives while the agent's slow tool runs; the tool finishes,
 * the run stops at its next step boundary with RunStopped (no failed row), and a recovery sweep (here in the same
 * process; in production another replica) continues it from that checkpoint.
 *
 *   node --conditions=agentkit-source --import tsx examples/durability/stop-signal.ts [store.db]
 */
import Type from 'typebox';
import { Agent, RunStopped, SQLiteCheckpointer, StopSignal, recoverOrphans, tool } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

const checkpointer = new SQLiteCheckpointer(process.argv[2] ?? '.agentkit/local.db');
const refund = tool({
  name: 'refund',
  description: 'Refund an order (slow)',
  parameters: Type.Object({ order: Type.String() }),
  registry: false,
  replayClass: 'idempotent',
  execute: async ({ order }) => {
    process.kill(process.pid, 'SIGTERM'); // the orchestrator stops this process mid-call
    await new Promise((resolve) => setTimeout(resolve, 100));
    return `refunded ${order}`;
  },
});
const model = new FunctionModel((messages) =>
  messages.some((m) => m.role === 'tool') ? 'Order 42 is refunded.' : { toolCalls: [{ name: 'refund', arguments: { order: '42' } }] },
);
const agent = new Agent({ name: 'refunds', llm: model, tools: [refund], checkpointer, trace: false });

const stop = new StopSignal();
process.once('SIGTERM', () => stop.drain());
try {
  await stop.run(() => agent.run('Refund order 42'));
} catch (error) {
  if (!(error instanceof RunStopped)) throw error;
  console.log(`stopped ${error.executionId}; another process continues it`);
}

// Another replica's sweep, here in this process: the stopped run is an orphan at once.
for (const outcome of await recoverOrphans([agent])) console.log(`${outcome.outcome} ${outcome.execution_id} (attempt ${outcome.attempt})`);
await checkpointer.close();
