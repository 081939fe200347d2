/**
 * What one run carries through the tool loop, and the seam the durability layer plugs into.
 *
 * `LoopState` is the whole resumable state of a run: the message history (plain JSON), the turn about to run, the
 * tool calls made and the tokens used. It is exactly what a checkpoint saves, and a run can start from a saved one
 * (`RunOptions.startState`).
 *
 * `RunHooks` are called at the two boundaries the spec checkpoints at: before each model turn (`turn:N`) and before
 * each tool call (`turn:N/tool:<name>`), with the state as it stands at that moment; plus after each tool call.
 * A hook may throw to stop the run; a control-flow signal thrown by a tool (see tools/control-flow.ts) propagates
 * out of the loop untouched for the executor above to handle.
 */
import type { JsonObject, Message, ToolCall } from '../llm/messages.js';
import type { ChatModel, SamplingSettings, ToolDefinition, Usage } from '../llm/types.js';
import type { Guardrail } from '../guardrails/guardrail.js';
import type { Tool } from '../tools/tool.js';
import type { ToolOutcome } from '../tools/invoke.js';
import type { AgentResult, ToolCallRecord } from '../types.js';
import type { AgentConfig } from './config.js';
import type { TracedDecision } from '../tracing/run-status.js';

/** The resumable state of a run. Every field is JSON. */
export interface LoopState {
  messages: Message[];
  /** The 0-based turn about to run (or running). */
  turn: number;
  toolCalls: ToolCallRecord[];
  tokensUsed: number;
}

/** Events of `agent.stream()`. */
export type AgentStreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_end'; id: string; name: string; arguments: ToolCall['arguments'] }
  | { type: 'tool_result'; id: string; name: string; ok: boolean; content: string }
  | { type: 'usage'; usage: Usage }
  /** The run paused (a tool called `interrupt()`): sent before `done`, whose result is the paused AgentResult. */
  | { type: 'paused'; reason: string; executionId: string; context: JsonObject }
  | { type: 'done'; result: AgentResult };

/** One run in progress: the agent's parts, this run's identity and settings. */
export interface AgentRun {
  agentName: string;
  llm: ChatModel;
  tools: ReadonlyMap<string, Tool>;
  toolDefinitions: readonly ToolDefinition[];
  /** The tools' names, as recorded on model spans. */
  toolNames: readonly string[];
  guardrails: readonly Guardrail[];
  config: AgentConfig;
  settings: SamplingSettings;
  executionId: string;
  /** The `context` value passed to `run()`. */
  context: unknown;
  signal: AbortSignal;
  /** Record payloads on spans (AGENTKIT_TRACE_PAYLOADS). */
  payloads: boolean;
  /** The store this run's trace and guardrail events go to. */
  dbPath: string;
  hooks: RunHooks;
  /** Set by `stream()`: receives events as they happen. */
  emit: ((event: AgentStreamEvent) => void) | undefined;
  /** A resume's re-invoked call and the decision it resumes with: its tool span records the decision. */
  resumedCall?: { callId: string; decision: TracedDecision } | undefined;
}

/** Callbacks at the loop's boundaries (the durability layer's seam). */
export interface RunHooks {
  /** Before model turn `state.turn`, history final for that turn. */
  beforeTurn?(run: AgentRun, state: LoopState): void | Promise<void>;
  /** Before `call` is dispatched; `state.messages` already holds the assistant message that asked for it. */
  beforeToolCall?(run: AgentRun, state: LoopState, call: ToolCall): void | Promise<void>;
  /** After `call`'s result was appended to `state.messages` and `state.toolCalls`. */
  afterToolCall?(run: AgentRun, state: LoopState, call: ToolCall, outcome: ToolOutcome): void | Promise<void>;
}
