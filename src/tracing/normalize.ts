/**
 * Trace normalization, the `normalize` flag of `jobScope`: spans written inside a job with `normalize: true` get
 * agentkit's canonical attribute keys next to the keys other instrumentations use, so traces from LangGraph,
 * OpenInference or OpenTelemetry GenAI instrumentation read like agentkit's own in `traces`, the UI and replay. The
 * original keys stay; a canonical key already set is never overwritten. The `framework` flag is recorded as
 * `agentkit.framework` on the root span of every trace started inside the job (as agentkit's own root spans name
 * theirs in the reference SDK).
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { currentJob } from '../config/job-context.js';

/** The attribute the job's framework is recorded under, on the root span of its traces. */
export const FRAMEWORK_ATTR = 'agentkit.framework';

/** Foreign key -> agentkit key, with a value mapping where the vocabularies differ. */
export const NORMALIZE_ALIASES: ReadonlyArray<{ from: string; to: string; value?: (value: AttributeValue) => AttributeValue | undefined }> = [
  { from: 'tool.name', to: 'agentkit.tool.name' },
  { from: 'gen_ai.tool.name', to: 'agentkit.tool.name' },
  { from: 'gen_ai.agent.name', to: 'agent.name' },
  {
    from: 'openinference.span.kind',
    to: 'agentkit.runner.type',
    value: (kind) => ({ LLM: 'llm', TOOL: 'tool', AGENT: 'agent', CHAIN: 'chain' })[String(kind).toUpperCase()],
  },
  { from: 'llm.model_name', to: 'gen_ai.request.model' },
  { from: 'llm.token_count.prompt', to: 'gen_ai.usage.input_tokens' },
  { from: 'llm.token_count.completion', to: 'gen_ai.usage.output_tokens' },
];

/** What the enclosing job asks of a span starting now: null outside a job or when it asks nothing. */
export function jobSpanFlags(): { normalize: boolean; framework: string | undefined } | null {
  const job = currentJob();
  if (!job || (!job.normalize && job.framework === undefined)) return null;
  return { normalize: job.normalize === true, framework: job.framework };
}

/** Add the canonical keys `attributes` lacks (in place); returns it. */
export function normalizeAttributes(attributes: Attributes): Attributes {
  for (const alias of NORMALIZE_ALIASES) {
    const value = attributes[alias.from];
    if (value === undefined || value === null || attributes[alias.to] !== undefined) continue;
    const mapped = alias.value ? alias.value(value) : value;
    if (mapped !== undefined) attributes[alias.to] = mapped;
  }
  return attributes;
}
