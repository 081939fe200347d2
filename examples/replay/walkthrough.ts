import Type from 'typebox';
import { Agent, Replay, tool, type Message } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';

// 1. An agent with a read-only lookup and a side-effecting refund, and a model whose wording follows its prompt.
const refunds: string[] = [];
const lookupOrder = tool({
  name: 'lookup_order',
  replayClass: 'read_only',
  parameters: Type.Object({ order_id: Type.String() }),
  execute: ({ order_id }) => ({ order_id, total: 50 }),
});
const refund = tool({
  name: 'refund',
  replayClass: 'side_effecting',
  parameters: Type.Object({ order_id: Type.String(), amount: Type.Number() }),
  execute: ({ order_id, amount }) => {
    refunds.push(order_id);
    return `refunded ${amount} USD on order ${order_id}`;
  },
});
const model = new FunctionModel((messages: readonly Message[]) => {
  const polite = /polite/.test(messages[0]!.content ?? '') ? 'Certainly. ' : '';
  const last = messages.at(-1)!;
  if (last.role === 'user') return { text: `${polite}Checking.`, toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] };
  if (last.role === 'tool' && last.name === 'lookup_order') return { toolCalls: [{ name: 'refund', arguments: { order_id: '42', amount: 50 } }] };
  return `${polite}Done: ${last.content}.`;
});
const desk = new Agent({ name: 'desk', systemPrompt: 'You are a support desk.', llm: model, tools: [lookupOrder, refund] });
const original = await desk.run('Please refund order 42.');

// 2. Load the stored trace and step through it.
const replay = await Replay.load(original.trace_id!);
console.log(replay.summary());
for await (const step of replay.stepThrough()) console.log(`${step.step} ${step.span_name} ${JSON.stringify(step.output)}`);

// 3. Fork at the first model call, change the prompt, rerun. Recorded mode (the default) answers unchanged model
//    calls from the trace and goes live from the first changed one; the refund is answered from the trace.
const fork = replay.forkAt(1).modifyPrompt('You are a polite support desk.');
const result = await fork.rerun({ llm: model }); // a function model is defined in code: pass it (or `agent: desk`)
console.log(`new trace: ${result.trace_id !== original.trace_id}`);
console.log(`new output: ${result.new_output}`);
console.log(`refunds executed: ${refunds.length}`);

// 4. Compare: the first step that diverged, and what changed there.
const comparison = await fork.compare(result);
console.log(`diverged_at: ${comparison.diverged_at}`);
console.log(await fork.diff(result));

// 5. Keep the fix as a regression test case for `agentkit eval run`.
const record = await result.saveAsTest('.agentkit/regression_tests.jsonl', {
  input: 'Please refund order 42.',
  expectedOutput: String(result.new_output),
  sourceTraceId: original.trace_id,
});
console.log(`saved: ${Object.keys(record).join(', ')}`);
