/** Moving between a whole turn and its stream events, for models that produce one and are asked for the other. */
import { LLMProviderError } from './errors.js';
import type { LLMResponse, StreamEvent } from './types.js';

/** The stream events of a turn that arrived whole: its text as one delta, each tool call, usage, done. */
export function* eventsOf(response: LLMResponse): Generator<StreamEvent> {
  if (response.text !== '') yield { type: 'text_delta', text: response.text };
  for (const [index, toolCall] of response.toolCalls.entries()) {
    yield { type: 'tool_call_start', id: toolCall.id, name: toolCall.name, index };
    yield { type: 'tool_call_end', toolCall, index };
  }
  yield { type: 'usage', usage: response.usage };
  yield { type: 'done', response };
}

/** Drain a stream and return the turn carried by its `done` event; a stream without one is a provider error. */
export async function collectStream(provider: string, events: AsyncIterable<StreamEvent>): Promise<LLMResponse> {
  for await (const event of events) {
    if (event.type === 'done') return event.response;
  }
  throw new LLMProviderError(provider, null, `${provider}: the stream ended without a done event`);
}
