/**
 * The model of a rerun: in `recorded` mode it answers call k with the response recorded for call k of the source
 * agent while the request matches the recorded request, and from the first mismatch on it calls the real model
 * (or stops, with `onMiss: 'error'`). In `live` mode it always calls the real model. Each `llm.chat_completion` span
 * of the rerun says where its answer came from (`agentkit.replay.llm_source`: `recorded` or `live`).
 */
import { trace } from '@opentelemetry/api';
import { eventsOf } from '../llm/events.js';
import type { ToolCall } from '../llm/messages.js';
import type { CallOptions, ChatModel, ChatRequest, LlmConfig, LLMResponse, StreamEvent } from '../llm/types.js';
import { LLM_ATTR } from '../tracing/attributes.js';
import type { Span } from '../types.js';
import { canonicalJson, parseJson } from './canonical.js';
import { ReplayError } from './errors.js';
import type { Determinism } from './mode.js';
import { readRedactionHashes, type KeyedHash } from '../tracing/redaction-hash.js';
import { REPLAY_ATTR } from './span-attributes.js';

/** One recorded model call: what was asked (canonical JSON, null when payloads were off) and what came back. */
export interface RecordedCall {
  request: string | null;
  response: LLMResponse | null;
  /** The recorded messages (masked where the writer masked them), null when payloads were off. */
  messages: unknown[] | null;
  /** Index of each masked message -> the keyed hash of its unmasked canonical JSON (docs/adr/0010). */
  masked: ReadonlyMap<number, string>;
}

/** The recorded calls of the `llm.*` spans given, in order. */
export function recordedCalls(spans: readonly Span[]): RecordedCall[] {
  return spans.map((span) => {
    const a = span.attributes;
    const messages = parseJson(a[LLM_ATTR.messages]);
    const request = Array.isArray(messages)
      ? requestKey(String(a[LLM_ATTR.requestModel] ?? ''), messages, Array.isArray(a[LLM_ATTR.tools]) ? (a[LLM_ATTR.tools] as string[]) : undefined, {
          temperature: num(a[LLM_ATTR.temperature]),
          maxTokens: num(a[LLM_ATTR.maxTokens]),
          topP: num(a[LLM_ATTR.topP]),
        })
      : null;
    return { request, response: responseOf(span), messages: Array.isArray(messages) ? messages : null, masked: readRedactionHashes(a).messages };
  });
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** What a call is matched on: the model, the messages, the tools' names and the recorded sampling settings. */
function requestKey(
  model: string,
  messages: unknown,
  tools: string[] | undefined,
  settings: { temperature?: number; maxTokens?: number; topP?: number },
): string {
  return canonicalJson({ model, messages, tools: tools && tools.length > 0 ? tools : undefined, ...settings });
}

/** The response a span recorded; null when payloads were off (no content was recorded). */
function responseOf(span: Span): LLMResponse | null {
  const a = span.attributes;
  if (typeof a[LLM_ATTR.content] !== 'string') return null;
  const calls = parseJson(a[LLM_ATTR.toolCalls]);
  const input = num(a[LLM_ATTR.inputTokens]) ?? 0;
  const output = num(a[LLM_ATTR.outputTokens]) ?? 0;
  const reasons = a[LLM_ATTR.finishReasons];
  return {
    text: a[LLM_ATTR.content] as string,
    toolCalls: Array.isArray(calls) ? (calls as ToolCall[]) : [],
    usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
    model: String(a[LLM_ATTR.responseModel] ?? a[LLM_ATTR.requestModel] ?? ''),
    finishReason: Array.isArray(reasons) && typeof reasons[0] === 'string' ? reasons[0] : null,
  };
}

export interface ReplayModelOptions {
  /** The configuration the trace recorded (possibly with a changed model name). */
  config: LlmConfig;
  /** The real model, or a function that throws why there is none (called only when a live call is needed). */
  live: () => ChatModel;
  /** Name and provider of the real model, when it is known without building it. */
  identity?: { provider: string; model: string };
  recorded: readonly RecordedCall[];
  determinism: Determinism;
  /** Go live from the first call (a change the recorded requests cannot show, such as a new seed). */
  forceLive?: boolean;
  /** The agent being rerun, for error texts. */
  agentName: string;
  /** The store's keyed hash, to match recorded messages the writer masked (docs/adr/0010). */
  hash?: KeyedHash;
}

export class ReplayModel implements ChatModel {
  readonly provider: string;
  readonly model: string;
  /** Calls answered from the trace. */
  recordedCount = 0;
  /** Calls made to the real model. */
  liveCount = 0;
  private next = 0;
  private diverged: boolean;

  constructor(private readonly options: ReplayModelOptions) {
    this.provider = options.identity?.provider ?? options.config.provider;
    this.model = options.identity?.model ?? options.config.model;
    this.diverged = options.determinism.mode === 'live' || options.forceLive === true;
  }

  async complete(request: ChatRequest, options: CallOptions = {}): Promise<LLMResponse> {
    const recorded = this.answer(request);
    if (recorded) return recorded;
    return this.options.live().complete(request, options);
  }

  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    const recorded = this.answer(request);
    if (recorded) {
      yield* eventsOf(recorded);
      return;
    }
    yield* this.options.live().stream(request, options);
  }

  toConfig(): LlmConfig {
    return { ...this.options.config };
  }

  /**
   * Whether `request` is the recorded call once the messages the writer masked are compared by their keyed hash: each
   * message at a masked index whose hash is the recorded one counts as the recorded (masked) message.
   */
  private matchesMasked(call: RecordedCall, request: ChatRequest, keyOf: (messages: readonly unknown[]) => string): boolean {
    const hash = this.options.hash;
    if (!hash || call.masked.size === 0 || !call.messages || call.messages.length !== request.messages.length) return false;
    const recorded = call.messages;
    const messages = request.messages.map((message, index) => {
      const expected = call.masked.get(index);
      return expected !== undefined && hash(canonicalJson(message)) === expected ? recorded[index] : message;
    });
    return call.request === keyOf(messages);
  }

  /** The recorded response for this call, or null to call the real model (ReplayError on a miss with onMiss 'error'). */
  private answer(request: ChatRequest): LLMResponse | null {
    const index = this.next++;
    const span = trace.getActiveSpan();
    if (!this.diverged) {
      const call = this.options.recorded[index];
      const keyOf = (messages: readonly unknown[]) =>
        requestKey(
          this.model,
          messages,
          request.tools?.map((t) => t.name),
          {
            temperature: request.settings?.temperature,
            maxTokens: request.settings?.maxTokens,
            topP: request.settings?.topP,
          },
        );
      if (call?.response && call.request !== null && (call.request === keyOf(request.messages) || this.matchesMasked(call, request, keyOf))) {
        this.recordedCount++;
        span?.setAttribute(REPLAY_ATTR.llmSource, 'recorded');
        return structuredClone(call.response);
      }
      this.diverged = true;
      if (this.options.determinism.onMiss === 'error') {
        throw new ReplayError(`model call ${index + 1} of agent '${this.options.agentName}' ${missReason(call)}, and onMiss is 'error'`);
      }
    }
    this.liveCount++;
    span?.setAttribute(REPLAY_ATTR.llmSource, 'live');
    return null;
  }
}

function missReason(call: RecordedCall | undefined): string {
  if (!call) return 'has no recorded counterpart (the original run made fewer calls)';
  if (call.request === null || !call.response) return 'has no recorded request or response (the trace was recorded with AGENTKIT_TRACE_PAYLOADS=0)';
  return 'does not match the recorded request';
}
