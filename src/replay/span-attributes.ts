/**
 * Attributes a rerun adds to its own spans, so its trace says what it replays and where each answer came from.
 * Kept apart from the runtime's attribute table: they are set from replay code only.
 */
export const REPLAY_ATTR = {
  /** On the rerun's agent span: the trace it replays. */
  sourceTraceId: 'agentkit.replay.source_trace_id',
  /** On the rerun's agent span: the agent span it reruns. */
  sourceSpanId: 'agentkit.replay.source_span_id',
  /** On the rerun's agent span: the fork step (the divergence anchor). */
  forkStep: 'agentkit.replay.fork_step',
  /** On the rerun's agent span: `live` or `recorded`. */
  mode: 'agentkit.replay.mode',
  /** On each model span: `recorded` (answered from the trace) or `live`. */
  llmSource: 'agentkit.replay.llm_source',
  /** On each tool span: `live`, `recorded` or `override`. */
  toolSource: 'agentkit.replay.tool_source',
} as const;
