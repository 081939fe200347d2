/**
 * Span names and attribute keys agentkit writes. Names are the spec's (`agent.<name>`, `llm.chat_completion`,
 * `tool.<tool_name>` with `agentkit.tool.name`); LLM spans also carry OpenTelemetry GenAI attributes (`gen_ai.*`).
 */

export const SPAN = {
  agent: (name: string) => `agent.${name}`,
  llm: 'llm.chat_completion',
  tool: (name: string) => `tool.${name}`,
  guardrail: (name: string) => `guardrail.${name}`,
} as const;

/**
 * Attributes of a run's root recorded under a caller's span (docs/adr/0009): the caller's ids, and the trace id the
 * run's record has in the store (on exported spans too, so a trace seen in a collector leads to the record).
 */
export const TRACE_ATTR = {
  callerTraceId: 'agentkit.caller.trace_id',
  callerSpanId: 'agentkit.caller.span_id',
  localTraceId: 'agentkit.local_trace_id',
} as const;

/** Attributes of the root `agent.<name>` span; the `agent.*` definition keys rebuild the agent. */
export const AGENT_ATTR = {
  name: 'agent.name',
  runnerType: 'agentkit.runner.type',
  executionId: 'agent.execution_id',
  input: 'agent.input',
  output: 'agent.output',
  config: 'agent.config',
  tools: 'agent.tools',
  guardrails: 'agent.guardrails',
  llmProvider: 'agent.llm.provider',
  llmModel: 'agent.llm.model',
  llmConfig: 'agent.llm.config',
  systemPrompt: 'agent.system_prompt',
  tokensUsed: 'agent.tokens_used',
  latencyMs: 'agent.latency_ms',
  status: 'agent.status',
} as const;

/** Attributes of `llm.chat_completion` spans. */
export const LLM_ATTR = {
  system: 'gen_ai.system',
  operation: 'gen_ai.operation.name',
  requestModel: 'gen_ai.request.model',
  temperature: 'gen_ai.request.temperature',
  maxTokens: 'gen_ai.request.max_tokens',
  topP: 'gen_ai.request.top_p',
  messages: 'gen_ai.request.messages',
  tools: 'gen_ai.request.tools',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  content: 'gen_ai.response.content',
  toolCalls: 'gen_ai.response.tool_calls',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  turn: 'agentkit.llm.turn',
  streamed: 'agentkit.llm.streamed',
} as const;

/** Attributes of `tool.<name>` spans (`tool.name` and `agentkit.tool.name` both, as tools elsewhere expect either). */
export const TOOL_ATTR = {
  name: 'tool.name',
  agentkitName: 'agentkit.tool.name',
  replayClass: 'agentkit.tool.replay_class',
  callId: 'tool.call_id',
  origin: 'tool.origin',
  status: 'tool.status',
  args: 'tool.args',
  result: 'tool.result',
  error: 'tool.error',
  /** The agentkit error code of a failed call (`ssrf_blocked`, `tool_execution_error`, ...). */
  errorCode: 'agentkit.tool.error_code',
  turn: 'agentkit.tool.turn',
} as const;

/** Attributes of `guardrail.<name>` spans. */
export const GUARDRAIL_ATTR = {
  name: 'agentkit.guardrail.name',
  position: 'agentkit.guardrail.position',
  outcome: 'agentkit.guardrail.outcome',
  blocking: 'agentkit.guardrail.blocking',
  message: 'agentkit.guardrail.message',
} as const;

/**
 * Whether payloads (resolved system prompt, LLM messages and responses, tool arguments and results) are recorded:
 * yes unless `AGENTKIT_TRACE_PAYLOADS=0`. Read when a run starts, so one process can run both ways.
 */
export function payloadsEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return env.AGENTKIT_TRACE_PAYLOADS !== '0';
}
