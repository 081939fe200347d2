/** Reading an agent row's saved state back into a loop state and the tool call to re-invoke. */
import { ChainCheckpointError } from '../../durability/errors.js';
import { isPlainObject } from '../../durability/json.js';
import type { Message, ToolCall } from '../../llm/messages.js';
import type { Checkpoint, ToolCallRecord } from '../../types.js';
import type { LoopState } from '../run-state.js';

/** The saved messages of `row`; ChainCheckpointError when the row holds none. */
export function savedMessages(row: Checkpoint): Message[] {
  const messages = row.state_snapshot.messages;
  if (!Array.isArray(messages)) {
    throw new ChainCheckpointError(
      `checkpoint '${row.checkpoint_id}' (${row.node_id}) of execution '${row.execution_id}' holds no saved messages (state_snapshot.messages)`,
    );
  }
  return structuredClone(messages) as unknown as Message[];
}

/**
 * A loop state at `turn` with `messages`. With `recordCalls` (a resume), the tool-call records of the calls the saved
 * history already answered are rebuilt from it, so a resumed run's `tool_calls` covers the whole execution; tokens
 * count from this call on.
 */
export function loopState(messages: Message[], turn: number, recordCalls = false): LoopState {
  return { messages, turn, toolCalls: recordCalls ? toolCallsOf(messages) : [], tokensUsed: 0 };
}

/**
 * The records of the tool calls a history answered, in order: `iteration` is the model turn that asked (the count of
 * assistant messages before it), `output` the result as JSON when it parses (else the text), `error` for a failed
 * call. Calls without a result, or answered by the `[no result: ...]` note of a call that never ran, are left out.
 */
export function toolCallsOf(messages: readonly Message[]): ToolCallRecord[] {
  const results = new Map<string, Extract<Message, { role: 'tool' }>>();
  for (const message of messages) if (message.role === 'tool') results.set(message.tool_call_id, message);
  const records: ToolCallRecord[] = [];
  let turn = 0;
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      const result = results.get(call.id);
      if (!result || (result.is_error === true && result.content.startsWith('[no result: '))) continue;
      const record: ToolCallRecord = { iteration: turn, tool_name: call.name, arguments: structuredClone(call.arguments), tool_call_id: call.id };
      if (result.is_error === true) record.error = result.content.replace(/^Error: /, '');
      else record.output = parsedOutput(result.content);
      records.push(record);
    }
    turn += 1;
  }
  return records;
}

function parsedOutput(content: string): unknown {
  try {
    const value = JSON.parse(content) as unknown;
    return typeof value === 'object' && value !== null ? value : content;
  } catch {
    return content;
  }
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
