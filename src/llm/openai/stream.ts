/**
 * Streamed chat completions: `data: <chunk>` events ending with `data: [DONE]`. Text arrives in `delta.content`,
 * tool calls in `delta.tool_calls[]` keyed by `index` (id and name first, then argument fragments), usage in a last
 * chunk with empty `choices` (requested with `stream_options.include_usage`). A stream that stops before `[DONE]`
 * and before any finish reason, or a chunk that is not JSON, is a malformed response.
 */
import { LLMProviderError } from '../errors.js';
import type { SseEvent } from '../sse.js';
import { toolCallFromText } from '../tool-arguments.js';
import type { StreamEvent, Usage } from '../types.js';
import { wireUsage } from './wire.js';

interface PartialCall {
  id: string;
  name: string;
  args: string;
  started: boolean;
}

interface WireChunk {
  model?: unknown;
  error?: { message?: unknown } | string;
  choices?: Array<{
    delta?: { content?: unknown; tool_calls?: Array<{ index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }> };
    finish_reason?: unknown;
  }>;
  usage?: unknown;
}

/** Turn the SSE events of one streamed completion into stream events, ending with `done`. */
export async function* openAIStreamEvents(
  provider: string,
  requestedModel: string,
  where: string,
  events: AsyncIterable<SseEvent>,
): AsyncGenerator<StreamEvent> {
  const calls = new Map<number, PartialCall>();
  let text = '';
  let model = requestedModel;
  let finishReason: string | null = null;
  let usage: Usage | null = null;
  let sawDone = false;

  const malformed = (why: string) => new LLMProviderError(provider, 200, `${provider}: malformed stream from POST ${where}: ${why}`);

  for await (const event of events) {
    if (event.data === '[DONE]') {
      sawDone = true;
      break;
    }
    let chunk: WireChunk;
    try {
      chunk = JSON.parse(event.data) as WireChunk;
    } catch {
      throw malformed(`a chunk is not JSON (${event.data.slice(0, 120)})`);
    }
    if (chunk.error) {
      const detail = typeof chunk.error === 'string' ? chunk.error : String(chunk.error.message ?? 'unknown error');
      throw new LLMProviderError(provider, 200, `${provider}: error in stream from POST ${where}: ${detail}`);
    }
    if (typeof chunk.model === 'string' && chunk.model !== '') model = chunk.model;
    if (chunk.usage) usage = wireUsage(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      text += delta.content;
      yield { type: 'text_delta', text: delta.content };
    }
    for (const part of delta.tool_calls ?? []) {
      const index = typeof part.index === 'number' ? part.index : calls.size;
      let call = calls.get(index);
      if (!call) {
        call = { id: '', name: '', args: '', started: false };
        calls.set(index, call);
      }
      if (typeof part.id === 'string' && part.id !== '') call.id = part.id;
      if (typeof part.function?.name === 'string') call.name += part.function.name;
      if (typeof part.function?.arguments === 'string') call.args += part.function.arguments;
      if (!call.started && call.name !== '') {
        call.started = true;
        if (call.id === '') call.id = `call_${index}`;
        yield { type: 'tool_call_start', id: call.id, name: call.name, index };
      }
    }
    if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
  }
  if (!sawDone && finishReason === null) throw malformed('the stream ended before the response was complete');

  const toolCalls = [];
  for (const [index, call] of [...calls.entries()].sort((a, b) => a[0] - b[0])) {
    if (call.name === '') throw malformed(`tool call ${index} has no function name`);
    const toolCall = toolCallFromText(call.id, call.name, call.args);
    toolCalls.push(toolCall);
    yield { type: 'tool_call_end', toolCall, index };
  }
  const finalUsage = usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  yield { type: 'usage', usage: finalUsage };
  yield { type: 'done', response: { text, toolCalls, usage: finalUsage, model, finishReason } };
}
