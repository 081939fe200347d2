/**
 * What a fork changes before its rerun: the system prompt, the input, configuration values (sampling settings, the
 * model name, the iteration bound), canned tool responses, tools and a model supplied in code, and the determinism
 * settings.
 */
import type { RegistryPrompt } from '../agent/registry-prompt.js';
import type { AgentConfigOptions } from '../agent/config.js';
import { ConfigError } from '../errors.js';
import type { ChatModel } from '../llm/types.js';
import type { Tool } from '../tools/tool.js';

/** Configuration a fork may change: camelCase as in code, or the spec's LlmParams names (`max_tokens`, `top_p`). */
export interface ConfigPatch extends AgentConfigOptions {
  /** Another model name for the same provider. */
  model?: string;
  max_tokens?: number;
  top_p?: number;
  max_iterations?: number;
}

export interface Modifications {
  /** The new system prompt: a text, or a registry reference (the rerun's agent span then records its name and version). */
  prompt: string | RegistryPrompt | null;
  input: string | null;
  config: AgentConfigOptions;
  model: string | null;
  toolOverrides: Map<string, unknown>;
  tools: Map<string, Tool>;
  /** The model to call live, supplied in code (a model the trace cannot rebuild, such as an AI SDK model). */
  llm: ChatModel | null;
}

export function noModifications(): Modifications {
  return { prompt: null, input: null, config: {}, model: null, toolOverrides: new Map(), tools: new Map(), llm: null };
}

/** The agent input a `modifyInput` value stands for: a string, an object's `input` string, else the value as JSON. */
export function inputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { input?: unknown }).input === 'string')
    return (value as { input: string }).input;
  if (value === undefined) throw new ConfigError('modifyInput needs a value (a string, or an object with an input string)');
  const text = JSON.stringify(value);
  if (text === undefined) throw new ConfigError(`modifyInput cannot use a ${typeof value} as an input`);
  return text;
}

/** A patch split into configuration options and a model name; ConfigError for an unknown key. */
export function splitConfigPatch(patch: ConfigPatch): { config: AgentConfigOptions; model: string | null } {
  const known = new Set([
    'model',
    'max_tokens',
    'top_p',
    'max_iterations',
    'maxIterations',
    'toolChoice',
    'temperature',
    'maxTokens',
    'topP',
    'seed',
    'stop',
    'parallelToolCalls',
  ]);
  for (const key of Object.keys(patch)) if (!known.has(key)) throw new ConfigError(`modifyConfig: unknown setting '${key}' (known: ${[...known].join(', ')})`);
  const { model, max_tokens, top_p, max_iterations, ...rest } = patch;
  const config: AgentConfigOptions = { ...rest };
  if (max_tokens !== undefined) config.maxTokens = max_tokens;
  if (top_p !== undefined) config.topP = top_p;
  if (max_iterations !== undefined) config.maxIterations = max_iterations;
  if (model !== undefined && (typeof model !== 'string' || model === '')) throw new ConfigError('modifyConfig: model must be a non-empty string');
  return { config, model: model ?? null };
}

/** Settings whose change the recorded model spans cannot show, so a rerun with one goes live from the first call. */
export const UNRECORDED_SETTINGS: ReadonlyArray<keyof AgentConfigOptions> = ['seed', 'stop', 'toolChoice', 'parallelToolCalls'];
