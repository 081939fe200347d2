/**
 * The rows an Agent writes (reference §2.2), one place for their shapes so writing and reading agree:
 *
 *   | when                | node_id              | step_type | status      | agent_path          | state_snapshot                              |
 *   | before model turn N | `turn:N`             | llm_call  | completed   | `<base>`            | `{messages, turn}`                          |
 *   | before a tool call  | `turn:N/tool:<name>` | tool_call | completed   | `<base>/tool:<name>`| `{messages, turn, tool_name, tool_call_id}` |
 *   | a tool interrupts   | `turn:N/tool:<name>` | hitl_pause| interrupted | `<base>/tool:<name>`| same as the tool row (+ the pending row)    |
 *   | a fork starts       | `__fork_origin__`    | fork_origin | completed | `<base>`            | `{messages, turn}` or `{input}`             |
 *   | the run ends        | `run_end`            | run_end   | completed/failed | `<base>`       | `{messages, turn}`                          |
 *
 * A tool row's `node_input` is the call's arguments. `node_index` and `iteration` are the turn.
 */
import type { CheckpointWrite } from '../../durability/checkpointer.js';
import type { JsonRecord } from '../../durability/json.js';
import { FORK_ORIGIN } from '../../durability/run-end.js';
import type { Message, ToolCall } from '../../llm/messages.js';
import { joinAgentPath } from '../../scope/scope.js';
import type { Checkpoint } from '../../types.js';

/** Where an agent's rows go: its execution, its name (`chain_name`) and its path. */
export interface AgentRows {
  executionId: string;
  agentName: string;
  agentPath: string;
}

/** `turn:N`. */
export function turnNodeId(turn: number): string {
  return `turn:${turn}`;
}

/** `turn:N/tool:<name>`. */
export function toolNodeId(turn: number, toolName: string): string {
  return `turn:${turn}/tool:${toolName}`;
}

/** The agent path a tool runs under: `<base>/tool:<name>`. */
export function toolPath(agentPath: string, toolName: string): string {
  return joinAgentPath(agentPath, `tool:${toolName}`);
}

/** The state a turn row saves. */
export function turnState(messages: readonly Message[], turn: number): JsonRecord {
  return { messages: messages as unknown as JsonRecord[], turn };
}

/** The state a tool row (and an interrupted tool row) saves. */
export function toolState(messages: readonly Message[], turn: number, call: ToolCall): JsonRecord {
  return { messages: messages as unknown as JsonRecord[], turn, tool_name: call.name, tool_call_id: call.id };
}

export function turnRow(rows: AgentRows, messages: readonly Message[], turn: number): CheckpointWrite {
  return {
    execution_id: rows.executionId,
    chain_name: rows.agentName,
    node_id: turnNodeId(turn),
    node_index: turn,
    status: 'completed',
    step_type: 'llm_call',
    state_snapshot: turnState(messages, turn),
    iteration: turn,
    agent_path: rows.agentPath,
  };
}

export function toolRow(rows: AgentRows, messages: readonly Message[], turn: number, call: ToolCall): CheckpointWrite {
  return {
    execution_id: rows.executionId,
    chain_name: rows.agentName,
    node_id: toolNodeId(turn, call.name),
    node_index: turn,
    status: 'completed',
    step_type: 'tool_call',
    state_snapshot: toolState(messages, turn, call),
    node_input: call.arguments,
    iteration: turn,
    agent_path: toolPath(rows.agentPath, call.name),
  };
}

const TURN = /^turn:(\d+)$/;
const TOOL = /^turn:(\d+)\/tool:(.+)$/;

/** A step an agent can continue from, as read back from a row. */
export type AgentStep = { kind: 'turn'; turn: number } | { kind: 'tool'; turn: number; toolName: string } | { kind: 'fork_origin' };

/** What kind of agent step `row` records, or null for a row an agent did not write (a chain's, a handoff, a terminal row). */
export function agentStepOf(row: Pick<Checkpoint, 'node_id' | 'step_type'>): AgentStep | null {
  if (row.step_type === 'run_end') return null;
  const tool = TOOL.exec(row.node_id);
  if (tool) return { kind: 'tool', turn: Number(tool[1]), toolName: tool[2]! };
  const turn = TURN.exec(row.node_id);
  if (turn) return { kind: 'turn', turn: Number(turn[1]) };
  if (row.node_id === FORK_ORIGIN) return { kind: 'fork_origin' };
  return null;
}

/** True when `path` is `prefix` or below it (`prefix/...`); a null prefix matches every path. */
export function withinPath(path: string | null, prefix: string | null | undefined): boolean {
  if (prefix == null || prefix === '') return true;
  return path === prefix || path?.startsWith(`${prefix}/`) === true;
}
