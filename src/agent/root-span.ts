/** The root `agent.<name>` span's attributes: the agent's definition when the run starts, its outcome when it ends. */
import type { Span } from '@opentelemetry/api';
import { AGENT_ATTR } from '../tracing/attributes.js';
import type { AgentDefinition } from './definition.js';

/** Attributes set when the run starts. The system prompt is set separately, once resolved (and only with payloads). */
export function startAttributes(definition: AgentDefinition, executionId: string, input: string): Record<string, string> {
  return {
    [AGENT_ATTR.name]: definition.name,
    [AGENT_ATTR.runnerType]: 'agent',
    [AGENT_ATTR.executionId]: executionId,
    [AGENT_ATTR.input]: input,
    [AGENT_ATTR.config]: JSON.stringify(definition.config),
    [AGENT_ATTR.tools]: JSON.stringify(definition.tools),
    [AGENT_ATTR.guardrails]: JSON.stringify(definition.guardrails),
    [AGENT_ATTR.llmProvider]: definition.llm.provider,
    [AGENT_ATTR.llmModel]: definition.llm.model,
    [AGENT_ATTR.llmConfig]: JSON.stringify(definition.llm),
  };
}

/** Attributes set when the run ends. */
export function recordEnd(span: Span, output: string, tokensUsed: number, latencyMs: number, status: string): void {
  span.setAttributes({
    [AGENT_ATTR.output]: output,
    [AGENT_ATTR.tokensUsed]: tokensUsed,
    [AGENT_ATTR.latencyMs]: latencyMs,
    [AGENT_ATTR.status]: status,
  });
}
