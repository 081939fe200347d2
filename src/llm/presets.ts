/**
 * OpenAI-compatible providers by name: the base URL of each, and the environment variable its key is read from
 * (`<PROVIDER>_API_KEY`). Local servers (Ollama, vLLM, LM Studio) need no key; a key set for them is still sent.
 * Any other gateway speaking the protocol is reached with `provider: 'custom'` (or any preset) and a `baseUrl`.
 */

export interface OpenAIPreset {
  /** Default base URL; null when each account has its own (Azure) and `baseUrl` is required. */
  baseUrl: string | null;
  /** Environment variable holding the key. */
  apiKeyEnv: string;
  /** Whether a call without a key is refused up front. */
  keyRequired: boolean;
  /** How the key is sent: `Authorization: Bearer <key>`, or Azure's `api-key: <key>`. */
  auth: 'bearer' | 'api-key';
}

export const OPENAI_COMPATIBLE_PRESETS = {
  openai: { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', keyRequired: true, auth: 'bearer' },
  azure: { baseUrl: null, apiKeyEnv: 'AZURE_API_KEY', keyRequired: true, auth: 'api-key' },
  ollama: { baseUrl: 'http://localhost:11434/v1', apiKeyEnv: 'OLLAMA_API_KEY', keyRequired: false, auth: 'bearer' },
  vllm: { baseUrl: 'http://localhost:8000/v1', apiKeyEnv: 'VLLM_API_KEY', keyRequired: false, auth: 'bearer' },
  lmstudio: { baseUrl: 'http://localhost:1234/v1', apiKeyEnv: 'LMSTUDIO_API_KEY', keyRequired: false, auth: 'bearer' },
  groq: { baseUrl: 'https://api.groq.com/openai/v1', apiKeyEnv: 'GROQ_API_KEY', keyRequired: true, auth: 'bearer' },
  openrouter: { baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY', keyRequired: true, auth: 'bearer' },
  together: { baseUrl: 'https://api.together.xyz/v1', apiKeyEnv: 'TOGETHER_API_KEY', keyRequired: true, auth: 'bearer' },
  deepseek: { baseUrl: 'https://api.deepseek.com/v1', apiKeyEnv: 'DEEPSEEK_API_KEY', keyRequired: true, auth: 'bearer' },
  mistral: { baseUrl: 'https://api.mistral.ai/v1', apiKeyEnv: 'MISTRAL_API_KEY', keyRequired: true, auth: 'bearer' },
  fireworks: { baseUrl: 'https://api.fireworks.ai/inference/v1', apiKeyEnv: 'FIREWORKS_API_KEY', keyRequired: true, auth: 'bearer' },
  custom: { baseUrl: null, apiKeyEnv: 'CUSTOM_API_KEY', keyRequired: false, auth: 'bearer' },
} as const satisfies Record<string, OpenAIPreset>;

/** A preset name. */
export type OpenAIProviderName = keyof typeof OPENAI_COMPATIBLE_PRESETS;

/** True when `name` is one of the OpenAI-compatible presets. */
export function isOpenAIProvider(name: string): name is OpenAIProviderName {
  return Object.hasOwn(OPENAI_COMPATIBLE_PRESETS, name);
}

/** Anthropic's defaults. */
export const ANTHROPIC_DEFAULTS = {
  baseUrl: 'https://api.anthropic.com/v1',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  version: '2023-06-01',
  maxTokens: 4096,
} as const;
