import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { Agent } from '../agent/agent.js';
import { NotImplementedError } from '../errors.js';
import type { ChatModel } from '../llm/types.js';
import { FunctionModel } from '../testing/function-model.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tools/function-tool.js';
import { SwarmError } from './errors.js';
import { HandoffBox, handoffTools } from './handoff.js';
import { Swarm } from './swarm.js';

const test = suite('Swarm (in memory)');

const agent = (name: string, llm: ChatModel = new ScriptedModel(['ok'])) => new Agent({ name, llm, trace: false });

function refused(options: ConstructorParameters<typeof Swarm>[0]): string {
  try {
    new Swarm(options);
  } catch (error) {
    assert.instance(error, SwarmError);
    assert.is((error as SwarmError).code, 'swarm_error');
    return (error as Error).message;
  }
  throw new Error('the swarm was accepted');
}

test('construction refuses what cannot run, naming the problem', () => {
  const [a, b] = [agent('a'), agent('b')];
  assert.is(refused({ name: 's', agents: [a, agent('a')], entrypoint: 'a' }), "swarm 's': two agents are named 'a'");
  assert.is(refused({ name: 's', agents: [a, b], entrypoint: 'c' }), 'swarm \'s\': entrypoint "c" is not one of its agents (a, b)');
  assert.is(refused({ name: 's', agents: [a, b], entrypoint: 'a', maxHandoffs: -1 }), "swarm 's': maxHandoffs must be an integer >= 0, not -1");
  assert.is(refused({ name: 's', agents: [a, b], entrypoint: 'a', maxHandoffs: 1.5 }), "swarm 's': maxHandoffs must be an integer >= 0, not 1.5");
  assert.is(
    refused({ name: 's', agents: [a, b], entrypoint: 'a', handoffs: { a: ['z'] } }),
    "swarm 's': agent 'a' hands off to 'z', which is not one of its agents (a, b)",
  );
  assert.is(
    refused({ name: 's', agents: [a, b], entrypoint: 'a', handoffs: { z: ['a'] } }),
    "swarm 's': handoffs names 'z', which is not one of its agents (a, b)",
  );
  assert.is(refused({ name: 's', agents: [a, b], entrypoint: 'a', handoffs: { a: ['a'] } }), "swarm 's': agent 'a' cannot hand off to itself");
  assert.is(refused({ name: 's', agents: [], entrypoint: 'a' }), "swarm 's' needs at least one agent");
  assert.is(refused({ name: 'x/y', agents: [a], entrypoint: 'a' }), 'a Swarm needs a non-empty name without \'/\', not "x/y"');
  assert.is(
    refused({ name: 's', agents: [a, { name: 'b' } as never], entrypoint: 'a' }),
    "swarm 's': agents[1] is not an Agent (it needs name, tools, run, resume and clone)",
  );
  const spaced = agent('has space');
  assert.is(
    refused({ name: 's', agents: [a, spaced], entrypoint: 'a' }),
    "swarm 's': agent name 'has space' cannot form the tool name 'handoff_to_has space' (1-64 letters, digits, '_' or '-')",
  );
  const clash = new Agent({ name: 'c', llm: new ScriptedModel([]), tools: [tool({ name: 'handoff_to_a', registry: false, execute: () => 1 })], trace: false });
  assert.is(
    refused({ name: 's', agents: [a, clash], entrypoint: 'a' }),
    "swarm 's': agent 'c' already has a tool named 'handoff_to_a', which the swarm adds for handoffs",
  );
});

test('allowlists: undefined is a full mesh; a member missing from the map hands off to no one', () => {
  const mesh = new Swarm({ name: 'm', agents: [agent('a'), agent('b'), agent('c')], entrypoint: 'a' });
  assert.equal(
    [mesh.handoffsOf('a'), mesh.handoffsOf('b'), mesh.handoffsOf('c')],
    [
      ['b', 'c'],
      ['a', 'c'],
      ['a', 'b'],
    ],
  );
  assert.is(mesh.maxHandoffs, 8);
  assert.is(mesh.kind, 'swarm');
  const listed = new Swarm({ name: 'l', agents: [agent('a'), agent('b'), agent('c')], entrypoint: 'a', handoffs: { a: ['b', 'b'] } });
  assert.equal([listed.handoffsOf('a'), listed.handoffsOf('b'), listed.handoffsOf('c')], [['b'], [], []]);
});

test('handoff tools: reason defaults to empty, context must be an object, a second handoff in a run is refused', async () => {
  const box = new HandoffBox();
  const [toB, toC] = handoffTools('a', ['b', 'c'], box);
  assert.equal([toB!.name, toB!.endsRun, toB!.replayClass], ['handoff_to_b', true, 'idempotent']);
  assert.equal(toB!.toDefinition().parameters, {
    type: 'object',
    properties: {
      reason: { type: 'string', description: 'Why the conversation is handed to this agent.', default: '' },
      context: { type: 'object', description: 'Facts to add to the shared context the next agent sees.' },
    },
    additionalProperties: false,
  });
  const prepared = toB!.prepareArguments({});
  assert.equal(prepared, { ok: true, args: { reason: '' } });
  assert.is(toB!.prepareArguments({ context: 'x' }).ok, false);
  assert.is(await toB!.execute({ reason: 'why', context: { k: 1 } }, {} as never), 'Handed off to b.');
  assert.equal(box.request, { source: 'a', target: 'b', reason: 'why', context: { k: 1 } });
  try {
    await toC!.execute({ reason: 'again' }, {} as never);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, "already handed off to 'b' in this turn; only the first handoff takes effect");
  }
  assert.is(box.request!.target, 'b');
});

test('a run without a checkpointer: handoff input carries reason, request and shared state; tool calls and tokens add up', async () => {
  const seen: string[] = [];
  const a = new FunctionModel(() => ({ toolCalls: [{ name: 'handoff_to_b', arguments: { reason: 'needs b', context: { order: 42 } } }] }));
  const b = new FunctionModel((messages) => {
    seen.push(messages.at(-1)!.content as string);
    return 'done by b';
  });
  const swarm = new Swarm({ name: 'duo', agents: [agent('a', a), agent('b', b)], entrypoint: 'a' });
  const result = await swarm.run('refund order 42', { trace: false });
  assert.equal([result.status, result.output, result.pending_interrupt, result.trace_id], ['completed', 'done by b', null, null]);
  assert.equal(seen, [
    "a handed off to you with reason: 'needs b'. Earlier request: 'refund order 42'. Current shared state: {\"order\":42}. Please continue.",
  ]);
  assert.equal(result.tool_calls, [
    { iteration: 0, tool_name: 'handoff_to_b', arguments: { reason: 'needs b', context: { order: 42 } }, tool_call_id: 'call_1', output: 'Handed off to b.' },
  ]);
  assert.ok(result.tokens_used > 0);
  // The handoff ended a's run without another model call; sibling calls of that turn still get their answers.
  assert.equal([a.calls, b.calls], [1, 1]);
});

test('two handoffs in one turn: the first wins, the second is answered with an error, the run ends after the turn', async () => {
  const a = new FunctionModel(() => ({
    toolCalls: [
      { name: 'handoff_to_b', arguments: {} },
      { name: 'handoff_to_c', arguments: {} },
    ],
  }));
  const c = new FunctionModel(() => 'c');
  const swarm = new Swarm({ name: 'trio', agents: [agent('a', a), agent('b', new ScriptedModel(['b answers'])), agent('c', c)], entrypoint: 'a' });
  const result = await swarm.run('go', { trace: false });
  assert.is(result.output, 'b answers');
  assert.equal(
    result.tool_calls.map((call) => [call.tool_name, call.error ?? null]),
    [
      ['handoff_to_b', null],
      ['handoff_to_c', "already handed off to 'b' in this turn; only the first handoff takes effect"],
    ],
  );
  assert.is(c.calls, 0);
});

test('the members are clones: the originals keep their tools; resume needs a checkpointer; fork is refused', async () => {
  const a = agent('a');
  const swarm = new Swarm({ name: 'solo', agents: [a, agent('b')], entrypoint: 'a' });
  await swarm.run('hi', { trace: false });
  assert.equal(a.tools, []);
  try {
    await swarm.resume('x');
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, "swarm 'solo' has no checkpointer, so there is nothing to resume; construct it with { checkpointer }");
  }
  try {
    await swarm.fork('x');
    assert.unreachable();
  } catch (error) {
    assert.instance(error, NotImplementedError);
    assert.match((error as Error).message, "swarm 'solo' cannot be forked (execution 'x')");
  }
});

test.run();
