/** Rebuilding a model from its configuration (what replay does with a root span's `agent.llm.config`). */
import { ConfigError } from '../errors.js';
import { AnthropicModel } from './anthropic/model.js';
import { OpenAICompatibleModel } from './openai/model.js';
import { isOpenAIProvider } from './presets.js';
import type { ChatModel, LlmConfig } from './types.js';

/** What a configuration cannot carry: the key, header values, and where to read the key from. */
export interface ModelSecrets {
  apiKey?: string;
  /** Header values; headers named in the config but missing here are not sent. */
  headers?: Record<string, string>;
  env?: Record<string, string | undefined>;
}

/**
 * A model from its configuration. OpenAI-compatible presets and `anthropic` are rebuilt with the key read from
 * `api_key_env` (or `secrets.apiKey`). Throws ConfigError for models that run code (`scripted`, `function`) and for
 * models adapted from another SDK's model object (`sdk` set, such as an AI SDK model): pass such a model explicitly.
 */
export function createModel(config: LlmConfig, secrets: ModelSecrets = {}): ChatModel {
  // Checked first: an AI SDK provider id may equal one of ours ('openai'), and rebuilding ours instead would call a
  // different client, with a different key, than the run that was recorded.
  if (config.sdk !== undefined) {
    throw new ConfigError(
      `cannot build the ${config.sdk} model '${config.provider}' '${config.model}' from its configuration (its provider package holds the key and endpoint); pass the model object itself (llm option, or the agent module given to replay fork --agent)`,
    );
  }
  const headers = secrets.headers
    ? Object.fromEntries(
        Object.keys(config.headers ?? secrets.headers)
          .filter((h) => h in secrets.headers!)
          .map((h) => [h, secrets.headers![h]!]),
      )
    : undefined;
  const common = {
    model: config.model,
    apiKey: secrets.apiKey,
    apiKeyEnv: config.api_key_env,
    baseUrl: config.base_url,
    headers,
    timeoutMs: config.timeout_ms,
    maxRetries: config.max_retries,
    env: secrets.env,
  };
  if (config.provider === 'anthropic') {
    return new AnthropicModel({ ...common, anthropicVersion: config.anthropic_version, defaultMaxTokens: config.default_max_tokens });
  }
  if (isOpenAIProvider(config.provider)) {
    return new OpenAICompatibleModel({ ...common, provider: config.provider, apiVersion: config.api_version });
  }
  throw new ConfigError(`cannot build a '${config.provider}' model from its configuration; pass the model itself (llm option)`);
}
