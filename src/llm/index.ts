/** The LLM layer: one message model, stream events, OpenAI-compatible and Anthropic providers, AI SDK models, retries. */
export {
  assistantMessage,
  cloneMessages,
  systemMessage,
  toolMessage,
  userMessage,
  type AssistantMessage,
  type JsonObject,
  type JsonValue,
  type Message,
  type SystemMessage,
  type ToolCall,
  type ToolMessage,
  type UserMessage,
} from './messages.js';
export {
  usageOf,
  zeroUsage,
  type CallOptions,
  type ChatModel,
  type ChatRequest,
  type LlmConfig,
  type LLMResponse,
  type SamplingSettings,
  type StreamEvent,
  type ToolChoice,
  type ToolDefinition,
  type Usage,
} from './types.js';
export { LLMProviderError } from './errors.js';
export { collectStream, eventsOf } from './events.js';
export { OpenAICompatibleModel, type OpenAICompatibleOptions } from './openai/model.js';
export { AnthropicModel, type AnthropicOptions } from './anthropic/model.js';
export { ANTHROPIC_DEFAULTS, OPENAI_COMPATIBLE_PRESETS, isOpenAIProvider, type OpenAIPreset, type OpenAIProviderName } from './presets.js';
export { createModel, type ModelSecrets } from './create.js';
export { AI_SDK, AI_SDK_SPECIFICATION_VERSION, aiSdkModel, AiSdkModel, type AiSdkModelOptions } from './ai-sdk/index.js';
export type { HttpModelOptions } from './config.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export { argumentsText, toolCallFromText } from './tool-arguments.js';
