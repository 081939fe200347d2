/**
 * Any AI SDK language model as an agentkit ChatModel: `aiSdkModel(openai.chat('gpt-4o-mini'))`,
 * `aiSdkModel(bedrock('anthropic.claude-3-5-haiku-20241022-v1:0'))`, `aiSdkModel(google('gemini-2.0-flash'))`. The
 * provider package does the talking (its key, endpoint and wire format); agentkit maps its message model, tools,
 * settings, stream, usage and errors onto the V4 specification, retries what the AI SDK marks retryable, and passes
 * the run's abort signal through.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamResult, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { registerSecret } from '../../config/secrets.js';
import { retryPolicy } from '../config.js';
import { sleep, type RetryPolicy } from '../retry.js';
import type { CallOptions, ChatModel, ChatRequest, LlmConfig, LLMResponse, StreamEvent } from '../types.js';
import { partsOf, untilAborted } from './abort.js';
import { providerError, retryDecision } from './errors.js';
import { callOptionsOf } from './prompt.js';
import { responseOf } from './response.js';
import { AI_SDK_SPECIFICATION_VERSION, checkLanguageModel } from './specification.js';
import { streamEventsOf } from './stream.js';

/** Options of `aiSdkModel`. */
export interface AiSdkModelOptions {
  /** Recorded as `gen_ai.system` and named in errors (default: the model's `provider`, such as `openai.chat`). */
  provider?: string;
  /** Sent with every call as the V4 `providerOptions` (`{ openai: { parallelToolCalls: false } }`, ...). */
  providerOptions?: SharedV4ProviderOptions;
  /**
   * The variables holding the provider package's key. The package reads its key itself; agentkit only registers
   * their values as secrets, so they are masked in errors, traces and logs (default: `<PROVIDER>_API_KEY` from the
   * provider id, `OPENAI_API_KEY` for `openai.chat`). Any other secret: `registerSecret(value)`.
   */
  apiKeyEnv?: string | readonly string[];
  /** Where those variables are read (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Retries after the first attempt of a call the AI SDK marks retryable (default 2); a stream only before it starts. */
  maxRetries?: number;
  /** First backoff step in ms (default 500). */
  retryBaseDelayMs?: number;
  /** Longest wait accepted, backoff or Retry-After (default 30 000). */
  maxRetryDelayMs?: number;
}

/** The `sdk` value of an adapted model's configuration. */
export const AI_SDK = 'ai-sdk';

/** A chat model that calls an AI SDK V4 language model. Build it with `aiSdkModel`. */
export class AiSdkModel implements ChatModel {
  readonly provider: string;
  readonly model: string;
  /** The AI SDK model every call goes to. */
  readonly languageModel: LanguageModelV4;
  readonly #providerOptions: SharedV4ProviderOptions | undefined;
  readonly #retry: RetryPolicy;

  /** Throws ConfigError for an unsupported model (see `aiSdkModel`) or a bad retry option. */
  constructor(languageModel: LanguageModelV4, options: AiSdkModelOptions = {}) {
    this.languageModel = checkLanguageModel(languageModel);
    this.provider = options.provider ?? languageModel.provider;
    this.model = languageModel.modelId;
    this.#providerOptions = options.providerOptions;
    this.#retry = retryPolicy({
      model: this.model,
      maxRetries: options.maxRetries,
      retryBaseDelayMs: options.retryBaseDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs,
    });
    const env = options.env ?? process.env;
    for (const name of keyVariables(languageModel.provider, options.apiKeyEnv)) registerSecret(env[name]);
  }

  /** One `doGenerate` call. Rejects with LLMProviderError on a final failure, or with the signal's reason. */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<LLMResponse> {
    const call = callOptionsOf(request, this.#providerOptions, options.signal, options.headers);
    const result = await this.#attempts((o) => this.languageModel.doGenerate(o), call, options.signal);
    return responseOf(result, this.model);
  }

  /** One `doStream` call; the last event is `done`. Rejects like `complete`; stopping early cancels the stream. */
  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    const signal = options.signal;
    const call = callOptionsOf(request, this.#providerOptions, signal, options.headers);
    const started = await this.#attempts(
      (o) => this.languageModel.doStream(o),
      call,
      signal,
      (late: LanguageModelV4StreamResult) => late.stream.cancel(),
    );
    try {
      yield* streamEventsOf(this.provider, this.model, partsOf(started.stream, signal));
    } catch (error) {
      signal?.throwIfAborted();
      throw providerError(this.provider, error, 1);
    }
  }

  /** The configuration a trace records; it marks the model as one that is passed in code, never rebuilt from it. */
  toConfig(): LlmConfig {
    return {
      provider: this.provider,
      model: this.model,
      sdk: AI_SDK,
      specification_version: AI_SDK_SPECIFICATION_VERSION,
      max_retries: this.#retry.maxRetries,
    };
  }

  /** `send` until it succeeds, retrying what may succeed later; every final failure is an LLMProviderError. */
  async #attempts<T>(
    send: (options: LanguageModelV4CallOptions) => PromiseLike<T>,
    call: LanguageModelV4CallOptions,
    signal: AbortSignal | undefined,
    discard?: (late: T) => unknown,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await untilAborted(() => send(call), signal, discard);
      } catch (error) {
        signal?.throwIfAborted();
        const decision = retryDecision(error, this.#retry, attempt);
        if (!decision.retry) throw providerError(this.provider, error, attempt, decision.note);
        await sleep(decision.waitMs, signal);
      }
    }
  }
}

/**
 * An AI SDK language model (the V4 specification of `@ai-sdk/provider` 4.x, what `ai` 7.x and its provider packages
 * build) as an agentkit ChatModel: messages, tool definitions, tool calls and results, settings, streaming, usage and
 * finish reasons mapped both ways (docs/llm-providers.md has the table). Throws ConfigError, in one line, for a model
 * id string, a value that is not a language model, or a model of another specification version (naming it and the
 * supported one). A trace records the provider and model id; replay reruns it from the trace in recorded mode, and
 * live reruns need the model object again (`replay fork --agent`, `fork.withModel(...)`).
 */
export function aiSdkModel(model: LanguageModelV4, options: AiSdkModelOptions = {}): AiSdkModel {
  return new AiSdkModel(model, options);
}

function keyVariables(provider: string, given: string | readonly string[] | undefined): readonly string[] {
  if (given !== undefined) return typeof given === 'string' ? [given] : given;
  const prefix = provider
    .split('.')[0]!
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');
  return [`${prefix}_API_KEY`];
}
