/**
 * `aiSdkModel` over the AI SDK's own mock model (`MockLanguageModelV4` from `ai/test`): what a request becomes in V4
 * call options, what a generated result and a stream become in agentkit's terms, how failures become
 * LLMProviderError (masked, retried when the AI SDK marks them retryable), and the refusal of other specification
 * versions.
 */
import * as assert from 'uvu/assert';
import { APICallError, type LanguageModelV4, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { Type } from 'typebox';
import { generated, streamed, turnParts, v4Usage } from '../../../test-support/ai-sdk-v4.js';
import { suite } from '../../../test-support/uvu.js';
import { registerSecret } from '../../config/secrets.js';
import { ConfigError } from '../../errors.js';
import { tool } from '../../tools/index.js';
import { createModel } from '../create.js';
import { LLMProviderError } from '../errors.js';
import type { Message } from '../messages.js';
import type { StreamEvent } from '../types.js';
import { aiSdkModel } from './model.js';

const test = suite('llm: AI SDK models');

const lookup = tool({
  name: 'lookup_order',
  description: 'Look an order up',
  parameters: Type.Object({ order_id: Type.String() }),
  registry: false,
  execute: () => 'unused',
});

const history: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Where are orders 1 and 2?' },
  {
    role: 'assistant',
    content: 'Checking.',
    tool_calls: [
      { id: 'c1', name: 'lookup_order', arguments: { order_id: '1' } },
      { id: 'c2', name: 'lookup_order', arguments: { order_id: '2' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', name: 'lookup_order', content: '{"status":"shipped"}' },
  { role: 'tool', tool_call_id: 'c2', name: 'lookup_order', content: 'Error: no order 2', is_error: true },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c3', name: 'lookup_order', arguments: {}, raw_arguments: '{"order_id": 3' }] },
  { role: 'tool', tool_call_id: 'c3', name: 'lookup_order', content: 'Error: arguments are not JSON' },
  { role: 'user', content: 'Thanks.' },
];

async function rejection(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

async function events(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

/** An APICallError as provider packages throw it: an HTTP failure, or (no status) a connection failure, which they mark retryable. */
function apiError(statusCode: number | undefined, message: string, responseHeaders?: Record<string, string>): APICallError {
  return new APICallError({
    message,
    url: 'https://api.example.test/v1/chat?key=in-the-query',
    requestBodyValues: { secret: 'body' },
    statusCode,
    responseHeaders,
    ...(statusCode === undefined ? { isRetryable: true } : {}),
  });
}

test('a request becomes V4 call options: prompt parts, function tools from TypeBox, tool choice, settings, provider options, the signal itself', async () => {
  const mock = new MockLanguageModelV4({ doGenerate: generated({ text: 'ok' }) });
  const controller = new AbortController();
  await aiSdkModel(mock, { providerOptions: { openai: { parallelToolCalls: false } } }).complete(
    {
      messages: history,
      tools: [lookup.toDefinition()],
      settings: { temperature: 0.2, maxTokens: 100, topP: 0.9, stop: ['END'], seed: 7, toolChoice: { name: 'lookup_order' }, parallelToolCalls: false },
    },
    { signal: controller.signal },
  );
  const call = mock.doGenerateCalls[0]!;
  assert.equal(call.prompt, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Where are orders 1 and 2?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_order', input: { order_id: '1' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup_order', input: { order_id: '2' } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup_order', output: { type: 'text', value: '{"status":"shipped"}' } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'lookup_order', output: { type: 'error-text', value: 'Error: no order 2' } },
      ],
    },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'lookup_order', input: {} }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'lookup_order', output: { type: 'text', value: 'Error: arguments are not JSON' } }],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
  ]);
  assert.equal(call.tools, [
    {
      type: 'function',
      name: 'lookup_order',
      description: 'Look an order up',
      inputSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  ]);
  assert.equal(call.toolChoice, { type: 'tool', toolName: 'lookup_order' });
  assert.equal([call.temperature, call.maxOutputTokens, call.topP, call.stopSequences, call.seed], [0.2, 100, 0.9, ['END'], 7]);
  assert.equal(call.providerOptions, { openai: { parallelToolCalls: false } });
  assert.is(call.abortSignal, controller.signal, 'the run signal itself, not a composite');
});

test('unset settings and an empty tool list are not sent; auto, none and required tool choices map one to one', async () => {
  const mock = new MockLanguageModelV4({ doGenerate: generated({ text: 'ok' }) });
  const model = aiSdkModel(mock);
  await model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
  assert.equal(Object.keys(mock.doGenerateCalls[0]!).sort(), ['prompt']);
  for (const choice of ['auto', 'none', 'required'] as const) {
    await model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [lookup.toDefinition()], settings: { toolChoice: choice } });
    assert.equal(mock.doGenerateCalls.at(-1)!.toolChoice, { type: choice });
  }
});

test('a generated result: text parts joined, client tool calls decoded, provider-run tools and reasoning left out, usage, finish reason, model', async () => {
  const mock = new MockLanguageModelV4({
    doGenerate: {
      content: [
        { type: 'reasoning', text: 'thinking' },
        { type: 'text', text: 'Order 1 ' },
        { type: 'tool-call', toolCallId: 'web', toolName: 'web_search', input: '{}', providerExecuted: true },
        { type: 'tool-result', toolCallId: 'web', toolName: 'web_search', result: { found: true } },
        { type: 'text', text: 'is shipped.' },
        { type: 'tool-call', toolCallId: 'c9', toolName: 'lookup_order', input: '{"order_id":"9"}' },
        { type: 'tool-call', toolCallId: 'c10', toolName: 'lookup_order', input: '{"order_id": 10' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: {
        inputTokens: { total: undefined, noCache: 7, cacheRead: 3, cacheWrite: 1 },
        outputTokens: { total: undefined, text: 4, reasoning: 2 },
      },
      response: { modelId: 'mock-model-2026' },
      warnings: [],
    },
  });
  const response = await aiSdkModel(mock).complete({ messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(response, {
    text: 'Order 1 is shipped.',
    toolCalls: [
      { id: 'c9', name: 'lookup_order', arguments: { order_id: '9' } },
      { id: 'c10', name: 'lookup_order', arguments: {}, raw_arguments: '{"order_id": 10' },
    ],
    usage: { inputTokens: 11, outputTokens: 6, totalTokens: 17 },
    model: 'mock-model-2026',
    finishReason: 'tool_use',
  });

  const bare = new MockLanguageModelV4({
    doGenerate: {
      content: [],
      finishReason: { unified: 'length', raw: undefined },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 3, text: undefined, reasoning: undefined },
      },
      warnings: [],
    },
  });
  assert.equal(await aiSdkModel(bare).complete({ messages: [{ role: 'user', content: 'hi' }] }), {
    text: '',
    toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 3, totalTokens: 3 },
    model: 'mock-model-id',
    finishReason: 'length',
  });
});

test('a stream: text deltas as they arrive, tool-input start to tool-call end, then usage and done', async () => {
  const mock = new MockLanguageModelV4({
    doStream: streamed(
      turnParts({
        text: 'Looking both up.',
        toolCalls: [{ id: 'c1', name: 'lookup_order', input: { order_id: '1' } }],
        modelId: 'mock-model-2026',
        usage: v4Usage(12, 8),
      }),
    ),
  });
  const seen = await events(aiSdkModel(mock).stream({ messages: [{ role: 'user', content: 'hi' }] }));
  const call = { id: 'c1', name: 'lookup_order', arguments: { order_id: '1' } };
  const usage = { inputTokens: 12, outputTokens: 8, totalTokens: 20 };
  assert.equal(seen, [
    { type: 'text_delta', text: 'Looking ' },
    { type: 'text_delta', text: 'both ' },
    { type: 'text_delta', text: 'up.' },
    { type: 'tool_call_start', id: 'c1', name: 'lookup_order', index: 0 },
    { type: 'tool_call_end', toolCall: call, index: 0 },
    { type: 'usage', usage },
    { type: 'done', response: { text: 'Looking both up.', toolCalls: [call], usage, model: 'mock-model-2026', finishReason: 'tool_calls' } },
  ]);
});

test('a stream: a whole tool call, a call streamed but never completed, and provider-run tools', async () => {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'tool-input-start', id: 'web', toolName: 'web_search', providerExecuted: true },
    { type: 'tool-call', toolCallId: 'web', toolName: 'web_search', input: '{}', providerExecuted: true },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_order', input: '{"order_id":"1"}' },
    { type: 'tool-input-start', id: 'c2', toolName: 'lookup_order' },
    { type: 'tool-input-delta', id: 'c2', delta: '{"order_id":' },
    { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
    { type: 'finish', usage: v4Usage(1, 1), finishReason: { unified: 'length', raw: 'length' } },
  ];
  const seen = await events(aiSdkModel(new MockLanguageModelV4({ doStream: streamed(parts) })).stream({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(
    seen.map((e) => (e.type === 'tool_call_end' ? [e.type, e.index, e.toolCall] : e.type === 'tool_call_start' ? [e.type, e.index, e.id] : [e.type])),
    [
      ['tool_call_start', 0, 'c1'],
      ['tool_call_end', 0, { id: 'c1', name: 'lookup_order', arguments: { order_id: '1' } }],
      ['tool_call_start', 1, 'c2'],
      ['tool_call_end', 1, { id: 'c2', name: 'lookup_order', arguments: {}, raw_arguments: '{"order_id":' }],
      ['usage'],
      ['done'],
    ],
  );
});

test('a stream: an error part and a stream without finish are LLMProviderError', async () => {
  const failing = new MockLanguageModelV4({
    doStream: streamed([
      { type: 'text-delta', id: 't', delta: 'Hel' },
      { type: 'error', error: apiError(529, 'Overloaded') },
    ]),
  });
  const seen: StreamEvent[] = [];
  const error = await rejection(async () => {
    for await (const event of aiSdkModel(failing).stream({ messages: [{ role: 'user', content: 'hi' }] })) seen.push(event);
  });
  assert.equal(seen, [{ type: 'text_delta', text: 'Hel' }], 'what arrived before the error was streamed');
  assert.instance(error, LLMProviderError);
  assert.is((error as LLMProviderError).httpStatus, 529);
  assert.is((error as LLMProviderError).message, 'mock-provider: HTTP 529 from https://api.example.test/v1/chat: Overloaded');

  const cut = new MockLanguageModelV4({ doStream: streamed([{ type: 'text-delta', id: 't', delta: 'Hel' }]) });
  const malformed = await rejection(() => events(aiSdkModel(cut).stream({ messages: [{ role: 'user', content: 'hi' }] })));
  assert.instance(malformed, LLMProviderError);
  assert.is((malformed as Error).message, 'mock-provider: malformed stream: it ended without a finish part');

  const broken = new MockLanguageModelV4({
    doStream: {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hel' });
          controller.error(new TypeError('terminated'));
        },
      }),
    },
  });
  const dropped = await rejection(() => events(aiSdkModel(broken).stream({ messages: [{ role: 'user', content: 'hi' }] })));
  assert.instance(dropped, LLMProviderError);
  assert.is((dropped as Error).message, 'mock-provider: TypeError: terminated');
});

test('provider errors: status, endpoint without its query, the provider reason with registered secrets masked, nothing from the request', async () => {
  const key = 'sk-ai-sdk-test-0123456789';
  const env = { MOCK_PROVIDER_API_KEY: key };
  const mock = new MockLanguageModelV4({
    doGenerate: async () => {
      throw apiError(401, `Incorrect API key provided: ${key}.`);
    },
  });
  const error = await rejection(() => aiSdkModel(mock, { env }).complete({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.instance(error, LLMProviderError);
  const failure = error as LLMProviderError;
  assert.is(failure.code, 'llm_provider_error');
  assert.is(failure.provider, 'mock-provider');
  assert.is(failure.httpStatus, 401);
  assert.is(failure.attempts, 1, 'a 401 is not retried');
  assert.is(failure.message, 'mock-provider: HTTP 401 from https://api.example.test/v1/chat: Incorrect API key provided: [REDACTED].');
  assert.not.match(failure.message, /in-the-query|secret/);
  assert.ok(APICallError.isInstance(failure.cause), 'the AI SDK error is the cause');

  registerSecret('gateway-token-abcdef');
  const named = new MockLanguageModelV4({
    doGenerate: async () => {
      throw new Error('the gateway refused gateway-token-abcdef');
    },
  });
  const plain = await rejection(() => aiSdkModel(named, { provider: 'team-gateway' }).complete({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.is((plain as LLMProviderError).message, 'team-gateway: Error: the gateway refused [REDACTED]');
  assert.is((plain as LLMProviderError).provider, 'team-gateway');
});

test('retryable failures are retried (doGenerate, and doStream before it starts); a long Retry-After fails at once', async () => {
  let generateCalls = 0;
  const flaky = new MockLanguageModelV4({
    doGenerate: async () => {
      generateCalls++;
      if (generateCalls < 3) throw apiError(503, 'The server is overloaded');
      return generated({ text: 'at last' });
    },
  });
  const fast = { retryBaseDelayMs: 1 };
  assert.is((await aiSdkModel(flaky, fast).complete({ messages: [{ role: 'user', content: 'hi' }] })).text, 'at last');
  assert.is(generateCalls, 3);

  const down = new MockLanguageModelV4({
    doGenerate: async () => {
      throw apiError(503, 'The server is overloaded');
    },
  });
  const exhausted = (await rejection(() => aiSdkModel(down, fast).complete({ messages: [{ role: 'user', content: 'hi' }] }))) as LLMProviderError;
  assert.is(exhausted.attempts, 3);
  assert.is(exhausted.message, 'mock-provider: HTTP 503 from https://api.example.test/v1/chat after 3 attempts: The server is overloaded');

  let streamCalls = 0;
  const streamFlaky = new MockLanguageModelV4({
    doStream: async () => {
      streamCalls++;
      if (streamCalls === 1) throw apiError(undefined, 'Cannot connect to API: ECONNRESET');
      return streamed(turnParts({ text: 'streamed' }));
    },
  });
  const done = (await events(aiSdkModel(streamFlaky, fast).stream({ messages: [{ role: 'user', content: 'hi' }] }))).at(-1)!;
  assert.is(done.type === 'done' && done.response.text, 'streamed');
  assert.is(streamCalls, 2);

  let throttled = 0;
  const slow = new MockLanguageModelV4({
    doGenerate: async () => {
      throttled++;
      throw apiError(429, 'Rate limit reached', { 'retry-after': '3600' });
    },
  });
  const refused = (await rejection(() => aiSdkModel(slow, fast).complete({ messages: [{ role: 'user', content: 'hi' }] }))) as LLMProviderError;
  assert.is(throttled, 1);
  assert.is(
    refused.message,
    'mock-provider: HTTP 429 from https://api.example.test/v1/chat: Rate limit reached (the server asks to retry after 3600 s, longer than the 30000 ms agentkit waits)',
  );

  const offline = new MockLanguageModelV4({
    doGenerate: async () => {
      throw apiError(undefined, 'Cannot connect to API: ECONNREFUSED');
    },
  });
  const unreachable = (await rejection(() =>
    aiSdkModel(offline, { maxRetries: 0 }).complete({ messages: [{ role: 'user', content: 'hi' }] }),
  )) as LLMProviderError;
  assert.is(unreachable.httpStatus, null);
  assert.is(unreachable.message, 'mock-provider: request failed: Cannot connect to API: ECONNREFUSED (https://api.example.test/v1/chat)');
});

test('another specification version is refused in one line naming it and the supported one; so are ids and non-models', () => {
  const refusal = (value: unknown) => {
    try {
      aiSdkModel(value as LanguageModelV4);
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.not.match((error as Error).message, /\n/, 'one line');
      return (error as Error).message;
    }
    throw new Error('expected a refusal');
  };
  assert.is(
    refusal(new MockLanguageModelV3({ provider: 'openai.chat', modelId: 'gpt-4o-mini' })),
    `aiSdkModel: unsupported AI SDK specification version "v3" ('openai.chat' model 'gpt-4o-mini'); agentkit supports 'v4' (@ai-sdk/provider 4.x, as used by ai 7.x)`,
  );
  assert.match(refusal({ specificationVersion: 'v5', provider: 'p', modelId: 'm' }), /unsupported AI SDK specification version "v5" .*supports 'v4'/);
  assert.is(
    refusal('openai/gpt-4o'),
    `aiSdkModel needs a language model object from a provider package (such as openai.chat('openai/gpt-4o')), not the model id 'openai/gpt-4o'`,
  );
  assert.match(refusal({ provider: 'p' }), /has no specificationVersion$/);
  assert.is(refusal(null), 'aiSdkModel needs an AI SDK language model, got null');
  assert.match(refusal({ specificationVersion: 'v4', provider: 'p', modelId: 'm', doGenerate: () => null }), /has no doStream method$/);
});

test('the configuration names the provider and model, holds no secret, and is never rebuilt into a model', () => {
  const model = aiSdkModel(new MockLanguageModelV4({ provider: 'openai.chat', modelId: 'gpt-4o-mini' }), { maxRetries: 1 });
  assert.is(model.provider, 'openai.chat');
  assert.is(model.model, 'gpt-4o-mini');
  const config = model.toConfig();
  assert.equal(config, { provider: 'openai.chat', model: 'gpt-4o-mini', sdk: 'ai-sdk', specification_version: 'v4', max_retries: 1 });
  // Even a provider id agentkit has a client for is not rebuilt as that client.
  try {
    createModel({ ...config, provider: 'openai' });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, /^cannot build the ai-sdk model 'openai' 'gpt-4o-mini' from its configuration/);
  }
});

test.run();
