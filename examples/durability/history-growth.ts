// An Agent reads 50 documents of 1 KB in one run; every step is checkpointed in ./.agentkit/local.db.
import Type from 'typebox';
import Database from 'better-sqlite3';
import { Agent, SQLiteCheckpointer, tool } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

const fetchDoc = tool({
  name: 'fetch_doc',
  description: 'Fetch one document',
  parameters: Type.Object({ i: Type.Number() }),
  registry: false,
  execute: async ({ i }) => `doc ${i}: `.padEnd(1024, '.'),
});
let asked = 0;
const model = new FunctionModel(() => (asked < 50 ? { toolCalls: [{ id: `call_${asked}`, name: 'fetch_doc', arguments: { i: asked++ } }] } : 'read them all'));
const checkpointer = new SQLiteCheckpointer('.agentkit/local.db');
const agent = new Agent({
  name: 'reader',
  systemPrompt: 'You read.',
  llm: model,
  tools: [fetchDoc],
  checkpointer,
  trace: false,
  config: { maxIterations: 60 },
});
const result = await agent.run('read the docs', { executionId: 'reader-1' });

// Every read path sees full states: the last row holds the whole conversation.
const last = await checkpointer.getLast('reader-1');
console.log(`status: ${result.status}, rows: ${(await checkpointer.list('reader-1')).length}`);
console.log(`messages in the last row: ${(last!.state_snapshot.messages as unknown[]).length}`);
await checkpointer.close();

// What is stored: one full snapshot, then each row only what it added.
const db = new Database('.agentkit/local.db', { readonly: true });
const stored = db
  .prepare('SELECT count(*) AS full, (SELECT sum(length(state_snapshot)) FROM checkpoints) AS bytes FROM checkpoints WHERE delta_base IS NULL')
  .get() as { full: number; bytes: number };
console.log(`full snapshots: ${stored.full}, state bytes stored: ${Math.round(stored.bytes / 1024)} KB for 50 KB of tool results`);
db.close();
