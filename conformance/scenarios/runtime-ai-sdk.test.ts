/**
 * An Agent on an AI SDK language model (`aiSdkModel` over the AI SDK's own `MockLanguageModelV4`, no network): the
 * quickstart's support desk runs its tool loop, streams text and tool calls, is traced like agentkit's own providers,
 * pauses at its `interrupt()` refund tool and is resumed in another process, and replays: recorded mode reruns from the
 * trace alone with the same output; live reruns take the model object from `withModel(...)` or from the agent module
 * given to `replay fork --agent`, and say so when there is none. With a real provider package (`@ai-sdk/openai`
 * against a loopback server speaking OpenAI's protocol), provider failures become LLMProviderError with the key masked,
 * and what the AI SDK marks retryable is retried.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { backendConfig, checkpointerFor, conformance, spawnNode, startFakeProvider, type ScenarioContext } from '../harness/index.js';
import { orderDeskReply } from '../fixtures/ai-sdk/openai-chat.js';
import { scriptedLanguageModel, v4Usage } from '../../test-support/ai-sdk-v4.js';
import { supportDeskModel } from '../fixtures/ai-sdk/support-desk.js';
import { support } from '../fixtures/ai-sdk/support.js';
import {
  AlreadyResumed,
  aiSdkModel,
  flushTraces,
  LLMProviderError,
  Replay,
  ReplayError,
  TraceStore,
  type AgentResult,
  type AgentStreamEvent,
} from '../../src/index.js';

const area = conformance('runtime: AI SDK models');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SUPPORT = path.join(root, 'conformance/fixtures/ai-sdk/support.ts');

/** Where the variant's traces go: the SQLite store, else a file in its directory. */
function traceDb(t: ScenarioContext): string {
  return t.backend.kind === 'sqlite' ? t.backend.dbPath : path.join(t.cwd, 'traces.db');
}

async function rejects(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

area.scenario(
  'the tool loop: what the model was sent, the answer, tokens_used from V4 usage, and model spans with the provider and model id',
  { backends: ['sqlite'] },
  async (t) => {
    const model = scriptedLanguageModel([
      { toolCalls: [{ id: 'call_a', name: 'lookup_order', input: { order_id: '42' } }], usage: v4Usage(120, 14) },
      { text: 'Order 42: 50 USD, delivered.', usage: v4Usage(180, 11), modelId: 'mock-model-2026-01' },
    ]);
    const agent = support.clone({ llm: aiSdkModel(model), checkpointer: null, traceDb: traceDb(t) });
    const result = await agent.run('Where is order 42?');
    assert.is(result.status, 'completed');
    assert.is(result.output, 'Order 42: 50 USD, delivered.');
    assert.is(result.tokens_used, 120 + 14 + 180 + 11);
    assert.equal(
      result.tool_calls.map((c) => [c.tool_call_id, c.tool_name, c.arguments, c.output]),
      [['call_a', 'lookup_order', { order_id: '42' }, { order_id: '42', total: 50, status: 'delivered' }]],
    );

    assert.is(model.doGenerateCalls.length, 2);
    assert.is(model.doStreamCalls.length, 0, 'run() calls doGenerate');
    const [first, second] = model.doGenerateCalls;
    assert.equal(
      first!.tools!.map((tool) => [tool.type, tool.name]),
      [
        ['function', 'lookup_order'],
        ['function', 'refund'],
      ],
    );
    assert.equal(first!.tools![0]!.type === 'function' && first!.tools![0]!.inputSchema, {
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The order number, digits only' } },
      required: ['order_id'],
    });
    assert.is(first!.temperature, 0, "the quickstart's temperature");
    assert.equal(second!.prompt.slice(1), [
      { role: 'user', content: [{ type: 'text', text: 'Where is order 42?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_a', toolName: 'lookup_order', input: { order_id: '42' } }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_a',
            toolName: 'lookup_order',
            output: { type: 'text', value: '{"order_id":"42","total":50,"status":"delivered"}' },
          },
        ],
      },
    ]);
    assert.is(second!.prompt[0]!.role, 'system');

    await flushTraces();
    const trace = await new TraceStore({ dbPath: traceDb(t) }).getTrace(result.trace_id!);
    const llm = trace.spans.filter((s) => s.name === 'llm.chat_completion').map((s) => s.attributes);
    assert.equal(
      llm.map((a) => [
        a['gen_ai.system'],
        a['gen_ai.request.model'],
        a['gen_ai.response.model'],
        a['gen_ai.usage.input_tokens'],
        a['gen_ai.usage.output_tokens'],
        a['gen_ai.response.finish_reasons'],
      ]),
      [
        ['mock-provider', 'mock-model-id', 'mock-model-id', 120, 14, ['tool_calls']],
        ['mock-provider', 'mock-model-id', 'mock-model-2026-01', 180, 11, ['stop']],
      ],
    );
    const rootSpan = trace.spans.find((s) => s.name === 'agent.support')!;
    assert.equal(JSON.parse(String(rootSpan.attributes['agent.llm.config'])), {
      provider: 'mock-provider',
      model: 'mock-model-id',
      sdk: 'ai-sdk',
      specification_version: 'v4',
      max_retries: 2,
    });
  },
);

area.scenario('streaming: text deltas and tool calls as the model streams them, then the result', { backends: ['sqlite'] }, async (t) => {
  const model = supportDeskModel();
  const agent = support.clone({ llm: aiSdkModel(model), checkpointer: null, traceDb: traceDb(t) });
  const events: AgentStreamEvent[] = [];
  for await (const event of agent.stream('Where is order 1001?')) events.push(event);
  assert.is(model.doStreamCalls.length, 2, 'stream() calls doStream');
  assert.is(model.doGenerateCalls.length, 0);
  const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
  const done = events.at(-1) as Extract<AgentStreamEvent, { type: 'done' }>;
  assert.equal(events.slice(0, -1), [
    { type: 'tool_call_start', id: 'call_1', name: 'lookup_order' },
    { type: 'tool_call_end', id: 'call_1', name: 'lookup_order', arguments: { order_id: '1001' } },
    { type: 'usage', usage },
    { type: 'tool_result', id: 'call_1', name: 'lookup_order', ok: true, content: '{"order_id":"1001","total":1200,"status":"shipped"}' },
    ...['Order ', '1001: ', '1200 ', 'USD, ', 'shipped.'].map((text) => ({ type: 'text_delta', text })),
    { type: 'usage', usage },
  ]);
  assert.is(done.type, 'done');
  assert.is(done.result.output, 'Order 1001: 1200 USD, shipped.');
  assert.is(done.result.tokens_used, 30);

  await flushTraces();
  const trace = await new TraceStore({ dbPath: traceDb(t) }).getTrace(done.result.trace_id!);
  const streamed = trace.spans.filter((s) => s.name === 'llm.chat_completion').map((s) => s.attributes['agentkit.llm.streamed']);
  assert.equal(streamed, [true, true]);
});

area.scenario(
  'pause at the interrupt() refund tool, resume in another process with a new model object there',
  { rows: ['transition:running->paused', 'transition:paused->running'], timeoutMs: 60_000 },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const model = supportDeskModel();
    const agent = support.clone({ llm: aiSdkModel(model), checkpointer, traceDb: traceDb(t) });
    const paused = await agent.run('Please refund order 42 in full.');
    assert.is(paused.status, 'paused');
    assert.is(paused.output, '');
    assert.equal(paused.pending_interrupt?.reason, 'refund_approval');
    assert.equal(paused.pending_interrupt?.context, { order_id: '42', amount: 50 });
    assert.is(model.doGenerateCalls.length, 2, 'lookup, then the refund call that paused');

    const child = spawnNode('conformance/fixtures/ai-sdk/child.ts', [
      'resume',
      JSON.stringify({ config: backendConfig(t.backend), executionId: paused.execution_id, traceDb: traceDb(t) }),
    ]);
    t.defer(() => child.process.kill('SIGKILL'));
    const resumed = JSON.parse(await child.waitForLine((line) => line.startsWith('{'), 30_000)) as AgentResult;
    assert.is((await child.exit()).code, 0, child.stderr());
    assert.is(resumed.status, 'completed');
    assert.is(resumed.execution_id, paused.execution_id);
    assert.is(resumed.output, 'Done: refunded 50 USD on order 42, approved by bob.');
    assert.is(model.doGenerateCalls.length, 2, 'the first process made no more model calls');

    assert.equal(await checkpointer.listPendingInterrupts(), []);
    const again = await rejects(() => agent.resume(paused.execution_id, { resumeValue: { approved: true } }));
    assert.instance(again, AlreadyResumed);
  },
);

area.scenario(
  'replay: recorded mode reruns from the trace with the same output and no model call; live reruns take the model from withModel or --agent',
  { rows: ['cli:replay fork'], backends: ['sqlite'], timeoutMs: 30_000 },
  async (t) => {
    const model = supportDeskModel();
    const agent = support.clone({ llm: aiSdkModel(model), checkpointer: null, traceDb: traceDb(t) });
    const original = await agent.run('Where is order 42?');
    assert.is(original.output, 'Order 42: 50 USD, delivered.');
    await flushTraces();
    const replay = await Replay.load(original.trace_id!, { dbPath: traceDb(t) });

    const calls = model.doGenerateCalls.length;
    const fork = replay.forkAt(0);
    const recorded = await fork.rerun();
    assert.is(recorded.new_output, original.output);
    assert.is(recorded.counts.recordedModelCalls, 2);
    assert.is(recorded.counts.liveModelCalls, 0);
    assert.is(model.doGenerateCalls.length, calls, 'the model was not called');
    assert.is((await fork.compare(recorded)).diverged_at, null);
    const rerunSpans = (await replay.store.spans(recorded.trace_id!)).filter((s) => s.name === 'llm.chat_completion');
    assert.equal(
      rerunSpans.map((s) => [s.attributes['gen_ai.system'], s.attributes['gen_ai.request.model'], s.attributes['agentkit.replay.llm_source']]),
      [
        ['mock-provider', 'mock-model-id', 'recorded'],
        ['mock-provider', 'mock-model-id', 'recorded'],
      ],
    );

    // Live without the model object: the trace cannot rebuild it, and the error says how to supply it.
    const missing = await rejects(() => replay.forkAt(0).withDeterminism('live').rerun());
    assert.instance(missing, ReplayError);
    assert.match(missing.message, /cannot build the ai-sdk model 'mock-provider' 'mock-model-id' from its configuration/);
    assert.match(missing.message, /withModel\(model\)/);

    // Live with withModel: every call goes to the model given.
    const other = scriptedLanguageModel([
      { toolCalls: [{ id: 'x1', name: 'lookup_order', input: { order_id: '1001' } }] },
      { text: 'Order 1001 has shipped.' },
    ]);
    const live = await replay.forkAt(0).withDeterminism('live').withModel(aiSdkModel(other)).rerun();
    assert.is(live.new_output, 'Order 1001 has shipped.');
    assert.is(live.counts.liveModelCalls, 2);
    assert.is(other.doGenerateCalls.length, 2);

    // A changed input misses the recording at the first call, and goes live on the model given.
    const changed = await replay.forkAt(0).modifyInput('Where is order 1001?').withModel(aiSdkModel(supportDeskModel())).rerun();
    assert.is(changed.new_output, 'Order 1001: 1200 USD, shipped.');
    assert.equal([changed.counts.recordedModelCalls, changed.counts.liveModelCalls], [0, 2]);

    // The CLI: the agent module given to --agent supplies the model object.
    const cli = await t.cli(['replay', 'fork', original.trace_id!, '--mode', 'live', '--agent', `${SUPPORT}:support`, '--json']);
    assert.is(cli.code, 0, cli.stderr);
    const body = JSON.parse(cli.stdout) as { new_output: string; original_output: string; diverged_at: number | null };
    assert.equal([body.original_output, body.new_output, body.diverged_at], [original.output, original.output, null]);
    const noAgent = await t.cli(['replay', 'fork', original.trace_id!, '--mode', 'live']);
    assert.is(noAgent.code, 2);
    assert.match(noAgent.stderr, /cannot build the ai-sdk model 'mock-provider' 'mock-model-id'/);
  },
);

area.scenario(
  'a real provider package: HTTP failures become LLMProviderError with the key masked; 5xx retried, a long Retry-After not waited on',
  { backends: 'none' },
  async (t) => {
    const key = 'sk-ai-sdk-loopback-0123456789';
    const overloaded = { status: 503, json: { error: { message: 'The server is overloaded' } } };
    const replies = [
      overloaded,
      null,
      { status: 401, json: { error: { message: `Incorrect API key provided: ${key}.` } } },
      { status: 429, headers: { 'retry-after': '3600' }, json: { error: { message: 'Rate limit reached' } } },
      { status: 500, json: { error: { message: 'boom' } } },
      null,
    ];
    const server = await startFakeProvider((request, index) => replies[index] ?? orderDeskReply(request, index));
    t.defer(() => server.close());
    const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: key });
    const model = aiSdkModel(openai.chat('gpt-4o-mini'), { env: { OPENAI_API_KEY: key }, retryBaseDelayMs: 1 });
    const request = { messages: [{ role: 'user' as const, content: 'Where is order 42?' }] };

    const answer = await model.complete(request);
    assert.equal(answer.toolCalls, [{ id: 'call_2', name: 'lookup_order', arguments: { order_id: '42' } }], 'the 503 was retried');
    assert.is(answer.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(answer.usage, { inputTokens: 20, outputTokens: 8, totalTokens: 28 });

    const unauthorized = (await rejects(() => model.complete(request))) as LLMProviderError;
    assert.instance(unauthorized, LLMProviderError);
    assert.is(unauthorized.httpStatus, 401);
    assert.is(unauthorized.attempts, 1);
    assert.is(unauthorized.message, `openai.chat: HTTP 401 from ${server.url}/v1/chat/completions: Incorrect API key provided: [REDACTED].`);

    const throttled = (await rejects(() => model.complete(request))) as LLMProviderError;
    assert.is(throttled.httpStatus, 429);
    assert.match(throttled.message, /Rate limit reached \(the server asks to retry after 3600 s, longer than the 30000 ms agentkit waits\)$/);

    const events = [];
    for await (const event of model.stream(request)) events.push(event.type);
    assert.equal(events, ['tool_call_start', 'tool_call_end', 'usage', 'done'], 'the 500 before the stream started was retried');
    assert.is(server.requests.length, 6);
    assert.ok(
      server.requests.every((r) => r.headers.authorization === `Bearer ${key}`),
      'the provider package sent its own key',
    );
  },
);

area.run();
