import { randomUUID } from 'node:crypto';
import { AlreadyResumed, Chain, SQLiteCheckpointer, connect, drainReplication, interrupt, type Checkpointer } from 'agentkit';

// 1. Connect explicitly. With no arguments, connect() uses AGENTKIT_API_KEY / AGENTKIT_TARGET / AGENTKIT_PROJECT,
//    else the credentials `agentkit connect` saved; it checks the key against the Platform first.
//    Without a key or a reachable Platform it stops here with one line (the local Platform: "Try it locally" above).
const connection = await connect().catch((error: Error) => {
  console.error(`error: ${error.message}`);
  process.exit(1);
});
console.log(`connected: ${connection.verified}`);

// 2. A refund chain that pauses for a manager's approval.
function refundChain(checkpointer: Checkpointer): Chain {
  const chain = new Chain('refund', { checkpointer });
  chain.addNode('approval', (state) => {
    const { amount } = state.input as { amount: number };
    const decision = interrupt('manager_approval', { amount });
    return { amount, approved: decision.approved };
  });
  chain.addNode('finalize', (state) => ({ receipt: `${state.approved ? 'refunded' : 'declined'} ${String(state.amount)} USD` }));
  chain.connect('approval', 'finalize');
  return chain;
}

// 3. Host A pauses the run (written while connected, so it is queued for the Platform). The drain runs off the
//    step's path, and drainReplication waits for it (a process about to exit should).
const refund = `refund-${randomUUID().slice(0, 8)}`;
const hostA = new SQLiteCheckpointer('.agentkit/host-a.db');
const paused = await refundChain(hostA).run({ amount: 120 }, { executionId: refund });
console.log(`host A: ${paused.status}`);
const sent = await drainReplication(hostA);
console.log(`replicated: ${sent?.outcome}, ${(await hostA.fetchUnsynced(100)).length} rows left to send`);
await hostA.close();

// 4. Host B has an empty store. resume() restores the paused run from the Platform first, then continues it.
const hostB = new SQLiteCheckpointer('.agentkit/host-b.db');
//    The Platform records its claim: this pause is decided once, whichever host asks.
const done = await refundChain(hostB).resume(refund, { resumeValue: { approved: true, metadata: {} } });
console.log(`host B: ${done.status}, ${JSON.stringify(done.output)}`);
await drainReplication(hostB);
await hostB.close();

// 5. Host A's copy is stale: resuming it is refused (the Platform names who decided, where and when), and its pending
//    row is resolved, so host A lists nothing pending.
const staleA = new SQLiteCheckpointer('.agentkit/host-a.db');
const refused = await refundChain(staleA)
  .resume(refund, { resumeValue: { approved: false, metadata: {} } })
  .catch((error: unknown) => error);
console.log(`host A: ${refused instanceof AlreadyResumed ? refused.code : 'resumed twice!'}, ${(await staleA.listPendingInterrupts()).length} pending`);
await staleA.close();
