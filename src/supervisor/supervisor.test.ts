import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { Agent } from '../agent/agent.js';
import { ConfigError, NotImplementedError } from '../errors.js';
import type { ChatModel } from '../llm/types.js';
import { FunctionModel } from '../testing/function-model.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { Supervisor, type SupervisorOptions } from './supervisor.js';

const test = suite('Supervisor (in memory)');

const agent = (name: string, llm: ChatModel = new ScriptedModel(['ok'])) => new Agent({ name, llm, trace: false });
const worker = (role: string, llm?: ChatModel) => ({ agent: agent(role, llm), role, description: `does ${role} work` });

function refused(options: SupervisorOptions): string {
  try {
    new Supervisor(options);
  } catch (error) {
    assert.instance(error, ConfigError);
    return (error as Error).message;
  }
  throw new Error('the supervisor was accepted');
}

test('construction refuses what cannot run, naming the problem', () => {
  const llm = new ScriptedModel([]);
  assert.is(refused({ name: 'p', llm, workers: [] }), "supervisor 'p' needs at least one worker");
  assert.is(refused({ name: 'p', llm, workers: [worker('a'), worker('a')] }), "supervisor 'p': two workers have the role 'a'");
  assert.is(
    refused({ name: 'p', llm, workers: [worker('has space')] }),
    "supervisor 'p': worker role \"has space\" cannot form the tool name 'delegate_to_has space' (1-52 letters, digits, '_' or '-')",
  );
  assert.is(
    refused({ name: 'p', llm, workers: [{ ...worker('a'), description: ' ' }] }),
    "supervisor 'p': worker 'a' needs a description (the supervisor's model chooses workers by it)",
  );
  assert.is(
    refused({ name: 'p', llm, workers: [worker('a')], maxDelegationRounds: 0 }),
    "supervisor 'p': maxDelegationRounds must be an integer from 1 to 50, not 0",
  );
  assert.is(refused({ name: 'p', llm, workers: [{ agent: {} as never, role: 'a', description: 'x' }] }), "supervisor 'p': workers[0].agent is not an Agent");
  assert.is(refused({ name: '', llm, workers: [worker('a')] }), 'a Supervisor needs a non-empty name without \'/\', not ""');
});

test('the supervisor model sees one delegate tool per worker and the roster; a worker answers through it', async () => {
  const lead = new FunctionModel((messages) => {
    const last = messages.at(-1)!;
    if (last.role === 'user') return { toolCalls: [{ name: 'delegate_to_research', arguments: { task: 'find the total' } }] };
    return `lead: ${last.content}`;
  });
  const research = new FunctionModel((messages) => `total for '${messages.at(-1)!.content}' is 42`);
  const supervisor = new Supervisor({ name: 'lead', llm: lead, workers: [worker('research', research), worker('writing')], systemPrompt: 'Lead the team.' });
  assert.is(supervisor.kind, 'supervisor');
  const result = await supervisor.run('what is the total?', { trace: false });
  assert.equal([result.status, result.output], ['completed', "lead: total for 'find the total' is 42"]);
  const request = lead.requests[0]!;
  assert.equal(
    request.tools!.map((t) => [t.name, t.description]),
    [
      ['delegate_to_research', 'Delegate a task to the research worker: does research work'],
      ['delegate_to_writing', 'Delegate a task to the writing worker: does writing work'],
    ],
  );
  assert.equal(request.tools![0]!.parameters, {
    type: 'object',
    properties: { task: { type: 'string', description: 'What the worker should do, with everything it needs to know.' } },
    required: ['task'],
    additionalProperties: false,
  });
  assert.is(
    request.messages[0]!.content,
    'Lead the team.\n\nWorkers (call a tool to delegate a task):\n- delegate_to_research: does research work\n- delegate_to_writing: does writing work',
  );
  assert.equal(
    result.tool_calls.map((c) => [c.tool_name, c.arguments, c.output]),
    [['delegate_to_research', { task: 'find the total' }, "total for 'find the total' is 42"]],
  );
  assert.is(research.calls, 1);
  assert.ok(result.tokens_used > 0);
});

test('a worker that fails is reported to the supervisor model as the tool error; the run goes on', async () => {
  const lead = new FunctionModel((messages) => {
    const last = messages.at(-1)!;
    if (last.role === 'user') return { toolCalls: [{ name: 'delegate_to_broken', arguments: { task: 'try' } }] };
    return `lead read: ${last.content}`;
  });
  const supervisor = new Supervisor({ name: 'lead', llm: lead, workers: [worker('broken', new ScriptedModel([]))] });
  const result = await supervisor.run('go', { trace: false });
  assert.match(result.output, /^lead read: Error: ScriptedModel: call 1 but the script has 0 turns/);
  assert.equal(
    result.tool_calls.map((c) => c.tool_name),
    ['delegate_to_broken'],
  );
  assert.ok(result.tool_calls[0]!.error);
});

test('maxDelegationRounds caps the supervisor at 2 model turns a round; workers are relabelled clones; fork and resume refused', async () => {
  const always = new FunctionModel(() => ({ toolCalls: [{ name: 'delegate_to_a', arguments: { task: 't' } }] }));
  const original = agent('a', new FunctionModel(() => 'ok'));
  const supervisor = new Supervisor({ name: 'loop', llm: always, workers: [{ agent: original, role: 'a', description: 'a' }], maxDelegationRounds: 2 });
  try {
    await supervisor.run('go', { trace: false });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, "agent 'loop' reached maxIterations (4)");
  }
  assert.is(always.calls, 4);
  assert.is(original.agentPathLabel, 'agent:a');
  assert.is((supervisor.workers[0]!.agent as Agent).agentPathLabel, 'worker:a');
  try {
    await supervisor.fork('x');
    assert.unreachable();
  } catch (error) {
    assert.instance(error, NotImplementedError);
  }
  try {
    await supervisor.resume('x');
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, "supervisor 'loop' has no checkpointer, so there is nothing to resume; construct it with { checkpointer }");
  }
});

test.run();
