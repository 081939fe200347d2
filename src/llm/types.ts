/**
 * The provider-neutral contract between the agent loop and an LLM: a request (history, tool definitions, sampling
 * settings), a response (text, tool calls, usage), the stream events a streamed call yields, and the serialisable
 * configuration a model is rebuilt from.
 */
import type { JsonObject, Message, ToolCall } from './messages.js';

/** A tool as the model sees it: a name, what it does, and a JSON schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonObject;
}

/** Which tool the model may or must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** Sampling settings; anything left undefined is not sent, so the provider's default applies. */
export interface SamplingSettings {
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  toolChoice?: ToolChoice;
  /** OpenAI-compatible only: allow several tool calls in one turn (the provider default when undefined). */
  parallelToolCalls?: boolean;
}

/** One call to a model. */
export interface ChatRequest {
  messages: readonly Message[];
  tools?: readonly ToolDefinition[];
  settings?: SamplingSettings;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call (and any retry wait). */
  signal?: AbortSignal;
  /**
   * Extra HTTP headers for this call; the model's own headers of the same name win. An agent passes the W3C trace
   * context (`traceparent`, `tracestate`) of its `llm.chat_completion` span, never `baggage` (docs/adr/0009).
   */
  headers?: Readonly<Record<string, string>>;
}

/** Token counts of one call. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** A completed model turn. */
export interface LLMResponse {
  /** The text of the turn ('' when it only called tools). */
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** The model that answered, as the provider reports it. */
  model: string;
  /** The provider's stop reason (`stop`, `tool_calls`, `end_turn`, `tool_use`, `length`, ...), null if none was sent. */
  finishReason: string | null;
}

/** Events of a streamed call, in order: deltas and tool calls as they arrive, then usage, then `done`. */
export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call_start'; id: string; name: string; index: number }
  | { type: 'tool_call_end'; toolCall: ToolCall; index: number }
  | { type: 'usage'; usage: Usage }
  | { type: 'done'; response: LLMResponse };

/**
 * How to rebuild a model: everything but secrets. Persisted on the root span as `agent.llm.config` (so its keys
 * are snake_case like every persisted name); replay rebuilds the agent's model from it with `createModel`.
 */
export interface LlmConfig {
  provider: string;
  model: string;
  base_url?: string;
  /** The environment variable the key is read from; the key itself is never part of a config. */
  api_key_env?: string;
  /** Extra request headers, names only: every value reads `***`. */
  headers?: Record<string, string>;
  timeout_ms?: number;
  max_retries?: number;
  /** Azure: the `api-version` query parameter, when the endpoint needs one. */
  api_version?: string;
  /** Anthropic: the `anthropic-version` header. */
  anthropic_version?: string;
  /** Anthropic: `max_tokens` when the agent sets none (the API requires one). */
  default_max_tokens?: number;
  /**
   * Set for a model adapted from another SDK's model object (`ai-sdk`): such a model is created in code (its provider
   * package holds the key and the endpoint), so it is never rebuilt from its configuration.
   */
  sdk?: string;
  /** With `sdk`: the version of that SDK's model interface the object implements (`v4`). */
  specification_version?: string;
}

/** A chat model: a provider behind the one message model. */
export interface ChatModel {
  /** Provider name, recorded as `gen_ai.system` (`openai`, `anthropic`, `groq`, ..., `scripted`). */
  readonly provider: string;
  /** Model name, recorded as `gen_ai.request.model`. */
  readonly model: string;
  /** One call; resolves with the whole turn. */
  complete(request: ChatRequest, options?: CallOptions): Promise<LLMResponse>;
  /** One streamed call; the last event is always `done` with the whole turn. */
  stream(request: ChatRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
  /** The model's configuration without any secret. */
  toConfig(): LlmConfig;
}

/** Usage with every count at zero. */
export function zeroUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

/** Usage from input and output counts (total = their sum unless the provider reports one). */
export function usageOf(inputTokens: number, outputTokens: number, totalTokens = inputTokens + outputTokens): Usage {
  return { inputTokens, outputTokens, totalTokens };
}
