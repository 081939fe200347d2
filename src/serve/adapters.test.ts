import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Type from 'typebox';
import { suite } from '../../test-support/uvu.js';
import { Agent } from '../agent/agent.js';
import { interrupt } from '../durability/interrupt.js';
import { SQLiteCheckpointer } from '../durability/sqlite-checkpointer.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tools/function-tool.js';
import { toServeTarget } from './adapters.js';

const test = suite('serve adapters');

test('a served agent that pauses streams exactly one paused event, from the agent, then done naming the execution', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentkit-adapters-'));
  const checkpointer = new SQLiteCheckpointer(path.join(dir, 'local.db'));
  try {
    const approve = tool({
      name: 'approve',
      description: 'ask',
      parameters: Type.Object({}),
      registry: false,
      execute: () => interrupt('approval', { amount: 5 }).approved,
    });
    const agent = new Agent({ name: 'pauser', llm: new ScriptedModel([{ toolCalls: [{ name: 'approve' }] }]), tools: [approve], checkpointer, trace: false });
    const target = toServeTarget(agent, { traceDb: path.join(dir, 'local.db') });
    const events = [];
    for await (const event of target.stream!('go', new AbortController().signal)) events.push(event);
    const paused = events.filter((e) => e.type === 'paused');
    assert.is(paused.length, 1);
    const pending = await checkpointer.listPendingInterrupts();
    assert.equal(paused[0], { type: 'paused', reason: 'approval', execution_id: pending[0]!.execution_id, context: { amount: 5 } });
    assert.is(events.at(-2), paused[0]);
    assert.equal(events.at(-1), { type: 'done', execution_id: pending[0]!.execution_id, trace_id: null, status: 'paused' });
  } finally {
    await checkpointer.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
