/**
 * The agent tool loop with deterministic models: results, the exact histories the model receives, tool errors and
 * unknown tools fed back to the model, argument validation, max iterations, streaming, cancellation, the hooks the
 * durability layer plugs into, and the tool registry.
 */
import * as assert from 'uvu/assert';
import Type from 'typebox';
import { conformance } from '../harness/index.js';
import {
  Agent,
  CONTROL_FLOW,
  ConfigError,
  MaxIterationsError,
  tool,
  ToolRegistry,
  defaultToolRegistry,
  withToolRegistry,
  type AgentStreamEvent,
  type LoopState,
  type Message,
  type ToolContext,
} from '../../src/index.js';
import { FunctionModel, ScriptedModel, ScriptExhaustedError, type ScriptedToolCall } from '../../src/testing/index.js';

const area = conformance('runtime: agent loop');
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });

function calculator(log: string[] = []) {
  return [
    tool({
      name: 'add',
      description: 'Add two numbers',
      parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
      replayClass: 'read_only',
      registry: false,
      execute: ({ a, b }) => {
        log.push(`add ${a} ${b}`);
        return a + b;
      },
    }),
    tool({
      name: 'lookup',
      description: 'Look a city up',
      parameters: Type.Object({ city: Type.String() }),
      registry: false,
      execute: ({ city }) => {
        log.push(`lookup ${city}`);
        if (city === 'Atlantis') throw new Error('no such city: Atlantis');
        return { city, population: 2_100_000 };
      },
    }),
  ];
}

area.scenario('two tool calls in one turn: the result, the records, and the exact history the model saw', { backends: ['sqlite'] }, async (t) => {
  const log: string[] = [];
  const llm = new ScriptedModel([
    {
      toolCalls: [
        { name: 'add', arguments: { a: 2, b: 3 } },
        { name: 'lookup', arguments: { city: 'Paris' } },
      ],
      usage: usage(40, 12),
    },
    { text: '5, and Paris has 2.1M people.', usage: usage(90, 9) },
  ]);
  const agent = new Agent({
    name: 'helper',
    systemPrompt: 'Be exact.',
    llm,
    tools: calculator(log),
    traceDb: t.backend.kind === 'sqlite' ? t.backend.dbPath : '',
  });
  const result = await agent.run('2+3, and how big is Paris?');
  assert.match(result.execution_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(result.trace_id ?? '', /^[0-9a-f]{32}$/);
  assert.ok(result.latency_ms > 0);
  assert.equal(
    { ...result, execution_id: '', trace_id: '', latency_ms: 0 },
    {
      output: '5, and Paris has 2.1M people.',
      trace_id: '',
      execution_id: '',
      status: 'completed',
      pending_interrupt: null,
      tokens_used: 151,
      latency_ms: 0,
      tool_calls: [
        { iteration: 0, tool_name: 'add', arguments: { a: 2, b: 3 }, tool_call_id: 'call_1', output: 5 },
        { iteration: 0, tool_name: 'lookup', arguments: { city: 'Paris' }, tool_call_id: 'call_2', output: { city: 'Paris', population: 2100000 } },
      ],
    },
  );
  assert.equal(log, ['add 2 3', 'lookup Paris']);
  const opening: Message[] = [
    { role: 'system', content: 'Be exact.' },
    { role: 'user', content: '2+3, and how big is Paris?' },
  ];
  assert.is(llm.calls, 2);
  assert.equal(llm.received, [
    opening,
    [
      ...opening,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', name: 'add', arguments: { a: 2, b: 3 } },
          { id: 'call_2', name: 'lookup', arguments: { city: 'Paris' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', name: 'add', content: '5' },
      { role: 'tool', tool_call_id: 'call_2', name: 'lookup', content: '{"city":"Paris","population":2100000}' },
    ],
  ]);
  assert.equal(llm.requests[0]!.tools, [
    {
      name: 'add',
      description: 'Add two numbers',
      parameters: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } },
    },
    { name: 'lookup', description: 'Look a city up', parameters: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } } },
  ]);
});

area.scenario('unknown tools, invalid arguments, non-JSON arguments and tool errors go back to the model as Error results', { backends: 'none' }, async () => {
  const log: string[] = [];
  const wrongCalls: ScriptedToolCall[] = [
    { name: 'teleport', arguments: { to: 'Mars' } },
    { name: 'add', arguments: { a: 'two', b: 3 } },
    { name: 'lookup', arguments: { city: 'Atlantis' } },
  ];
  const llm = new FunctionModel((messages) => (messages.at(-1)!.role === 'user' ? { toolCalls: wrongCalls } : 'I could not do any of that.'));
  const agent = new Agent({ name: 'clumsy', llm, tools: calculator(log), trace: false });
  const result = await agent.run('go');
  assert.is(result.output, 'I could not do any of that.');
  assert.equal(log, ['lookup Atlantis']);
  const results = llm.received[1]!.filter((m) => m.role === 'tool');
  assert.equal(results, [
    { role: 'tool', tool_call_id: 'call_1', name: 'teleport', content: "Error: Unknown tool 'teleport'", is_error: true },
    { role: 'tool', tool_call_id: 'call_2', name: 'add', content: "Error: invalid arguments for tool 'add': /a: must be number", is_error: true },
    { role: 'tool', tool_call_id: 'call_3', name: 'lookup', content: 'Error: no such city: Atlantis', is_error: true },
  ]);
  assert.equal(
    result.tool_calls.map((c) => c.error),
    ["Unknown tool 'teleport'", "invalid arguments for tool 'add': /a: must be number", 'no such city: Atlantis'],
  );

  const raw = new FunctionModel((messages) =>
    messages.at(-1)!.role === 'user'
      ? {
          text: '',
          toolCalls: [{ id: 'x1', name: 'add', arguments: {}, raw_arguments: '{"a": 1, "b":' }],
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          model: 'm',
          finishReason: 'tool_calls',
        }
      : 'ok',
  );
  const second = await new Agent({ name: 'raw', llm: raw, tools: calculator(), trace: false }).run('go');
  assert.is(second.tool_calls[0]!.error, `the arguments for tool 'add' are not a JSON object: {"a": 1, "b":`);
});

area.scenario('schema defaults fill missing arguments before the call', { backends: 'none' }, async () => {
  const seen: unknown[] = [];
  const greet = tool({
    name: 'greet',
    parameters: Type.Object({ name: Type.String(), greeting: Type.Optional(Type.String({ default: 'Hello' })) }),
    registry: false,
    execute: (args) => {
      seen.push(args);
      return `${args.greeting}, ${args.name}`;
    },
  });
  const llm = new ScriptedModel([{ toolCalls: [{ name: 'greet', arguments: { name: 'Ada' } }] }, 'done']);
  const result = await new Agent({ name: 'greeter', llm, tools: [greet], trace: false }).run('hi');
  assert.equal(seen, [{ name: 'Ada', greeting: 'Hello' }]);
  assert.equal(result.tool_calls[0]!.arguments, { name: 'Ada', greeting: 'Hello' });
  assert.is(result.tool_calls[0]!.output, 'Hello, Ada');
});

area.scenario('a model still calling tools at maxIterations: MaxIterationsError, no further call', { backends: 'none' }, async () => {
  const looping = { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] };
  const llm = new ScriptedModel([looping, looping, looping]);
  const agent = new Agent({ name: 'loopy', llm, tools: calculator(), config: { maxIterations: 2 }, trace: false });
  const error = await agent.run('count').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, MaxIterationsError);
  assert.is((error as MaxIterationsError).code, 'max_iterations_exceeded');
  assert.is((error as Error).message, "agent 'loopy' reached maxIterations (2) without a final answer; the model was still calling tools (last turn: add)");
  assert.is(llm.calls, 2);
  assert.throws(
    () => new Agent({ name: 'x', llm, config: { maxIterations: 0 } }),
    (e: unknown) => e instanceof ConfigError && e.message === 'maxIterations must be an integer from 1 to 100, got 0',
  );
  assert.throws(() => new Agent({ name: 'x', llm, config: { maxIterations: 101 } }), /from 1 to 100, got 101/);
});

area.scenario('a script that runs out fails clearly instead of repeating its last turn', { backends: 'none' }, async () => {
  const llm = new ScriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }]);
  const error = await new Agent({ name: 'short', llm, tools: calculator(), trace: false }).run('go').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, ScriptExhaustedError);
  assert.is(
    (error as Error).message,
    'ScriptedModel: call 2 but the script has 1 turn; script one turn per model call (a tool-calling agent needs a final text turn)',
  );
  assert.is(llm.calls, 2);
  assert.is(llm.remaining, 0);
});

area.scenario('a system prompt function of the context; sampling settings, history and execution id reach the model', { backends: 'none' }, async () => {
  const llm = new ScriptedModel(['Bonjour Ada']);
  const agent = new Agent({
    name: 'polyglot',
    systemPrompt: ({ context, input, agentName, executionId }) =>
      `Answer in ${(context as { lang: string }).lang}. (${agentName}, ${executionId}, ${input.length})`,
    llm,
    config: { temperature: 0.3, maxTokens: 99, topP: 0.9, seed: 1, stop: ['END'], toolChoice: 'auto' },
    trace: false,
  });
  const history: Message[] = [
    { role: 'user', content: 'earlier' },
    { role: 'assistant', content: 'noted' },
  ];
  const result = await agent.run('Hi', { context: { lang: 'French' }, executionId: 'exec-42', history });
  assert.is(result.execution_id, 'exec-42');
  assert.is(result.trace_id, null, 'no trace id when tracing is off');
  assert.equal(llm.requests[0]!.messages, [
    { role: 'system', content: 'Answer in French. (polyglot, exec-42, 2)' },
    { role: 'user', content: 'earlier' },
    { role: 'assistant', content: 'noted' },
    { role: 'user', content: 'Hi' },
  ]);
  assert.equal(llm.requests[0]!.settings, { temperature: 0.3, maxTokens: 99, topP: 0.9, seed: 1, stop: ['END'], toolChoice: 'auto' });
});

area.scenario('tools receive their context: call id, agent, execution id and the run context', { backends: 'none' }, async () => {
  const seen: Array<Omit<ToolContext, 'signal' | 'traceHeaders'>> = [];
  const whoami = tool({
    name: 'whoami',
    registry: false,
    execute: (_args, ctx) => {
      const { signal, traceHeaders, ...rest } = ctx;
      assert.instance(signal, AbortSignal);
      assert.ok(traceHeaders === undefined || typeof traceHeaders === 'function', 'traceHeaders, when given, is a function');
      seen.push(rest);
      return 'ok';
    },
  });
  const llm = new ScriptedModel([{ toolCalls: [{ name: 'whoami', id: 'c-7' }] }, 'done']);
  await new Agent({ name: 'self', llm, tools: [whoami], trace: false }).run('who?', { executionId: 'e-1', context: { user: 'ada' } });
  assert.equal(seen, [{ toolCallId: 'c-7', toolName: 'whoami', agentName: 'self', executionId: 'e-1', context: { user: 'ada' } }]);
});

area.scenario('stream(): deltas word by word, tool calls and results, usage, then done with the result', { backends: 'none' }, async () => {
  const llm = new ScriptedModel([
    { text: 'Let me add.', toolCalls: [{ name: 'add', arguments: { a: 20, b: 22 } }], usage: usage(10, 5) },
    { text: 'It is 42.', usage: usage(20, 4) },
  ]);
  const agent = new Agent({ name: 'streamer', llm, tools: calculator(), trace: false });
  const events: AgentStreamEvent[] = [];
  for await (const event of agent.stream('20+22?', { executionId: 'e-s' })) events.push(event);
  const done = events.pop() as Extract<AgentStreamEvent, { type: 'done' }>;
  assert.equal(events, [
    { type: 'text_delta', text: 'Let ' },
    { type: 'text_delta', text: 'me ' },
    { type: 'text_delta', text: 'add.' },
    { type: 'tool_call_start', id: 'call_1', name: 'add' },
    { type: 'tool_call_end', id: 'call_1', name: 'add', arguments: { a: 20, b: 22 } },
    { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
    { type: 'tool_result', id: 'call_1', name: 'add', ok: true, content: '42' },
    { type: 'text_delta', text: 'It ' },
    { type: 'text_delta', text: 'is ' },
    { type: 'text_delta', text: '42.' },
    { type: 'usage', usage: { inputTokens: 20, outputTokens: 4, totalTokens: 24 } },
  ]);
  assert.is(done.type, 'done');
  assert.equal(
    { ...done.result, latency_ms: 0 },
    {
      output: 'It is 42.',
      trace_id: null,
      execution_id: 'e-s',
      status: 'completed',
      pending_interrupt: null,
      tokens_used: 39,
      latency_ms: 0,
      tool_calls: [{ iteration: 0, tool_name: 'add', arguments: { a: 20, b: 22 }, tool_call_id: 'call_1', output: 42 }],
    },
  );
  assert.equal(llm.received[1]!.at(-2), {
    role: 'assistant',
    content: 'Let me add.',
    tool_calls: [{ id: 'call_1', name: 'add', arguments: { a: 20, b: 22 } }],
  });
});

area.scenario('a stream failure is thrown after the events before it; stopping early aborts the run', { backends: 'none' }, async () => {
  const failing = new ScriptedModel([{ text: 'one two', toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] }]);
  const seen: string[] = [];
  const error = await (async () => {
    for await (const event of new Agent({ name: 'f', llm: failing, tools: calculator(), trace: false }).stream('x')) seen.push(event.type);
  })().then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, ScriptExhaustedError);
  assert.equal(seen, ['text_delta', 'text_delta', 'tool_call_start', 'tool_call_end', 'usage', 'tool_result']);

  let started = 0;
  let finished = 0;
  const slow = tool({
    name: 'slow',
    registry: false,
    execute: async (_args, ctx) => {
      started++;
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, 2000);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(ctx.signal.reason);
        });
      });
      finished++;
      return 'late';
    },
  });
  const llm = new ScriptedModel([{ text: 'working', toolCalls: [{ name: 'slow' }] }, 'never']);
  for await (const event of new Agent({ name: 's', llm, tools: [slow], trace: false }).stream('x')) {
    if (event.type === 'tool_call_end') break;
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.is(started, 1);
  assert.is(finished, 0, 'the tool was aborted');
  assert.is(llm.calls, 1, 'no model call after the consumer left');
});

area.scenario('an abort signal cancels a run with its reason', { backends: 'none' }, async () => {
  const llm = new ScriptedModel(['late'], { delayMs: 1000 });
  const controller = new AbortController();
  const reason = new Error('cancelled by user');
  setTimeout(() => controller.abort(reason), 30);
  const error = await new Agent({ name: 'a', llm, trace: false }).run('x', { signal: controller.signal }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.is(error, reason);
});

area.scenario('a control-flow signal from a tool leaves the loop untouched instead of going to the model', { backends: 'none' }, async () => {
  class PauseSignal extends Error {
    readonly [CONTROL_FLOW] = true;
  }
  const pausing = tool({ name: 'approve', registry: false, execute: () => Promise.reject(new PauseSignal('needs approval')) });
  const llm = new ScriptedModel([{ toolCalls: [{ name: 'approve' }] }, 'unreachable']);
  const error = await new Agent({ name: 'p', llm, tools: [pausing], trace: false }).run('x').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, PauseSignal);
  assert.is(llm.calls, 1);
});

area.scenario('hooks see every boundary with JSON state, and a run can continue from a saved state', { backends: 'none' }, async () => {
  const boundaries: string[] = [];
  const saved: LoopState[] = [];
  const llm = new ScriptedModel([
    {
      toolCalls: [
        { name: 'add', arguments: { a: 1, b: 2 } },
        { name: 'add', arguments: { a: 3, b: 4 } },
      ],
    },
    'sum done',
  ]);
  const agent = new Agent({ name: 'hooked', systemPrompt: 'S', llm, tools: calculator(), trace: false });
  await agent.run('add', {
    hooks: {
      beforeTurn: (run, state) => {
        boundaries.push(`turn:${state.turn} (${state.messages.length} messages, exec ${run.executionId})`);
        saved.push(JSON.parse(JSON.stringify(state)) as LoopState);
      },
      beforeToolCall: (_run, state, call) =>
        void boundaries.push(`turn:${state.turn}/tool:${call.name} ${JSON.stringify(call.arguments)} (${state.messages.length} messages)`),
      afterToolCall: (_run, state, call, outcome) => void boundaries.push(`after ${call.id} ${outcome.content} (${state.messages.length} messages)`),
    },
    executionId: 'h-1',
  });
  assert.equal(boundaries, [
    'turn:0 (2 messages, exec h-1)',
    'turn:0/tool:add {"a":1,"b":2} (3 messages)',
    'after call_1 3 (4 messages)',
    'turn:0/tool:add {"a":3,"b":4} (4 messages)',
    'after call_2 7 (5 messages)',
    'turn:1 (5 messages, exec h-1)',
  ]);
  // Re-enter at the saved second turn: the model sees exactly the saved history, no tool runs again.
  const resumedModel = new ScriptedModel(['sum done again']);
  const log: string[] = [];
  const resumed = await new Agent({ name: 'hooked', systemPrompt: 'S', llm: resumedModel, tools: calculator(log), trace: false }).run('add', {
    startState: saved[1]!,
  });
  assert.is(resumed.output, 'sum done again');
  assert.equal(resumedModel.received[0], saved[1]!.messages);
  assert.equal(log, []);
  assert.is(resumed.tool_calls.length, 2, 'the saved tool calls stay on the result');
});

area.scenario('tools: replay_class defaults and validation, names, and the registry they join', { backends: 'none' }, async () => {
  const plain = tool({ name: 'plain_tool', execute: () => 1 });
  assert.is(plain.replayClass, 'side_effecting');
  assert.is(defaultToolRegistry.get('plain_tool'), plain, 'tools join the default registry when constructed');
  assert.equal(plain.toDict(), {
    name: 'plain_tool',
    description: '',
    tool_type: 'function',
    origin: 'function',
    parameters: { type: 'object', properties: {} },
    replay_class: 'side_effecting',
    config: {},
  });
  assert.throws(
    () => tool({ name: 'bad_class', replayClass: 'sometimes' as never, execute: () => 1 }),
    (e: unknown) =>
      e instanceof ConfigError && e.message === `tool 'bad_class': replay_class must be one of read_only, idempotent, side_effecting, got "sometimes"`,
  );
  assert.throws(() => tool({ name: 'has space', execute: () => 1 }), /tool name "has space" is invalid/);
  assert.throws(
    () => tool({ name: 'arr', parameters: Type.Array(Type.String()) as never, execute: () => 1 }),
    /parameters must be a JSON schema of type 'object'/,
  );
  assert.throws(() => new Agent({ name: 'dup', llm: new ScriptedModel([]), tools: [plain, plain] }), /two tools are named 'plain_tool'/);

  const job = new ToolRegistry(defaultToolRegistry);
  const local = withToolRegistry(job, () => tool({ name: 'job_only_tool', execute: () => 2 }));
  assert.is(job.get('job_only_tool'), local);
  assert.is(defaultToolRegistry.get('job_only_tool'), undefined, 'a tool made inside a job stays job-local');
  assert.is(job.get('plain_tool'), plain, 'a job sees the global tools');
  const unlisted = tool({ name: 'unlisted_tool', registry: false, execute: () => 3 });
  assert.is(defaultToolRegistry.get(unlisted.name), undefined);
  defaultToolRegistry.unregister('plain_tool');
});

area.run();
