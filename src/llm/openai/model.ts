/**
 * Every OpenAI-compatible provider (OpenAI, Azure, Ollama, vLLM, LM Studio, Groq, OpenRouter, Together, DeepSeek,
 * Mistral, Fireworks, any gateway): `POST <baseUrl>/chat/completions`, streamed over SSE or not, with tool calls.
 */
import { ConfigError } from '../../errors.js';
import { normaliseBaseUrl, redactedHeaders, resolveKey, retryPolicy, timeoutOf, type HttpModelOptions } from '../config.js';
import { completeOnce, streamOnce, type Exchange, type WireFormat } from '../exchange.js';
import type { TransportOptions } from '../http.js';
import { isOpenAIProvider, OPENAI_COMPATIBLE_PRESETS, type OpenAIProviderName } from '../presets.js';
import type { CallOptions, ChatModel, ChatRequest, LlmConfig, LLMResponse, StreamEvent } from '../types.js';
import { openAIStreamEvents } from './stream.js';
import { chatCompletionsBody, parseChatCompletion } from './wire.js';

export interface OpenAICompatibleOptions extends HttpModelOptions {
  /** The preset (default `openai`); `custom` with a `baseUrl` for any other gateway. */
  provider?: OpenAIProviderName;
  /** Azure: the `api-version` query parameter, for endpoints that need one. */
  apiVersion?: string;
}

/** A chat model behind an OpenAI-compatible `/chat/completions` endpoint. */
export class OpenAICompatibleModel implements ChatModel {
  readonly provider: OpenAIProviderName;
  readonly model: string;
  readonly baseUrl: string;
  readonly apiKeyEnv: string;
  readonly #apiKey: string | undefined;
  readonly #options: OpenAICompatibleOptions;
  readonly #transport: TransportOptions;

  /** Throws ConfigError for an unknown preset, a missing model, a missing required key or base URL. */
  constructor(options: OpenAICompatibleOptions) {
    const provider = options.provider ?? 'openai';
    if (!isOpenAIProvider(provider)) {
      throw new ConfigError(`unknown OpenAI-compatible provider '${String(provider)}'; use one of ${Object.keys(OPENAI_COMPATIBLE_PRESETS).join(', ')}`);
    }
    if (!options.model) throw new ConfigError(`${provider}: model is required`);
    const preset = OPENAI_COMPATIBLE_PRESETS[provider];
    this.provider = provider;
    this.model = options.model;
    this.baseUrl = normaliseBaseUrl(provider, options.baseUrl ?? preset.baseUrl);
    this.apiKeyEnv = options.apiKeyEnv ?? preset.apiKeyEnv;
    this.#apiKey = resolveKey(provider, options, this.apiKeyEnv, preset.keyRequired);
    this.#options = options;
    this.#transport = { provider, timeoutMs: timeoutOf(options), retry: retryPolicy(options) };
  }

  private get url(): string {
    const query = this.#options.apiVersion ? `?api-version=${encodeURIComponent(this.#options.apiVersion)}` : '';
    return `${this.baseUrl}/chat/completions${query}`;
  }

  private headers(stream: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: stream ? 'text/event-stream' : 'application/json', ...this.#options.headers };
    if (this.#apiKey) {
      if (OPENAI_COMPATIBLE_PRESETS[this.provider].auth === 'api-key') headers['api-key'] = this.#apiKey;
      else headers.authorization = `Bearer ${this.#apiKey}`;
    }
    return headers;
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
      body: chatCompletionsBody(this.model, request, stream),
      signal,
    };
  }

  /** Chat Completions JSON and SSE. */
  get #wire(): WireFormat {
    return {
      provider: this.provider,
      parse: (body, where) => parseChatCompletion(this.provider, this.model, body, where),
      streamEvents: (where, events) => openAIStreamEvents(this.provider, this.model, where, events),
    };
  }

  /** The configuration without the key: preset, model, base URL, key variable, header names, timeouts. */
  toConfig(): LlmConfig {
    const config: LlmConfig = {
      provider: this.provider,
      model: this.model,
      base_url: this.baseUrl,
      api_key_env: this.apiKeyEnv,
      timeout_ms: this.#transport.timeoutMs,
      max_retries: this.#transport.retry.maxRetries,
    };
    const headers = redactedHeaders(this.#options.headers);
    if (headers) config.headers = headers;
    if (this.#options.apiVersion) config.api_version = this.#options.apiVersion;
    return config;
  }
}
