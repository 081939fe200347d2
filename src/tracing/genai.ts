/**
 * The OpenTelemetry GenAI semantic conventions on exported spans (docs/adr/0010), pinned to **Semantic Conventions
 * v1.41.0**. agentkit's spans keep the spec's names and, in the local store, agentkit's persisted attributes (what
 * replay reads); the span a collector receives is translated here: the conventions' operation, provider, request,
 * response, usage, tool and agent attributes, `error.type` on a failure, and the content attributes in the
 * conventions' JSON shapes only when the run captured payloads. agentkit's own payload keys are renamed into those,
 * never sent twice.
 *
 * The attribute names are copied here rather than imported from `@opentelemetry/semantic-conventions/incubating`,
 * as that package asks (its incubating names may change in any minor release); genai.test.ts checks them against it.
 */
import { SpanStatusCode, type Attributes, type AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { AGENT_ATTR, LLM_ATTR, SPAN, TOOL_ATTR } from './attributes.js';

/** The version of the semantic conventions whose GenAI attributes agentkit emits. */
export const GENAI_SEMCONV_VERSION = '1.41.0';

/** The GenAI attribute names agentkit emits (OpenTelemetry Semantic Conventions v1.41.0). */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTopP: 'gen_ai.request.top_p',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolDefinitions: 'gen_ai.tool.definitions',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  agentName: 'gen_ai.agent.name',
  errorType: 'error.type',
} as const;

/** `gen_ai.operation.name` values. */
export const GEN_AI_OPERATION = { chat: 'chat', executeTool: 'execute_tool', invokeAgent: 'invoke_agent' } as const;

/** agentkit's keys that the exported view carries under the conventions' names instead (never both). */
const MODEL_KEYS_RENAMED = new Set<string>([LLM_ATTR.system, LLM_ATTR.messages, LLM_ATTR.content, LLM_ATTR.toolCalls, LLM_ATTR.tools]);
const TOOL_KEYS_RENAMED = new Set<string>([TOOL_ATTR.args, TOOL_ATTR.result]);

/** agentkit provider names whose conventions value differs; an AI SDK provider (`openai.chat`) is named by its prefix. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  azure: 'azure.ai.openai',
  mistral: 'mistral_ai',
  xai: 'x_ai',
  google: 'gcp.gen_ai',
  'amazon-bedrock': 'aws.bedrock',
};

/** The `gen_ai.provider.name` of an agentkit provider name (`openai`, `azure`, `openai.chat`, `ollama`, ...). */
export function providerName(provider: string): string {
  const base = provider.includes('.') ? provider.slice(0, provider.indexOf('.')) : provider;
  return PROVIDER_NAMES[base] ?? base;
}

/**
 * The attributes `span` is exported with when it is one of agentkit's agent, model or tool spans; undefined for any
 * other span (exported as it is).
 */
export function genAiAttributes(span: ReadableSpan): Attributes | undefined {
  const a = span.attributes;
  if (span.name === SPAN.llm && a[LLM_ATTR.operation] !== undefined) return modelAttributes(span, a);
  if (a[TOOL_ATTR.agentkitName] !== undefined && span.name.startsWith('tool.')) return toolAttributes(span, a);
  if (a[AGENT_ATTR.name] !== undefined && span.name.startsWith('agent.')) return agentAttributes(span, a);
  return undefined;
}

function modelAttributes(span: ReadableSpan, a: Attributes): Attributes {
  const out = copyExcept(a, MODEL_KEYS_RENAMED);
  out[GEN_AI.operationName] = GEN_AI_OPERATION.chat;
  const provider = a[LLM_ATTR.system];
  if (typeof provider === 'string') out[GEN_AI.providerName] = providerName(provider);
  // Content only as captured: with AGENTKIT_TRACE_PAYLOADS=0 the span holds no messages, and so the view none.
  const messages = parseArray(a[LLM_ATTR.messages]);
  if (messages) {
    out[GEN_AI.inputMessages] = JSON.stringify(messages.map(inputMessage));
    const tools = a[LLM_ATTR.tools];
    if (Array.isArray(tools) && tools.length > 0) out[GEN_AI.toolDefinitions] = JSON.stringify(tools.map((name) => ({ type: 'function', name })));
  }
  if (typeof a[LLM_ATTR.content] === 'string') {
    const reasons = a[LLM_ATTR.finishReasons];
    out[GEN_AI.outputMessages] = JSON.stringify([
      {
        role: 'assistant',
        parts: [...textParts(a[LLM_ATTR.content]), ...toolCallParts(parseArray(a[LLM_ATTR.toolCalls]) ?? [])],
        finish_reason: finishReason(Array.isArray(reasons) && typeof reasons[0] === 'string' ? reasons[0] : null),
      },
    ]);
  }
  addErrorType(out, span, undefined);
  return out;
}

function toolAttributes(span: ReadableSpan, a: Attributes): Attributes {
  const out = copyExcept(a, TOOL_KEYS_RENAMED);
  out[GEN_AI.operationName] = GEN_AI_OPERATION.executeTool;
  out[GEN_AI.toolName] = a[TOOL_ATTR.agentkitName]!;
  if (a[TOOL_ATTR.callId] !== undefined) out[GEN_AI.toolCallId] = a[TOOL_ATTR.callId];
  out[GEN_AI.toolType] = 'function';
  if (a[TOOL_ATTR.args] !== undefined) out[GEN_AI.toolCallArguments] = a[TOOL_ATTR.args];
  if (a[TOOL_ATTR.result] !== undefined) out[GEN_AI.toolCallResult] = a[TOOL_ATTR.result];
  addErrorType(out, span, a[TOOL_ATTR.errorCode]);
  return out;
}

function agentAttributes(span: ReadableSpan, a: Attributes): Attributes {
  const out: Attributes = { ...a };
  out[GEN_AI.operationName] = GEN_AI_OPERATION.invokeAgent;
  out[GEN_AI.agentName] = a[AGENT_ATTR.name]!;
  const provider = a[AGENT_ATTR.llmProvider];
  if (typeof provider === 'string') out[GEN_AI.providerName] = providerName(provider);
  if (a[AGENT_ATTR.llmModel] !== undefined) out[GEN_AI.requestModel] = a[AGENT_ATTR.llmModel];
  addErrorType(out, span, undefined);
  return out;
}

function copyExcept(a: Attributes, skip: ReadonlySet<string>): Attributes {
  const out: Attributes = {};
  for (const key in a) if (!skip.has(key)) out[key] = a[key];
  return out;
}

/** `error.type` of a failed span: the code given, else its exception's type, else `_OTHER` (as the conventions say). */
function addErrorType(out: Attributes, span: ReadableSpan, code: AttributeValue | undefined): void {
  if (span.status.code !== SpanStatusCode.ERROR) return;
  const exception = span.events.findLast((e) => e.name === 'exception')?.attributes?.['exception.type'];
  out[GEN_AI.errorType] = String(code ?? exception ?? '_OTHER');
}

function parseArray(value: AttributeValue | undefined): unknown[] | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

interface StoredMessage {
  role?: unknown;
  content?: unknown;
  name?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

/** One of agentkit's messages in the conventions' input-messages shape (`role`, `parts`). */
function inputMessage(value: unknown): Record<string, unknown> {
  const m = (value ?? {}) as StoredMessage;
  const role = typeof m.role === 'string' ? m.role : 'user';
  if (role === 'tool') return { role, parts: [{ type: 'tool_call_response', id: m.tool_call_id ?? null, response: m.content ?? null }] };
  const parts = [...textParts(m.content), ...toolCallParts(Array.isArray(m.tool_calls) ? m.tool_calls : [])];
  return typeof m.name === 'string' ? { role, parts, name: m.name } : { role, parts };
}

function textParts(content: unknown): Array<Record<string, unknown>> {
  return typeof content === 'string' && content !== '' ? [{ type: 'text', content }] : [];
}

function toolCallParts(calls: readonly unknown[]): Array<Record<string, unknown>> {
  return calls.map((call) => {
    const c = (call ?? {}) as { id?: unknown; name?: unknown; arguments?: unknown };
    return { type: 'tool_call', id: c.id ?? null, name: c.name ?? null, arguments: c.arguments ?? null };
  });
}

/** A provider's finish reason as the conventions name it (`stop`, `length`, `content_filter`, `tool_call`, `error`). */
function finishReason(reason: string | null): string {
  switch (reason) {
    case null:
    case 'stop':
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_calls':
    case 'tool_use':
    case 'tool-calls':
      return 'tool_call';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'content_filter':
    case 'content-filter':
      return 'content_filter';
    default:
      return reason;
  }
}
