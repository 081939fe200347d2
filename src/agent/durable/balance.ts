/**
 * The tool-message invariant: every assistant message that asked for tools is followed by exactly one result per
 * `tool_call_id` before the next non-tool message. Providers reject a history that breaks it (OpenAI: "An assistant
 * message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"), and a resumed or
 * forked run restores a history cut in the middle of a turn: the calls after the one that paused or crashed never ran.
 */
import { toolMessage, type Message, type ToolMessage } from '../../llm/messages.js';

/** What a synthetic result says: `[no result: <note>]`. */
export const UNANSWERED_TOOL_RESULT = (note: string): string => `[no result: ${note}]`;

/** The note of a sibling call that was not dispatched because an earlier call of its turn paused or crashed. */
export const NOT_RUN_NOTE = 'the agent was interrupted before this tool ran; it was not run, call it again if it is still needed';

/**
 * A balanced copy of `messages`: each unanswered tool call is answered, right after the results its turn does have,
 * with `[no result: <note>]` (marked as an error so the model does not take it for output); a result answering no call
 * of the turn it follows (an orphan), or a second result for the same call, is dropped. Balanced input comes back
 * equal. The input is not modified.
 */
export function balanceToolMessages(messages: readonly Message[], note: string = NOT_RUN_NOTE): Message[] {
  const out: Message[] = [];
  let open: { ids: string[]; names: Map<string, string>; answered: Set<string> } | null = null;
  const close = () => {
    if (!open) return;
    for (const id of open.ids) {
      if (!open.answered.has(id)) out.push(toolMessage(id, open.names.get(id)!, UNANSWERED_TOOL_RESULT(note), true));
    }
    open = null;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      if (open?.names.has(message.tool_call_id) && !open.answered.has(message.tool_call_id)) {
        open.answered.add(message.tool_call_id);
        out.push(structuredClone(message));
      }
      continue;
    }
    close();
    out.push(structuredClone(message));
    if (message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
      open = { ids: message.tool_calls.map((c) => c.id), names: new Map(message.tool_calls.map((c) => [c.id, c.name])), answered: new Set() };
    }
  }
  close();
  return out;
}

/** The problems of a history against the invariant (empty when balanced): unanswered calls and orphan results. */
export function toolMessageImbalance(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  let open: Map<string, boolean> | null = null;
  const close = () => {
    if (open) for (const [id, answered] of open) if (!answered) problems.push(`tool call '${id}' has no result`);
    open = null;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const m: ToolMessage = message;
      // biome-ignore lint/complexity/useOptionalChain: `!open ||` narrows `open` for the else branch; an optional chain would not
      if (!open || open.get(m.tool_call_id) !== false) problems.push(`tool result '${m.tool_call_id}' answers no open tool call`);
      else open.set(m.tool_call_id, true);
      continue;
    }
    close();
    if (message.role === 'assistant' && message.tool_calls?.length) open = new Map(message.tool_calls.map((c) => [c.id, false]));
  }
  close();
  return problems;
}
