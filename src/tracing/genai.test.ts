/**
 * The GenAI semantic conventions (v1.41.0) on exported spans (docs/adr/0010): real agents, exported over OTLP/HTTP to
 * a receiver on loopback, read back as a collector would.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Type from 'typebox';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { suite } from '../../test-support/uvu.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../test-support/otlp-receiver.js';
import { Agent } from '../agent/agent.js';
import { FunctionModel } from '../testing/index.js';
import { tool } from '../tools/function-tool.js';
import { ToolError } from '../tools/tool-error.js';
import { GEN_AI, GENAI_SEMCONV_VERSION, providerName } from './genai.js';
import { ensureTracing, flushTraces, shutdownTracing } from './setup.js';
import { TraceStore } from './trace-store.js';

const test = suite<{ dir: string; receiver: OtlpReceiver | undefined; saved: string | undefined }>('tracing: GenAI conventions on exported spans', {
  state: { dir: '', receiver: undefined, saved: undefined },
});

test.before(async (ctx) => {
  await shutdownTracing();
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-genai-'));
  ctx.receiver = await startOtlpReceiver();
  ctx.saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = ctx.receiver.url;
  ensureTracing();
});
test.after(async (ctx) => {
  await shutdownTracing();
  if (ctx.saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = ctx.saved;
  await ctx.receiver?.close();
  await rm(ctx.dir, { recursive: true, force: true });
});

const lookup = tool({
  name: 'lookup_order',
  description: 'Look an order up',
  parameters: Type.Object({ id: Type.String() }),
  registry: false,
  execute: ({ id }) => {
    if (id === 'missing') throw new ToolError('tool_execution_error', 'no such order');
    return { id, total: 50 };
  },
});

function desk(dir: string, id = '42'): Agent {
  const llm = new FunctionModel((messages) =>
    messages.at(-1)!.role === 'user' ? { text: 'Checking.', toolCalls: [{ name: 'lookup_order', arguments: { id } }] } : 'Order 42 costs 50.',
  );
  return new Agent({ name: 'desk', systemPrompt: 'Help with orders.', llm, tools: [lookup], traceDb: path.join(dir, 'local.db') });
}

/** The exported spans of the run whose stored trace id is `traceId` (no caller: the exported trace id is the same). */
async function exported(receiver: OtlpReceiver, traceId: string): Promise<ReceivedSpan[]> {
  await flushTraces();
  return receiver.spans().filter((s) => s.traceId === traceId);
}

test('model spans are CLIENT with the chat attributes; tool spans execute_tool; agent spans invoke_agent; content in the conventions shapes', async (ctx) => {
  const result = await desk(ctx.dir).run('What does order 42 cost?');
  const spans = await exported(ctx.receiver!, result.trace_id!);
  const agent = spans.find((s) => s.name === 'agent.desk')!;
  const models = spans.filter((s) => s.name === 'llm.chat_completion');
  const toolSpan = spans.find((s) => s.name === 'tool.lookup_order')!;
  assert.is(models.length, 2);

  const [first] = models;
  assert.is(first!.kind, 3, 'CLIENT');
  const a = first!.attributes;
  assert.is(a[GEN_AI.operationName], 'chat');
  assert.is(a[GEN_AI.providerName], 'function');
  assert.is(a[GEN_AI.requestModel], 'function-model');
  assert.is(typeof a[GEN_AI.usageInputTokens], 'number');
  assert.is(typeof a[GEN_AI.usageOutputTokens], 'number');
  assert.equal(JSON.parse(String(a[GEN_AI.inputMessages])), [
    { role: 'system', parts: [{ type: 'text', content: 'Help with orders.' }] },
    { role: 'user', parts: [{ type: 'text', content: 'What does order 42 cost?' }] },
  ]);
  const [output] = JSON.parse(String(a[GEN_AI.outputMessages])) as Array<{ role: string; parts: Array<Record<string, unknown>>; finish_reason: string }>;
  assert.is(output!.role, 'assistant');
  assert.equal(output!.parts[0], { type: 'text', content: 'Checking.' });
  assert.equal({ ...output!.parts[1], id: 'x' }, { type: 'tool_call', id: 'x', name: 'lookup_order', arguments: { id: '42' } });
  assert.equal(JSON.parse(String(a[GEN_AI.toolDefinitions])), [{ type: 'function', name: 'lookup_order' }]);
  for (const key of ['gen_ai.system', 'gen_ai.request.messages', 'gen_ai.response.content', 'gen_ai.response.tool_calls', 'gen_ai.request.tools'])
    assert.is(a[key], undefined, `${key} is carried under the conventions' name instead`);
  // The second call's input holds the tool call and its result.
  const second = JSON.parse(String(models[1]!.attributes[GEN_AI.inputMessages])) as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  assert.equal(
    second.map((m) => [m.role, m.parts.map((p) => p.type)]),
    [
      ['system', ['text']],
      ['user', ['text']],
      ['assistant', ['text', 'tool_call']],
      ['tool', ['tool_call_response']],
    ],
  );
  assert.is(second[3]!.parts[0]!.response, '{"id":"42","total":50}');

  assert.is(toolSpan.kind, 1, 'INTERNAL');
  assert.is(toolSpan.attributes[GEN_AI.operationName], 'execute_tool');
  assert.is(toolSpan.attributes[GEN_AI.toolName], 'lookup_order');
  assert.is(toolSpan.attributes[GEN_AI.toolType], 'function');
  assert.is(toolSpan.attributes[GEN_AI.toolCallId], toolSpan.attributes['tool.call_id']);
  assert.is(toolSpan.attributes[GEN_AI.toolCallArguments], '{"id":"42"}');
  assert.is(toolSpan.attributes[GEN_AI.toolCallResult], '{"id":"42","total":50}');
  assert.is(toolSpan.attributes['tool.args'], undefined);
  assert.is(toolSpan.attributes['agentkit.tool.name'], 'lookup_order', "the spec's attribute stays");

  assert.is(agent.kind, 1);
  assert.is(agent.attributes[GEN_AI.operationName], 'invoke_agent');
  assert.is(agent.attributes[GEN_AI.agentName], 'desk');
  assert.is(agent.attributes[GEN_AI.providerName], 'function');

  // The store keeps agentkit's own keys (replay reads them).
  const stored = (await new TraceStore({ dbPath: path.join(ctx.dir, 'local.db') }).getTrace(result.trace_id!)).spans;
  const storedModel = stored.find((s) => s.name === 'llm.chat_completion')!.attributes;
  assert.is(typeof storedModel['gen_ai.request.messages'], 'string');
  assert.is(storedModel[GEN_AI.inputMessages], undefined);
});

test('AGENTKIT_TRACE_PAYLOADS=0 drops every content attribute from the export; failures carry error.type', async (ctx) => {
  process.env.AGENTKIT_TRACE_PAYLOADS = '0';
  let result;
  try {
    result = await desk(ctx.dir, 'missing').run('What does order missing cost?');
  } finally {
    delete process.env.AGENTKIT_TRACE_PAYLOADS;
  }
  const spans = await exported(ctx.receiver!, result.trace_id!);
  assert.is(spans.length, 4);
  for (const span of spans)
    for (const key of [GEN_AI.inputMessages, GEN_AI.outputMessages, GEN_AI.toolDefinitions, GEN_AI.toolCallArguments, GEN_AI.toolCallResult])
      assert.is(span.attributes[key], undefined, `${span.name} has no ${key}`);
  const model = spans.find((s) => s.name === 'llm.chat_completion')!;
  assert.is(model.attributes[GEN_AI.operationName], 'chat');
  assert.is(model.attributes[GEN_AI.requestModel], 'function-model');
  const failed = spans.find((s) => s.name === 'tool.lookup_order')!;
  assert.is(failed.attributes[GEN_AI.errorType], 'tool_execution_error');

  const broken = new Agent({
    name: 'broken',
    llm: new FunctionModel(() => {
      throw new Error('the model exploded');
    }),
    traceDb: path.join(ctx.dir, 'local.db'),
  });
  const error = (await broken.run('hi').catch((e: unknown) => e)) as { trace_id: string };
  const brokenModel = (await exported(ctx.receiver!, error.trace_id)).find((s) => s.name === 'llm.chat_completion')!;
  assert.is(brokenModel.attributes[GEN_AI.errorType], 'Error');
});

test(`the attribute names are the conventions' own (v${GENAI_SEMCONV_VERSION}, checked against @opentelemetry/semantic-conventions)`, () => {
  const known = new Set<unknown>(Object.values(semconv));
  for (const name of Object.values(GEN_AI)) assert.ok(known.has(name), `${name} is a semantic-conventions attribute`);
  assert.is(semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT, 'chat');
  assert.is(semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL, 'execute_tool');
  assert.is(semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT, 'invoke_agent');
  assert.equal(['openai', 'azure', 'mistral', 'xai', 'openai.chat', 'ollama'].map(providerName), [
    'openai',
    'azure.ai.openai',
    'mistral_ai',
    'x_ai',
    'openai',
    'ollama',
  ]);
  assert.is(semconv.GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI, 'azure.ai.openai');
  assert.is(semconv.GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI, 'mistral_ai');
  assert.is(semconv.GEN_AI_PROVIDER_NAME_VALUE_X_AI, 'x_ai');
});

test.run();
