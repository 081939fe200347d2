/**
 * The Anthropic provider against a local server speaking the Messages protocol: the exact requests (system prompt
 * lifted out, tool results as tool_result blocks in a user turn, tools with input_schema), streamed and whole
 * answers with tool use, retries on 429 and 529, malformed bodies and streams, and a configuration without the key.
 */
import * as assert from 'uvu/assert';
import { conformance, startFakeProvider, type FakeProvider } from '../harness/index.js';
import {
  AnthropicModel,
  assistantMessage,
  ConfigError,
  createModel,
  LLMProviderError,
  systemMessage,
  toolMessage,
  userMessage,
  type ChatRequest,
  type StreamEvent,
} from '../../src/index.js';

const area = conformance('runtime: Anthropic provider');
const KEY = 'sk-ant-test-0123456789abcdefghij';

const lookup = {
  name: 'lookup_order',
  description: 'Find an order',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
};

const request: ChatRequest = {
  messages: [
    systemMessage('You handle refunds.'),
    systemMessage('Be brief.'),
    userMessage('Refund order 42'),
    assistantMessage('Looking it up.', [
      { id: 'toolu_1', name: 'lookup_order', arguments: { order_id: '42' } },
      { id: 'toolu_2', name: 'lookup_order', arguments: { order_id: '43' } },
    ]),
    toolMessage('toolu_1', 'lookup_order', '{"total":50}'),
    toolMessage('toolu_2', 'lookup_order', 'Error: no such order', true),
    userMessage('Only the first one.'),
  ],
  tools: [lookup],
  settings: { temperature: 0, toolChoice: 'required', stop: ['###'] },
};

const expectedBody = {
  model: 'claude-3-5-haiku-latest',
  max_tokens: 1024,
  system: 'You handle refunds.\n\nBe brief.',
  messages: [
    { role: 'user', content: 'Refund order 42' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking it up.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup_order', input: { order_id: '42' } },
        { type: 'tool_use', id: 'toolu_2', name: 'lookup_order', input: { order_id: '43' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"total":50}' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Error: no such order', is_error: true },
        { type: 'text', text: 'Only the first one.' },
      ],
    },
  ],
  tools: [{ name: 'lookup_order', description: 'Find an order', input_schema: lookup.parameters }],
  tool_choice: { type: 'any' },
  temperature: 0,
  stop_sequences: ['###'],
};

async function provider(t: { defer(fn: () => unknown): void }, replies: Parameters<typeof startFakeProvider>[0]): Promise<FakeProvider> {
  const server = await startFakeProvider(replies);
  t.defer(() => server.close());
  return server;
}

function model(server: FakeProvider, extra: Partial<ConstructorParameters<typeof AnthropicModel>[0]> = {}) {
  return new AnthropicModel({
    model: 'claude-3-5-haiku-latest',
    apiKey: KEY,
    baseUrl: `${server.url}/v1`,
    defaultMaxTokens: 1024,
    retryBaseDelayMs: 1,
    ...extra,
  });
}

const message = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-3-5-haiku-20241022',
  content: [
    { type: 'text', text: 'Refunding.' },
    { type: 'tool_use', id: 'toolu_3', name: 'refund', input: { order_id: '42', amount: 50 } },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 120, output_tokens: 40, cache_read_input_tokens: 8 },
};

area.scenario('a whole answer with tool use: the exact request and the parsed turn', { backends: 'none' }, async (t) => {
  const server = await provider(t, [{ json: message }]);
  const response = await model(server).complete(request);
  assert.equal(response, {
    text: 'Refunding.',
    toolCalls: [{ id: 'toolu_3', name: 'refund', arguments: { order_id: '42', amount: 50 } }],
    usage: { inputTokens: 128, outputTokens: 40, totalTokens: 168 },
    model: 'claude-3-5-haiku-20241022',
    finishReason: 'tool_use',
  });
  const sent = server.requests[0]!;
  assert.is(sent.method, 'POST');
  assert.is(sent.path, '/v1/messages');
  assert.is(sent.headers['x-api-key'], KEY);
  assert.is(sent.headers['anthropic-version'], '2023-06-01');
  assert.is(sent.headers.authorization, undefined);
  assert.equal(sent.body, expectedBody);
});

const ev = (type: string, data: Record<string, unknown>) => ({ event: type, data: JSON.stringify({ type, ...data }) });
const streamed = [
  ev('message_start', {
    message: {
      id: 'msg_2',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-5-haiku-20241022',
      content: [],
      usage: { input_tokens: 95, output_tokens: 1 },
    },
  }),
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ev('ping', {}),
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Let me ' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'check.' } }),
  ev('content_block_stop', { index: 0 }),
  ev('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_9', name: 'lookup_order', input: {} } }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"order_' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: 'id": "42"}' } }),
  ev('content_block_stop', { index: 1 }),
  ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 33 } }),
  ev('message_stop', {}),
];

area.scenario('a streamed answer split in 5-byte pieces: deltas, tool use, usage, done', { backends: 'none' }, async (t) => {
  const server = await provider(t, [{ sse: streamed, chunkBytes: 5 }]);
  const events: StreamEvent[] = [];
  for await (const event of model(server).stream(request)) events.push(event);
  const call = { id: 'toolu_9', name: 'lookup_order', arguments: { order_id: '42' } };
  const usage = { inputTokens: 95, outputTokens: 33, totalTokens: 128 };
  assert.equal(events, [
    { type: 'text_delta', text: 'Let me ' },
    { type: 'text_delta', text: 'check.' },
    { type: 'tool_call_start', id: 'toolu_9', name: 'lookup_order', index: 0 },
    { type: 'tool_call_end', toolCall: call, index: 0 },
    { type: 'usage', usage },
    { type: 'done', response: { text: 'Let me check.', toolCalls: [call], usage, model: 'claude-3-5-haiku-20241022', finishReason: 'tool_use' } },
  ]);
  assert.equal(server.requests[0]!.body, { ...expectedBody, stream: true });
  assert.is(server.requests[0]!.headers.accept, 'text/event-stream');
});

area.scenario('429 then 529 then success: retried with the same request', { backends: 'none' }, async (t) => {
  const server = await provider(t, [
    {
      status: 429,
      headers: { 'retry-after': '0' },
      json: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } },
    },
    { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
    { json: message },
  ]);
  const response = await model(server).complete(request);
  assert.is(response.text, 'Refunding.');
  assert.is(server.requests.length, 3);
  assert.ok(server.requests.every((r) => r.raw === server.requests[0]!.raw));
});

area.scenario('errors: 400 names provider, status and the API message; malformed bodies and streams', { backends: 'none' }, async (t) => {
  const server = await provider(t, [
    { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: field required' } } },
    { json: { type: 'message', role: 'assistant' } },
    { sse: [streamed[0]!, { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) }] },
    { sse: streamed.slice(0, 5) },
    { sse: [streamed[0]!, { event: 'content_block_start', data: '{"type":"content_block_start",' }] },
  ]);
  const m = model(server, { maxRetries: 0 });
  const where = `${server.url}/v1/messages`;
  const messages: string[] = [];
  const capture = async (work: () => Promise<unknown>) => {
    const error = await work().then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(error, LLMProviderError, String(error));
    messages.push((error as Error).message);
  };
  const drain = async () => {
    for await (const _ of m.stream(request)) void _;
  };
  await capture(() => m.complete(request));
  await capture(() => m.complete(request));
  await capture(drain);
  await capture(drain);
  await capture(drain);
  assert.equal(messages, [
    `anthropic: HTTP 400 from POST ${where}: max_tokens: field required`,
    `anthropic: malformed response from POST ${where}: no content array in the body`,
    `anthropic: error in stream from POST ${where}: Overloaded`,
    `anthropic: malformed stream from POST ${where}: the stream ended before message_stop`,
    `anthropic: malformed stream from POST ${where}: event 'content_block_start' is not JSON ({"type":"content_block_start",)`,
  ]);
  assert.ok(messages.every((text) => !text.includes(KEY)));
});

area.scenario('configuration: no key in it, ANTHROPIC_API_KEY required, rebuilt model sends the same request', { backends: 'none' }, async (t) => {
  const server = await provider(t, () => ({ json: message }));
  const original = model(server);
  const config = original.toConfig();
  assert.equal(config, {
    provider: 'anthropic',
    model: 'claude-3-5-haiku-latest',
    base_url: `${server.url}/v1`,
    api_key_env: 'ANTHROPIC_API_KEY',
    timeout_ms: 60_000,
    max_retries: 2,
    anthropic_version: '2023-06-01',
    default_max_tokens: 1024,
  });
  assert.not.match(JSON.stringify(config), KEY);
  assert.throws(
    () => new AnthropicModel({ model: 'claude-3-5-haiku-latest', env: {} }),
    (e: unknown) => e instanceof ConfigError && e.message === 'anthropic: no API key: pass apiKey or set ANTHROPIC_API_KEY',
  );
  const rebuilt = createModel(config, { env: { ANTHROPIC_API_KEY: KEY } });
  await original.complete(request);
  await rebuilt.complete(request);
  assert.is(server.requests[1]!.raw, server.requests[0]!.raw);
  assert.equal(server.requests[1]!.headers['x-api-key'], KEY);
});

area.run();
