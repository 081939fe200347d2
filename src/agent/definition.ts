/**
 * An agent's definition as a trace records it: the root `agent.<name>` span's reconstruction attributes
 * (`agent.name`, `agent.system_prompt`, `agent.llm.config`, `agent.tools`, `agent.guardrails`, `agent.config`).
 * Replay decodes a stored root span into this and rebuilds the agent from it (`Agent.fromDefinition`).
 */
import type { GuardrailDict } from '../guardrails/guardrail.js';
import type { LlmConfig } from '../llm/types.js';
import { AGENT_ATTR } from '../tracing/attributes.js';
import type { ToolDict } from '../tools/tool.js';
import type { AgentConfigDict } from './config.js';
import { ReconstructionError } from './errors.js';

export interface AgentDefinition {
  name: string;
  /** The resolved system prompt; null when the trace was recorded with payloads off (it does not round-trip then). */
  system_prompt: string | null;
  llm: LlmConfig;
  tools: ToolDict[];
  guardrails: GuardrailDict[];
  config: AgentConfigDict;
}

/** The attributes that must be present on a root span for the agent to be rebuilt. */
export const RECONSTRUCTION_ATTRIBUTES = [AGENT_ATTR.config, AGENT_ATTR.tools, AGENT_ATTR.guardrails, AGENT_ATTR.llmConfig] as const;

/**
 * Decode a root span's attributes (as stored: JSON strings) into a definition. Throws ReconstructionError naming
 * what is missing or unreadable (traces recorded before reconstruction attributes existed have none of them).
 */
export function agentDefinitionFromAttributes(attributes: Record<string, unknown>, spanName?: string): AgentDefinition {
  const missing = RECONSTRUCTION_ATTRIBUTES.filter((key) => typeof attributes[key] !== 'string');
  if (missing.length > 0) {
    throw new ReconstructionError(
      `the root span has no ${missing.join(', ')}: this trace was not recorded with reconstruction attributes, so the agent cannot be rebuilt from it`,
    );
  }
  const name = typeof attributes[AGENT_ATTR.name] === 'string' ? (attributes[AGENT_ATTR.name] as string) : spanName?.replace(/^agent\./, '');
  if (!name) throw new ReconstructionError('the root span has no agent.name');
  const prompt = attributes[AGENT_ATTR.systemPrompt];
  return {
    name,
    system_prompt: typeof prompt === 'string' ? prompt : null,
    llm: decode<LlmConfig>(attributes, AGENT_ATTR.llmConfig, (v) => isObject(v) && typeof v.provider === 'string' && typeof v.model === 'string'),
    tools: decode<ToolDict[]>(attributes, AGENT_ATTR.tools, (v) => Array.isArray(v) && v.every((t) => isObject(t) && typeof t.name === 'string')),
    guardrails: decode<GuardrailDict[]>(
      attributes,
      AGENT_ATTR.guardrails,
      (v) => Array.isArray(v) && v.every((g) => isObject(g) && typeof g.name === 'string'),
    ),
    config: decode<AgentConfigDict>(attributes, AGENT_ATTR.config, (v) => isObject(v) && typeof v.max_iterations === 'number'),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decode<T>(attributes: Record<string, unknown>, key: string, valid: (value: unknown) => boolean): T {
  let value: unknown;
  try {
    value = JSON.parse(attributes[key] as string);
  } catch (error) {
    throw new ReconstructionError(`${key} on the root span is not JSON`, { cause: error });
  }
  if (!valid(value)) throw new ReconstructionError(`${key} on the root span does not have the expected shape`);
  return value as T;
}
