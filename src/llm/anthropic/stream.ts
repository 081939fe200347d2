/**
 * Streamed Anthropic messages: `message_start` (model, input usage), per content block `content_block_start`,
 * `content_block_delta` (`text_delta` or `input_json_delta`) and `content_block_stop`, then `message_delta` (stop
 * reason, output usage) and `message_stop`. An `error` event, a non-JSON event or a stream without `message_stop` is
 * a provider error.
 */
import { LLMProviderError } from '../errors.js';
import type { SseEvent } from '../sse.js';
import { toolCallFromText } from '../tool-arguments.js';
import { usageOf, type StreamEvent } from '../types.js';
import { anthropicUsage } from './wire.js';

/** One event of the provider's stream, as parsed: every field read from it is checked or converted where it is used. */
// biome-ignore lint/suspicious/noExplicitAny: untrusted JSON read field by field, each value checked (typeof, String, Number) where it is used
type WireEvent = Record<string, any>;

interface Block {
  kind: 'text' | 'tool_use' | 'other';
  id: string;
  name: string;
  json: string;
  toolIndex: number;
}

/** Turn the SSE events of one streamed message into stream events, ending with `done`. */
export async function* anthropicStreamEvents(
  provider: string,
  requestedModel: string,
  where: string,
  events: AsyncIterable<SseEvent>,
): AsyncGenerator<StreamEvent> {
  const blocks = new Map<number, Block>();
  const toolCalls = [];
  let text = '';
  let model = requestedModel;
  let inputTokens = 0;
  let outputTokens = 0;
  let finishReason: string | null = null;
  let stopped = false;

  const malformed = (why: string) => new LLMProviderError(provider, 200, `${provider}: malformed stream from POST ${where}: ${why}`);

  for await (const event of events) {
    let data: WireEvent;
    try {
      data = JSON.parse(event.data) as WireEvent;
    } catch {
      throw malformed(`event '${event.event}' is not JSON (${event.data.slice(0, 120)})`);
    }
    const type = typeof data.type === 'string' ? data.type : event.event;
    if (type === 'error') {
      throw new LLMProviderError(provider, 200, `${provider}: error in stream from POST ${where}: ${String(data.error?.message ?? 'unknown error')}`);
    }
    if (type === 'message_start') {
      if (typeof data.message?.model === 'string') model = data.message.model;
      const usage = anthropicUsage(data.message?.usage);
      inputTokens = usage.inputTokens;
      outputTokens = usage.outputTokens;
    } else if (type === 'content_block_start') {
      const cb = data.content_block ?? {};
      const kind = cb.type === 'text' ? 'text' : cb.type === 'tool_use' ? 'tool_use' : 'other';
      const block: Block = { kind, id: String(cb.id ?? ''), name: String(cb.name ?? ''), json: '', toolIndex: -1 };
      blocks.set(Number(data.index), block);
      if (kind === 'tool_use') {
        if (!block.id || !block.name) throw malformed(`tool_use block ${String(data.index)} has no id or name`);
        block.toolIndex = toolCalls.length;
        toolCalls.push(null);
        yield { type: 'tool_call_start', id: block.id, name: block.name, index: block.toolIndex };
      }
      if (kind === 'text' && typeof cb.text === 'string' && cb.text !== '') {
        text += cb.text;
        yield { type: 'text_delta', text: cb.text };
      }
    } else if (type === 'content_block_delta') {
      const block = blocks.get(Number(data.index));
      if (!block) throw malformed(`delta for unknown content block ${String(data.index)}`);
      const delta = data.delta ?? {};
      if (delta.type === 'text_delta' && typeof delta.text === 'string') {
        text += delta.text;
        yield { type: 'text_delta', text: delta.text };
      } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
        block.json += delta.partial_json;
      }
    } else if (type === 'content_block_stop') {
      const block = blocks.get(Number(data.index));
      if (block?.kind === 'tool_use') {
        const toolCall = toolCallFromText(block.id, block.name, block.json);
        toolCalls[block.toolIndex] = toolCall;
        yield { type: 'tool_call_end', toolCall, index: block.toolIndex };
      }
    } else if (type === 'message_delta') {
      if (typeof data.delta?.stop_reason === 'string') finishReason = data.delta.stop_reason;
      if (typeof data.usage?.output_tokens === 'number') outputTokens = data.usage.output_tokens;
      if (typeof data.usage?.input_tokens === 'number' && data.usage.input_tokens > 0) inputTokens = anthropicUsage(data.usage).inputTokens;
    } else if (type === 'message_stop') {
      stopped = true;
      break;
    }
  }
  if (!stopped) throw malformed('the stream ended before message_stop');
  const unfinished = toolCalls.indexOf(null);
  if (unfinished !== -1) throw malformed(`tool_use block ${unfinished} never stopped`);
  const usage = usageOf(inputTokens, outputTokens);
  yield { type: 'usage', usage };
  yield { type: 'done', response: { text, toolCalls: toolCalls.filter((c) => c !== null), usage, model, finishReason } };
}
