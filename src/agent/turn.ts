/**
 * One model turn inside an `llm.chat_completion` span: the request goes out with the run's tools and settings, the
 * answer comes back whole (or streamed, when the run is streamed, with deltas forwarded as they arrive). The span
 * carries GenAI attributes, and with payloads on, the messages sent and the answer.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { LLMProviderError } from '../llm/errors.js';
import type { CallOptions, ChatRequest, LLMResponse } from '../llm/types.js';
import { LLM_ATTR, SPAN } from '../tracing/attributes.js';
import { withSpan } from '../tracing/spans.js';
import { historyDelta, historyJson } from './history-json.js';
import { LeanSpan } from '../tracing/lean-span.js';
import { storeMessagesAsDelta } from '../tracing/message-deltas.js';
import { injectTraceContext } from '../tracing/propagation.js';
import type { AgentRun, LoopState } from './run-state.js';

const LLM_SPAN = { kind: SpanKind.CLIENT } as const;

/** Call the model for `state.turn`. Throws what the provider throws (LLMProviderError, the abort reason). */
export function callModel(run: AgentRun, state: LoopState): Promise<LLMResponse> {
  // A CLIENT span: a call to a model service, as the GenAI conventions have it (docs/adr/0010).
  return withSpan(SPAN.llm, LLM_SPAN, async (span) => {
    const request: ChatRequest = { messages: state.messages, tools: run.toolDefinitions, settings: run.settings };
    const recording = span.isRecording();
    if (recording) {
      span.setAttributes(requestAttributes(run, state, request));
      // The local row stores only the messages added since the previous model span of this history.
      if (run.payloads && span instanceof LeanSpan) {
        const delta = historyDelta(request.messages, span.spanContext().spanId, span.dbPath);
        if (delta) storeMessagesAsDelta(span, delta);
      }
    }
    // The model span's W3C context goes to the provider (a `traceparent` of this span; never baggage, ADR 0009).
    const options: CallOptions = recording ? { signal: run.signal, headers: injectTraceContext({}) } : { signal: run.signal };
    const response = run.emit ? await streamTurn(run, request, options) : await run.llm.complete(request, options);
    if (recording) span.setAttributes(responseAttributes(run, response));
    return response;
  });
}

async function streamTurn(run: AgentRun, request: ChatRequest, options: CallOptions): Promise<LLMResponse> {
  const emit = run.emit!;
  for await (const event of run.llm.stream(request, options)) {
    switch (event.type) {
      case 'text_delta':
        emit({ type: 'text_delta', text: event.text });
        break;
      case 'tool_call_start':
        emit({ type: 'tool_call_start', id: event.id, name: event.name });
        break;
      case 'tool_call_end':
        emit({ type: 'tool_call_end', id: event.toolCall.id, name: event.toolCall.name, arguments: event.toolCall.arguments });
        break;
      case 'usage':
        emit({ type: 'usage', usage: event.usage });
        break;
      case 'done':
        return event.response;
    }
  }
  throw new LLMProviderError(run.llm.provider, null, `${run.llm.provider}: the stream ended without a done event`);
}

/** The request's attributes, set in one call (each call validates its attributes again). */
function requestAttributes(run: AgentRun, state: LoopState, request: ChatRequest): Attributes {
  const attributes: Attributes = {
    [LLM_ATTR.system]: run.llm.provider,
    [LLM_ATTR.operation]: 'chat',
    [LLM_ATTR.requestModel]: run.llm.model,
    [LLM_ATTR.turn]: state.turn,
    [LLM_ATTR.streamed]: run.emit !== undefined,
  };
  if (run.settings.temperature !== undefined) attributes[LLM_ATTR.temperature] = run.settings.temperature;
  if (run.settings.maxTokens !== undefined) attributes[LLM_ATTR.maxTokens] = run.settings.maxTokens;
  if (run.settings.topP !== undefined) attributes[LLM_ATTR.topP] = run.settings.topP;
  // The run's own array (spans keep attribute values as given; nothing changes it).
  if (run.toolNames.length > 0) attributes[LLM_ATTR.tools] = run.toolNames as string[];
  if (run.payloads) attributes[LLM_ATTR.messages] = historyJson(request.messages);
  return attributes;
}

function responseAttributes(run: AgentRun, response: LLMResponse): Attributes {
  const attributes: Attributes = {
    [LLM_ATTR.responseModel]: response.model,
    [LLM_ATTR.inputTokens]: response.usage.inputTokens,
    [LLM_ATTR.outputTokens]: response.usage.outputTokens,
  };
  if (response.finishReason !== null) attributes[LLM_ATTR.finishReasons] = [response.finishReason];
  if (run.payloads) {
    attributes[LLM_ATTR.content] = response.text;
    if (response.toolCalls.length > 0) attributes[LLM_ATTR.toolCalls] = JSON.stringify(response.toolCalls);
  }
  return attributes;
}
