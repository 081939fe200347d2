/**
 * A system prompt that comes from a prompt registry: it resolves, per run, to a text plus the name and version that
 * produced it, and the root `agent.<name>` span records that name and version so a trace says which version ran (and
 * replay can try another). The runtime only knows this shape; `agentkit`'s PromptRegistry (`src/prompts/`) makes them.
 */
import type { Span } from '@opentelemetry/api';

/** What a registry prompt resolved to for one run. */
export interface ResolvedRegistryPrompt {
  /** The rendered text the run uses as its system prompt. */
  text: string;
  /** The prompt's name in its registry. */
  name: string;
  /** The version that was rendered. */
  version: number;
  /** The label the reference followed to that version, when it named one. */
  label?: string;
}

/** What `PromptContext` a registry prompt receives is the agent's; typed loosely here to stay a leaf module. */
export interface RegistryPrompt<C = unknown> {
  /** Marks the object as a registry prompt (a plain function or string is not one). */
  readonly registryPrompt: true;
  /** The prompt's name (for messages before it is resolved). */
  readonly promptName: string;
  /** Resolve the version to use now (a label is followed at each run) and render it for this run. */
  resolve(prompt: C): Promise<ResolvedRegistryPrompt>;
}

/** Span attributes naming the registry prompt a run used. */
export const PROMPT_ATTR = {
  name: 'agent.prompt.name',
  version: 'agent.prompt.version',
  label: 'agent.prompt.label',
} as const;

/** True for a registry prompt. */
export function isRegistryPrompt(value: unknown): value is RegistryPrompt {
  return typeof value === 'object' && value !== null && (value as { registryPrompt?: unknown }).registryPrompt === true;
}

/** Record the resolved prompt's name, version and label on the run's root span. */
export function recordRegistryPrompt(span: Span, resolved: ResolvedRegistryPrompt): void {
  span.setAttribute(PROMPT_ATTR.name, resolved.name);
  span.setAttribute(PROMPT_ATTR.version, resolved.version);
  if (resolved.label !== undefined) span.setAttribute(PROMPT_ATTR.label, resolved.label);
}
