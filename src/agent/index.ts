/** Agents: the tool loop, streaming, results, and rebuilding an agent from its trace. */
export { Agent, type AgentOptions, type PromptContext, type RebuildOptions, type RunOptions, type SystemPrompt } from './agent.js';
export {
  agentConfig,
  agentConfigDict,
  agentConfigFromDict,
  samplingSettings,
  DEFAULT_MAX_ITERATIONS,
  type AgentConfig,
  type AgentConfigDict,
  type AgentConfigOptions,
} from './config.js';
export { agentDefinitionFromAttributes, RECONSTRUCTION_ATTRIBUTES, type AgentDefinition } from './definition.js';
export { MaxIterationsError, ReconstructionError } from './errors.js';
export { isRegistryPrompt, PROMPT_ATTR, type RegistryPrompt, type ResolvedRegistryPrompt } from './registry-prompt.js';
export { runToolLoop } from './loop.js';
export { callModel } from './turn.js';
export { executeToolCall, runToolCall } from './tool-step.js';
export type { AgentRun, AgentStreamEvent, LoopState, RunHooks } from './run-state.js';
export { balanceToolMessages, toolMessageImbalance, NOT_RUN_NOTE, UNANSWERED_TOOL_RESULT } from './durable/balance.js';
export { runnerOfCheckpoint, runnerOfExecution, type CheckpointOwner } from './durable/owner.js';
export { agentStepOf, turnNodeId, toolNodeId, withinPath, type AgentStep } from './durable/rows.js';
export { detectShape, scopedLatest, type ResumeShape } from './durable/shapes.js';
export type { AgentResumeOptions } from './durable/resume.js';
export type { AgentForkOptions } from './durable/fork.js';
