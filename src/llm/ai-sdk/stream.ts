/**
 * The parts of a V4 stream as agentkit's stream events. Text deltas are forwarded as they arrive; a tool call starts
 * at `tool-input-start` and ends at its `tool-call` part (whose `input` is the whole JSON text), or, for a call whose
 * input the provider streamed but never completed, at the end of the stream with the input as streamed (text that is
 * not a JSON object is kept as `raw_arguments`, as agentkit's own providers do). `response-metadata` names the model
 * that answered; `finish` carries usage and the finish reason. An `error` part fails the call, and so does a stream
 * that ends without `finish`. Reasoning, files, sources, custom parts and tools the provider ran itself are not part
 * of the message model and are skipped.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { LLMProviderError } from '../errors.js';
import type { ToolCall } from '../messages.js';
import { toolCallFromText } from '../tool-arguments.js';
import type { StreamEvent, Usage } from '../types.js';
import { providerError } from './errors.js';
import { finishReasonOf, usageFrom } from './response.js';

interface OpenCall {
  index: number;
  name: string;
  input: string;
}

/** Stream events from V4 stream parts, ending with `usage` and `done`. Throws LLMProviderError as described above. */
export async function* streamEventsOf(provider: string, requestedModel: string, parts: AsyncIterable<LanguageModelV4StreamPart>): AsyncGenerator<StreamEvent> {
  const open = new Map<string, OpenCall>();
  const toolCalls: Array<ToolCall | null> = [];
  let text = '';
  let model = requestedModel;
  let usage: Usage | null = null;
  let finishReason: string | null = null;

  for await (const part of parts) {
    switch (part.type) {
      case 'text-delta':
        if (part.delta === '') break;
        text += part.delta;
        yield { type: 'text_delta', text: part.delta };
        break;
      case 'tool-input-start':
        if (part.providerExecuted === true) break;
        open.set(part.id, { index: toolCalls.length, name: part.toolName, input: '' });
        toolCalls.push(null);
        yield { type: 'tool_call_start', id: part.id, name: part.toolName, index: toolCalls.length - 1 };
        break;
      case 'tool-input-delta': {
        const call = open.get(part.id);
        if (call) call.input += part.delta;
        break;
      }
      case 'tool-call': {
        if (part.providerExecuted === true) break;
        let index = open.get(part.toolCallId)?.index;
        open.delete(part.toolCallId);
        if (index === undefined) {
          // A call that arrives whole, without tool-input parts before it.
          index = toolCalls.length;
          toolCalls.push(null);
          yield { type: 'tool_call_start', id: part.toolCallId, name: part.toolName, index };
        }
        const toolCall = toolCallFromText(part.toolCallId, part.toolName, part.input);
        toolCalls[index] = toolCall;
        yield { type: 'tool_call_end', toolCall, index };
        break;
      }
      case 'response-metadata':
        if (part.modelId) model = part.modelId;
        break;
      case 'finish':
        usage = usageFrom(part.usage);
        finishReason = finishReasonOf(part.finishReason);
        break;
      case 'error':
        throw providerError(provider, part.error, 1);
    }
  }
  if (usage === null) throw new LLMProviderError(provider, null, `${provider}: malformed stream: it ended without a finish part`);
  for (const [id, call] of open) {
    const toolCall = toolCallFromText(id, call.name, call.input);
    toolCalls[call.index] = toolCall;
    yield { type: 'tool_call_end', toolCall, index: call.index };
  }
  yield { type: 'usage', usage };
  yield { type: 'done', response: { text, toolCalls: toolCalls.filter((c) => c !== null), usage, model, finishReason } };
}
