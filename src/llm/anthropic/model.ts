/** Anthropic's Messages API: `POST <baseUrl>/messages`, streamed over SSE or not, with tool use. */
import { ConfigError } from '../../errors.js';
import { normaliseBaseUrl, redactedHeaders, resolveKey, retryPolicy, timeoutOf, type HttpModelOptions } from '../config.js';
import { completeOnce, streamOnce, type Exchange, type WireFormat } from '../exchange.js';
import type { TransportOptions } from '../http.js';
import { ANTHROPIC_DEFAULTS } from '../presets.js';
import type { CallOptions, ChatModel, ChatRequest, LlmConfig, LLMResponse, StreamEvent } from '../types.js';
import { anthropicStreamEvents } from './stream.js';
import { messagesBody, parseMessage } from './wire.js';

export interface AnthropicOptions extends HttpModelOptions {
  /** The `anthropic-version` header (default `2023-06-01`). */
  anthropicVersion?: string;
  /** `max_tokens` when the agent sets none; the API requires one (default 4096). */
  defaultMaxTokens?: number;
}

/** A chat model behind Anthropic's Messages API (key from `ANTHROPIC_API_KEY`). */
export class AnthropicModel implements ChatModel {
  readonly provider = 'anthropic';
  readonly model: string;
  readonly baseUrl: string;
  readonly apiKeyEnv: string;
  readonly #apiKey: string;
  readonly #options: AnthropicOptions;
  readonly #transport: TransportOptions;

  /** Throws ConfigError for a missing model, a missing key or a malformed base URL. */
  constructor(options: AnthropicOptions) {
    if (!options.model) throw new ConfigError('anthropic: model is required');
    this.model = options.model;
    this.baseUrl = normaliseBaseUrl('anthropic', options.baseUrl ?? ANTHROPIC_DEFAULTS.baseUrl);
    this.apiKeyEnv = options.apiKeyEnv ?? ANTHROPIC_DEFAULTS.apiKeyEnv;
    this.#apiKey = resolveKey('anthropic', options, this.apiKeyEnv, true)!;
    const maxTokens = options.defaultMaxTokens ?? ANTHROPIC_DEFAULTS.maxTokens;
    if (!Number.isInteger(maxTokens) || maxTokens <= 0) throw new ConfigError(`anthropic: defaultMaxTokens must be a positive integer, got ${maxTokens}`);
    this.#options = options;
    this.#transport = { provider: 'anthropic', timeoutMs: timeoutOf(options), retry: retryPolicy(options) };
  }

  private get url(): string {
    return `${this.baseUrl}/messages`;
  }

  private get maxTokens(): number {
    return this.#options.defaultMaxTokens ?? ANTHROPIC_DEFAULTS.maxTokens;
  }

  private headers(stream: boolean): Record<string, string> {
    return {
      accept: stream ? 'text/event-stream' : 'application/json',
      'anthropic-version': this.#options.anthropicVersion ?? ANTHROPIC_DEFAULTS.version,
      ...this.#options.headers,
      'x-api-key': this.#apiKey,
    };
  }

  /** One non-streamed call. Throws LLMProviderError on a final failure or a malformed body. */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<LLMResponse> {
    return await completeOnce(this.#wire, this.#exchange(request, false, options));
  }

  /** One streamed call (SSE). A gateway that answers a stream request with plain JSON is read as one turn. */
  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    yield* streamOnce(this.#wire, this.#exchange(request, true, options));
  }

  #exchange(request: ChatRequest, stream: boolean, { signal, headers }: CallOptions): Exchange {
    return {
      transport: this.#transport,
      url: this.url,
      headers: headers ? { ...headers, ...this.headers(stream) } : this.headers(stream),
      body: messagesBody(this.model, request, this.maxTokens, stream),
      signal,
    };
  }

  /** Messages API JSON and SSE. */
  get #wire(): WireFormat {
    return {
      provider: this.provider,
      parse: (body, where) => parseMessage(this.provider, this.model, body, where),
      streamEvents: (where, events) => anthropicStreamEvents(this.provider, this.model, where, events),
    };
  }

  /** The configuration without the key. */
  toConfig(): LlmConfig {
    const config: LlmConfig = {
      provider: this.provider,
      model: this.model,
      base_url: this.baseUrl,
      api_key_env: this.apiKeyEnv,
      timeout_ms: this.#transport.timeoutMs,
      max_retries: this.#transport.retry.maxRetries,
      anthropic_version: this.#options.anthropicVersion ?? ANTHROPIC_DEFAULTS.version,
      default_max_tokens: this.maxTokens,
    };
    const headers = redactedHeaders(this.#options.headers);
    if (headers) config.headers = headers;
    return config;
  }
}
