/**
 * Agent configuration: the tool loop's bound and the sampling settings sent with every model call. In code it is
 * camelCase; on the root span (`agent.config`) it is persisted snake_case, with null for settings left to the
 * provider, and read back from there when an agent is rebuilt.
 */
import { ConfigError } from '../errors.js';
import type { SamplingSettings, ToolChoice } from '../llm/types.js';

export interface AgentConfigOptions {
  /** Model calls per run before MaxIterationsError (1-100, default 10). */
  maxIterations?: number;
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed?: number;
  stop?: string[];
  /** OpenAI-compatible providers: allow several tool calls per turn (provider default when unset). */
  parallelToolCalls?: boolean;
}

/** A validated configuration. */
export interface AgentConfig extends AgentConfigOptions {
  maxIterations: number;
}

/** The persisted form (`agent.config`). */
export interface AgentConfigDict {
  max_iterations: number;
  tool_choice: ToolChoice | null;
  temperature: number | null;
  max_tokens: number | null;
  top_p: number | null;
  seed: number | null;
  stop: string[] | null;
  parallel_tool_calls: boolean | null;
}

export const DEFAULT_MAX_ITERATIONS = 10;

/** Validate options into a configuration; every bad value is a ConfigError naming it. */
export function agentConfig(options: AgentConfigOptions = {}): AgentConfig {
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (!Number.isInteger(maxIterations) || maxIterations < 1 || maxIterations > 100) {
    throw new ConfigError(`maxIterations must be an integer from 1 to 100, got ${String(maxIterations)}`);
  }
  const number = (name: string, value: number | undefined, check: (v: number) => boolean, rule: string) => {
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || !check(value)))
      throw new ConfigError(`${name} must be ${rule}, got ${String(value)}`);
  };
  number('temperature', options.temperature, (v) => v >= 0 && v <= 2, 'a number from 0 to 2');
  number('maxTokens', options.maxTokens, (v) => Number.isInteger(v) && v > 0, 'a positive integer');
  number('topP', options.topP, (v) => v > 0 && v <= 1, 'a number in (0, 1]');
  number('seed', options.seed, Number.isInteger, 'an integer');
  if (options.stop !== undefined && (!Array.isArray(options.stop) || options.stop.some((s) => typeof s !== 'string')))
    throw new ConfigError('stop must be a list of strings');
  const choice = options.toolChoice;
  if (
    choice !== undefined &&
    !['auto', 'none', 'required'].includes(choice as string) &&
    !(typeof choice === 'object' && choice !== null && typeof choice.name === 'string')
  ) {
    throw new ConfigError(`toolChoice must be 'auto', 'none', 'required' or { name }, got ${JSON.stringify(choice)}`);
  }
  return { ...options, maxIterations };
}

/** The sampling settings a configuration sends. */
export function samplingSettings(config: AgentConfig): SamplingSettings {
  const settings: SamplingSettings = {};
  if (config.temperature !== undefined) settings.temperature = config.temperature;
  if (config.maxTokens !== undefined) settings.maxTokens = config.maxTokens;
  if (config.topP !== undefined) settings.topP = config.topP;
  if (config.seed !== undefined) settings.seed = config.seed;
  if (config.stop !== undefined) settings.stop = config.stop;
  if (config.toolChoice !== undefined) settings.toolChoice = config.toolChoice;
  if (config.parallelToolCalls !== undefined) settings.parallelToolCalls = config.parallelToolCalls;
  return settings;
}

/** The persisted form of a configuration. */
export function agentConfigDict(config: AgentConfig): AgentConfigDict {
  return {
    max_iterations: config.maxIterations,
    tool_choice: config.toolChoice ?? null,
    temperature: config.temperature ?? null,
    max_tokens: config.maxTokens ?? null,
    top_p: config.topP ?? null,
    seed: config.seed ?? null,
    stop: config.stop ?? null,
    parallel_tool_calls: config.parallelToolCalls ?? null,
  };
}

/** Options from a persisted configuration (null and missing keys mean unset). */
export function agentConfigFromDict(dict: Partial<AgentConfigDict>): AgentConfigOptions {
  const options: AgentConfigOptions = {};
  if (dict.max_iterations != null) options.maxIterations = dict.max_iterations;
  if (dict.tool_choice != null) options.toolChoice = dict.tool_choice;
  if (dict.temperature != null) options.temperature = dict.temperature;
  if (dict.max_tokens != null) options.maxTokens = dict.max_tokens;
  if (dict.top_p != null) options.topP = dict.top_p;
  if (dict.seed != null) options.seed = dict.seed;
  if (dict.stop != null) options.stop = dict.stop;
  if (dict.parallel_tool_calls != null) options.parallelToolCalls = dict.parallel_tool_calls;
  return options;
}
