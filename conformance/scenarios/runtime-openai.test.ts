/**
 * The OpenAI-compatible provider against a local server speaking the chat-completions protocol: the exact requests
 * sent (path, headers, body), streamed and whole answers with tool calls, retries on 429 and 5xx, timeouts, errors
 * naming provider and status, malformed bodies, presets, and a configuration that never holds the key.
 */
import * as assert from 'uvu/assert';
import { conformance, startFakeProvider, type FakeProvider } from '../harness/index.js';
import {
  assistantMessage,
  ConfigError,
  createModel,
  LLMProviderError,
  OPENAI_COMPATIBLE_PRESETS,
  OpenAICompatibleModel,
  systemMessage,
  toolMessage,
  userMessage,
  type ChatRequest,
  type StreamEvent,
} from '../../src/index.js';

const area = conformance('runtime: OpenAI-compatible provider');
const KEY = 'sk-test-0123456789abcdefghijklmnop';

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A conversation that already went through one tool call, so the request shows every message kind. */
const request: ChatRequest = {
  messages: [
    systemMessage('You are terse.'),
    userMessage('Weather in Paris?'),
    assistantMessage(null, [{ id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } }]),
    toolMessage('call_a', 'get_weather', '{"temp_c":18}'),
    userMessage('And in Rome?'),
  ],
  tools: [weatherTool],
  settings: { temperature: 0.2, maxTokens: 256, toolChoice: 'auto', seed: 7 },
};

const expectedWireMessages = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
  { role: 'tool', tool_call_id: 'call_a', content: '{"temp_c":18}' },
  { role: 'user', content: 'And in Rome?' },
];

const expectedWireTools = [{ type: 'function', function: weatherTool }];

async function provider(t: { defer(fn: () => unknown): void }, replies: Parameters<typeof startFakeProvider>[0]): Promise<FakeProvider> {
  const server = await startFakeProvider(replies);
  t.defer(() => server.close());
  return server;
}

function model(server: FakeProvider, extra: Partial<ConstructorParameters<typeof OpenAICompatibleModel>[0]> = {}) {
  return new OpenAICompatibleModel({ model: 'gpt-4o-mini', apiKey: KEY, baseUrl: `${server.url}/v1`, retryBaseDelayMs: 1, ...extra });
}

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 61, completion_tokens: 17, total_tokens: 78 },
};

area.scenario('a whole answer with a tool call: the exact request and the parsed turn', { backends: 'none' }, async (t) => {
  const server = await provider(t, [{ json: completion }]);
  const response = await model(server).complete(request);
  assert.equal(response, {
    text: '',
    toolCalls: [{ id: 'call_b', name: 'get_weather', arguments: { city: 'Rome' } }],
    usage: { inputTokens: 61, outputTokens: 17, totalTokens: 78 },
    model: 'gpt-4o-mini-2024-07-18',
    finishReason: 'tool_calls',
  });
  assert.is(server.requests.length, 1);
  const sent = server.requests[0]!;
  assert.is(sent.method, 'POST');
  assert.is(sent.path, '/v1/chat/completions');
  assert.is(sent.headers.authorization, `Bearer ${KEY}`);
  assert.is(sent.headers['content-type'], 'application/json');
  assert.is(sent.headers.accept, 'application/json');
  assert.equal(sent.body, {
    model: 'gpt-4o-mini',
    messages: expectedWireMessages,
    tools: expectedWireTools,
    tool_choice: 'auto',
    temperature: 0.2,
    max_tokens: 256,
    seed: 7,
  });
});

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return JSON.stringify({
    id: 'chatcmpl-2',
    object: 'chat.completion.chunk',
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
}

const streamedToolTurn = [
  { data: chunk({ role: 'assistant', content: '' }) },
  { data: chunk({ content: 'Checking ' }) },
  { data: chunk({ content: 'both.' }) },
  { data: chunk({ tool_calls: [{ index: 0, id: 'call_r', type: 'function', function: { name: 'get_weather', arguments: '' } }] }) },
  { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }) },
  { data: chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Rome"}' } }] }) },
  { data: chunk({ tool_calls: [{ index: 1, id: 'call_m', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Milan"}' } }] }) },
  { data: chunk({}, 'tool_calls') },
  {
    data: JSON.stringify({
      id: 'chatcmpl-2',
      object: 'chat.completion.chunk',
      model: 'gpt-4o-mini-2024-07-18',
      choices: [],
      usage: { prompt_tokens: 70, completion_tokens: 31, total_tokens: 101 },
    }),
  },
  { data: '[DONE]' },
];

area.scenario('a streamed answer split in 7-byte pieces: deltas, two tool calls, usage, done', { backends: 'none' }, async (t) => {
  const server = await provider(t, [{ sse: streamedToolTurn, chunkBytes: 7 }]);
  const events: StreamEvent[] = [];
  for await (const event of model(server).stream(request)) events.push(event);
  const rome = { id: 'call_r', name: 'get_weather', arguments: { city: 'Rome' } };
  const milan = { id: 'call_m', name: 'get_weather', arguments: { city: 'Milan' } };
  const usage = { inputTokens: 70, outputTokens: 31, totalTokens: 101 };
  assert.equal(events, [
    { type: 'text_delta', text: 'Checking ' },
    { type: 'text_delta', text: 'both.' },
    { type: 'tool_call_start', id: 'call_r', name: 'get_weather', index: 0 },
    { type: 'tool_call_start', id: 'call_m', name: 'get_weather', index: 1 },
    { type: 'tool_call_end', toolCall: rome, index: 0 },
    { type: 'tool_call_end', toolCall: milan, index: 1 },
    { type: 'usage', usage },
    { type: 'done', response: { text: 'Checking both.', toolCalls: [rome, milan], usage, model: 'gpt-4o-mini-2024-07-18', finishReason: 'tool_calls' } },
  ]);
  const sent = server.requests[0]!;
  assert.is(sent.headers.accept, 'text/event-stream');
  assert.equal(sent.body, {
    model: 'gpt-4o-mini',
    messages: expectedWireMessages,
    tools: expectedWireTools,
    tool_choice: 'auto',
    temperature: 0.2,
    max_tokens: 256,
    seed: 7,
    stream: true,
    stream_options: { include_usage: true },
  });
});

area.scenario('429 then success: retried once after Retry-After, the same request twice', { backends: 'none' }, async (t) => {
  const server = await provider(t, [
    { status: 429, headers: { 'retry-after': '0' }, json: { error: { message: 'Rate limit reached', type: 'requests' } } },
    { json: completion },
  ]);
  const response = await model(server).complete(request);
  assert.is(response.finishReason, 'tool_calls');
  assert.is(server.requests.length, 2);
  assert.is(server.requests[1]!.raw, server.requests[0]!.raw);
});

area.scenario('429 then a streamed success: a stream is retried before its body starts', { backends: 'none' }, async (t) => {
  const server = await provider(t, [{ status: 429, headers: { 'retry-after-ms': '5' }, json: { error: { message: 'slow down' } } }, { sse: streamedToolTurn }]);
  const events: StreamEvent[] = [];
  for await (const event of model(server).stream(request)) events.push(event);
  assert.is(server.requests.length, 2);
  assert.is(events.at(-1)!.type, 'done');
});

area.scenario('5xx until retries run out: LLMProviderError naming provider, status and attempts', { backends: 'none' }, async (t) => {
  const server = await provider(t, () => ({ status: 503, json: { error: { message: 'The server is overloaded' } } }));
  try {
    await model(server, { maxRetries: 2 }).complete(request);
    assert.unreachable('must fail');
  } catch (error) {
    assert.instance(error, LLMProviderError);
    const e = error as LLMProviderError;
    assert.is(e.code, 'llm_provider_error');
    assert.is(e.provider, 'openai');
    assert.is(e.httpStatus, 503);
    assert.is(e.attempts, 3);
    assert.is(e.message, `openai: HTTP 503 from POST ${server.url}/v1/chat/completions after 3 attempts: The server is overloaded`);
  }
  assert.is(server.requests.length, 3);
});

area.scenario('401 is not retried; the message names the status and never the key', { backends: 'none' }, async (t) => {
  const server = await provider(t, () => ({ status: 401, json: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } } }));
  const error = await model(server)
    .complete(request)
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.instance(error, LLMProviderError);
  assert.is((error as LLMProviderError).message, `openai: HTTP 401 from POST ${server.url}/v1/chat/completions: Incorrect API key provided`);
  assert.not.match((error as Error).message, KEY);
  assert.is(server.requests.length, 1);
});

area.scenario('a Retry-After longer than agentkit waits fails at once, saying so', { backends: 'none' }, async (t) => {
  const server = await provider(t, () => ({ status: 429, headers: { 'retry-after': '3600' }, json: { error: { message: 'quota' } } }));
  const error = await model(server, { maxRetryDelayMs: 1000 })
    .complete(request)
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.instance(error, LLMProviderError);
  assert.match((error as Error).message, /HTTP 429 .*: quota \(the server asks to retry after 3600 s, longer than the 1000 ms agentkit waits\)$/);
  assert.is(server.requests.length, 1);
});

area.scenario('malformed answers: not JSON, no choices, a broken chunk, a stream that stops early or breaks off', { backends: 'none' }, async (t) => {
  const server = await provider(t, [
    { text: '<html>gateway error</html>', headers: { 'content-type': 'text/html' } },
    { json: { id: 'x', object: 'chat.completion' } },
    { sse: [{ data: chunk({ content: 'hi' }) }, { data: '{not json' }] },
    { sse: [{ data: chunk({ content: 'hi' }) }] },
    { sse: [{ data: chunk({ content: 'hi' }) }, { data: chunk({ content: ' there' }) }], cutAfterBytes: 60 },
  ]);
  const m = model(server, { maxRetries: 0 });
  const where = `${server.url}/v1/chat/completions`;
  const failures: string[] = [];
  const capture = async (work: () => Promise<unknown>) => {
    try {
      await work();
      failures.push('no error');
    } catch (error) {
      assert.instance(error, LLMProviderError, String(error));
      failures.push((error as Error).message);
    }
  };
  const drain = async () => {
    for await (const _ of m.stream(request)) void _;
  };
  await capture(() => m.complete(request));
  await capture(() => m.complete(request));
  await capture(drain);
  await capture(drain);
  await capture(drain);
  assert.equal(failures.slice(0, 4), [
    `openai: malformed response from POST ${where}: not JSON (<html>gateway error</html>)`,
    `openai: malformed response from POST ${where}: no choices[0].message in the body`,
    `openai: malformed stream from POST ${where}: a chunk is not JSON ({not json)`,
    `openai: malformed stream from POST ${where}: the stream ended before the response was complete`,
  ]);
  assert.match(failures[4]!, new RegExp(`^openai: the stream broke off: .* \\(POST ${where.replace(/[.]/g, '\\.')}\\)$`));
});

area.scenario('a server that never answers: timeout after timeoutMs, as LLMProviderError', { backends: 'none' }, async (t) => {
  const server = await provider(t, () => ({ hang: true }));
  const error = await model(server, { timeoutMs: 150, maxRetries: 1 })
    .complete(request)
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.instance(error, LLMProviderError);
  assert.is((error as Error).message, `openai: timed out after 150 ms (POST ${server.url}/v1/chat/completions, 2 attempts)`);
  assert.is((error as LLMProviderError).httpStatus, null);
  assert.is(server.requests.length, 2);
});

area.scenario('the caller aborting stops the call with its own reason', { backends: 'none' }, async (t) => {
  const server = await provider(t, () => ({ hang: true }));
  const controller = new AbortController();
  const reason = new Error('user cancelled');
  setTimeout(() => controller.abort(reason), 50);
  const error = await model(server)
    .complete(request, { signal: controller.signal })
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.is(error, reason);
});

area.scenario('presets: base URL and <PROVIDER>_API_KEY per provider; local servers need no key', { backends: 'none' }, async () => {
  const expected: Record<string, [string | null, string]> = {
    openai: ['https://api.openai.com/v1', 'OPENAI_API_KEY'],
    azure: [null, 'AZURE_API_KEY'],
    ollama: ['http://localhost:11434/v1', 'OLLAMA_API_KEY'],
    vllm: ['http://localhost:8000/v1', 'VLLM_API_KEY'],
    lmstudio: ['http://localhost:1234/v1', 'LMSTUDIO_API_KEY'],
    groq: ['https://api.groq.com/openai/v1', 'GROQ_API_KEY'],
    openrouter: ['https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY'],
    together: ['https://api.together.xyz/v1', 'TOGETHER_API_KEY'],
    deepseek: ['https://api.deepseek.com/v1', 'DEEPSEEK_API_KEY'],
    mistral: ['https://api.mistral.ai/v1', 'MISTRAL_API_KEY'],
    fireworks: ['https://api.fireworks.ai/inference/v1', 'FIREWORKS_API_KEY'],
    custom: [null, 'CUSTOM_API_KEY'],
  };
  assert.equal(Object.keys(OPENAI_COMPATIBLE_PRESETS).sort(), Object.keys(expected).sort());
  for (const [name, [baseUrl, env]] of Object.entries(expected)) {
    const preset = OPENAI_COMPATIBLE_PRESETS[name as keyof typeof OPENAI_COMPATIBLE_PRESETS];
    assert.is(preset.baseUrl, baseUrl, name);
    assert.is(preset.apiKeyEnv, env, name);
    if (baseUrl === null) continue;
    const m = new OpenAICompatibleModel({ provider: name as keyof typeof OPENAI_COMPATIBLE_PRESETS, model: 'm', env: { [env]: 'k-123' } });
    assert.is(m.baseUrl, baseUrl);
    assert.equal(m.toConfig(), { provider: name, model: 'm', base_url: baseUrl, api_key_env: env, timeout_ms: 60_000, max_retries: 2 });
  }
  for (const local of ['ollama', 'vllm', 'lmstudio'] as const) new OpenAICompatibleModel({ provider: local, model: 'm', env: {} });
  assert.throws(
    () => new OpenAICompatibleModel({ provider: 'groq', model: 'm', env: {} }),
    (e: unknown) => e instanceof ConfigError && e.message === 'groq: no API key: pass apiKey or set GROQ_API_KEY',
  );
  assert.throws(
    () => new OpenAICompatibleModel({ provider: 'azure', model: 'm', apiKey: 'k' }),
    (e: unknown) => e instanceof ConfigError && /azure: baseUrl is required/.test(e.message),
  );
  assert.throws(() => new OpenAICompatibleModel({ provider: 'nope' as never, model: 'm' }), /unknown OpenAI-compatible provider 'nope'/);
  assert.throws(() => new OpenAICompatibleModel({ model: 'm', apiKey: 'k', baseUrl: 'https://user:pw@gw.example/v1' }), /must not carry credentials/);
});

area.scenario(
  'a preset pointed at a gateway: key from its variable; Azure sends api-key and api-version; Ollama sends no auth',
  { backends: 'none' },
  async (t) => {
    const server = await provider(t, () => ({ json: completion }));
    await new OpenAICompatibleModel({
      provider: 'groq',
      model: 'llama-3.1-8b-instant',
      baseUrl: `${server.url}/openai/v1/`,
      env: { GROQ_API_KEY: 'gsk-env-key' },
    }).complete(request);
    await new OpenAICompatibleModel({
      provider: 'azure',
      model: 'gpt-4o',
      baseUrl: `${server.url}/openai/deployments/gpt-4o`,
      apiVersion: '2024-10-21',
      env: { AZURE_API_KEY: 'az-key' },
    }).complete(request);
    await new OpenAICompatibleModel({ provider: 'ollama', model: 'llama3.2', baseUrl: `${server.url}/v1`, env: {} }).complete(request);
    await new OpenAICompatibleModel({
      provider: 'custom',
      model: 'm',
      baseUrl: `${server.url}/gw`,
      apiKeyEnv: 'MY_GATEWAY_KEY',
      headers: { 'x-team': 'blue' },
      env: { MY_GATEWAY_KEY: 'gw-key' },
    }).complete(request);
    const [groq, azure, ollama, custom] = server.requests;
    assert.is(groq!.path, '/openai/v1/chat/completions');
    assert.is(groq!.headers.authorization, 'Bearer gsk-env-key');
    assert.is(azure!.path, '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21');
    assert.is(azure!.headers['api-key'], 'az-key');
    assert.is(azure!.headers.authorization, undefined);
    assert.is(ollama!.path, '/v1/chat/completions');
    assert.is(ollama!.headers.authorization, undefined);
    assert.is(custom!.path, '/gw/chat/completions');
    assert.is(custom!.headers.authorization, 'Bearer gw-key');
    assert.is(custom!.headers['x-team'], 'blue');
  },
);

area.scenario('toConfig never holds the key or header values, and rebuilds an equal model', { backends: 'none' }, async (t) => {
  const server = await provider(t, () => ({ json: completion }));
  const original = new OpenAICompatibleModel({
    provider: 'openrouter',
    model: 'anthropic/claude-3.5-haiku',
    apiKey: KEY,
    baseUrl: `${server.url}/api/v1`,
    headers: { 'HTTP-Referer': 'https://secret.example', Authorization: 'Bearer other' },
    timeoutMs: 5000,
    maxRetries: 4,
  });
  const config = original.toConfig();
  assert.equal(config, {
    provider: 'openrouter',
    model: 'anthropic/claude-3.5-haiku',
    base_url: `${server.url}/api/v1`,
    api_key_env: 'OPENROUTER_API_KEY',
    timeout_ms: 5000,
    max_retries: 4,
    headers: { 'HTTP-Referer': '***', Authorization: '***' },
  });
  assert.not.match(JSON.stringify(config), KEY);
  assert.not.match(JSON.stringify(original), KEY, 'the key is not an enumerable field either');
  const rebuilt = createModel(config, { env: { OPENROUTER_API_KEY: 'env-key' } });
  const withoutHeaders = { ...config };
  delete withoutHeaders.headers;
  assert.equal(rebuilt.toConfig(), withoutHeaders, 'header values do not survive a config; names alone are not sent');
  await rebuilt.complete(request);
  assert.is(server.requests[0]!.headers.authorization, 'Bearer env-key');
  assert.is(server.requests[0]!.headers['http-referer'], undefined, 'redacted header values are not sent');
  assert.throws(() => createModel({ provider: 'scripted', model: 'scripted-model' }), /cannot build a 'scripted' model from its configuration/);
});

area.run();
