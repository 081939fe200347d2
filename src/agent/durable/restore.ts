/** Reading an agent row's saved state back into a loop state and the tool call to re-invoke. */
import { ChainCheckpointError } from '../../durability/errors.js';
import { isPlainObject } from '../../durability/json.js';
import type { Message, ToolCall } from '../../llm/messages.js';
import type { Checkpoint } from '../../types.js';
import type { LoopState } from '../run-state.js';

/** The saved messages of `row`; ChainCheckpointError when the row holds none. */
export function savedMessages(row: Checkpoint): Message[] {
  const messages = row.state_snapshot.messages;
  if (!Array.isArray(messages)) {
    throw new ChainCheckpointError(`checkpoint '${row.checkpoint_id}' (${row.node_id}) of execution '${row.execution_id}' holds no saved messages (state_snapshot.messages)`);
  }
  return structuredClone(messages) as unknown as Message[];
}

/** A fresh loop state at `turn` with `messages` (tool-call records and tokens count from this call on). */
export function loopState(messages: Message[], turn: number): LoopState {
  return { messages, turn, toolCalls: [], tokensUsed: 0 };
}

/**
 * The call a tool row saved: its id and name from the state, its arguments from `node_input`; the model's raw
 * arguments text (kept when it was not a JSON object) comes from the assistant message that asked for it.
 */
export function savedToolCall(row: Checkpoint, messages: readonly Message[], toolName: string): ToolCall {
  const id = row.state_snapshot.tool_call_id;
  if (typeof id !== 'string') {
    throw new ChainCheckpointError(`checkpoint '${row.checkpoint_id}' (${row.node_id}) of execution '${row.execution_id}' holds no tool_call_id`);
  }
  const call: ToolCall = { id, name: toolName, arguments: isPlainObject(row.node_input) ? (structuredClone(row.node_input) as ToolCall['arguments']) : {} };
  for (const message of messages) {
    const asked = message.role === 'assistant' ? message.tool_calls?.find((c) => c.id === id) : undefined;
    if (asked?.raw_arguments !== undefined) call.raw_arguments = asked.raw_arguments;
  }
  return call;
}
