/**
 * The OpenAI chat-completions wire format: our messages, tools and settings to a request body, and a non-streamed
 * response body back to an LLMResponse. Shared by every OpenAI-compatible preset.
 */
import { LLMProviderError } from '../errors.js';
import type { Message } from '../messages.js';
import { argumentsText, toolCallFromText } from '../tool-arguments.js';
import { usageOf, zeroUsage, type ChatRequest, type LLMResponse, type ToolChoice, type Usage } from '../types.js';

/** The body of `POST /chat/completions`. Undefined settings are left out so the provider's defaults apply. */
export function chatCompletionsBody(model: string, request: ChatRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: request.messages.map(wireMessage) };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  const s = request.settings ?? {};
  if (s.toolChoice !== undefined && request.tools && request.tools.length > 0) body.tool_choice = wireToolChoice(s.toolChoice);
  if (s.parallelToolCalls !== undefined && request.tools && request.tools.length > 0) body.parallel_tool_calls = s.parallelToolCalls;
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.maxTokens !== undefined) body.max_tokens = s.maxTokens;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.stop !== undefined && s.stop.length > 0) body.stop = s.stop;
  if (s.seed !== undefined) body.seed = s.seed;
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

function wireMessage(message: Message): Record<string, unknown> {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const out: Record<string, unknown> = { role: 'assistant', content: message.content };
      if (message.tool_calls && message.tool_calls.length > 0) {
        out.tool_calls = message.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: argumentsText(c) } }));
      }
      return out;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
  }
}

function wireToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

interface WireCompletion {
  model?: unknown;
  choices?: Array<{
    message?: { content?: unknown; tool_calls?: Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }> };
    finish_reason?: unknown;
  }>;
  usage?: unknown;
}

/** Usage from a wire `usage` object (`prompt_tokens`, `completion_tokens`, `total_tokens`). */
export function wireUsage(usage: unknown): Usage {
  if (!usage || typeof usage !== 'object') return zeroUsage();
  const u = usage as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
  const input = typeof u.prompt_tokens === 'number' ? u.prompt_tokens : 0;
  const output = typeof u.completion_tokens === 'number' ? u.completion_tokens : 0;
  return usageOf(input, output, typeof u.total_tokens === 'number' ? u.total_tokens : input + output);
}

/** An LLMResponse from a non-streamed body; a body without `choices[0].message` is a malformed response. */
export function parseChatCompletion(provider: string, requestedModel: string, json: unknown, where: string): LLMResponse {
  const body = (json ?? {}) as WireCompletion;
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = choice?.message;
  if (!message || typeof message !== 'object') {
    throw new LLMProviderError(provider, 200, `${provider}: malformed response from POST ${where}: no choices[0].message in the body`);
  }
  const toolCalls = (message.tool_calls ?? []).map((call, index) => {
    const name = call.function?.name;
    if (typeof name !== 'string' || name === '') {
      throw new LLMProviderError(provider, 200, `${provider}: malformed response from POST ${where}: tool call ${index} has no function name`);
    }
    const args = call.function?.arguments;
    const text = typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args);
    return toolCallFromText(typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index}`, name, text);
  });
  return {
    text: typeof message.content === 'string' ? message.content : '',
    toolCalls,
    usage: wireUsage(body.usage),
    model: typeof body.model === 'string' ? body.model : requestedModel,
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
  };
}
