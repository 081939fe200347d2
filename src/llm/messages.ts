/**
 * The one message model every provider speaks: system, user, assistant (text and/or tool calls) and tool results.
 * A conversation is plain JSON on purpose: it is recorded on spans and saved as a checkpoint's state, and a restored
 * history must be indistinguishable from the live one. Field names are the persisted ones (`tool_calls`,
 * `tool_call_id`), the same as the OpenAI wire form.
 */

import { cloneJson, type JsonObject, type JsonValue } from '../json.js';

export type { JsonObject, JsonValue };

/** One tool call the model asked for. `arguments` is the decoded object, never the wire's JSON string. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: JsonObject;
  /** The model's arguments text, kept only when it did not decode to a JSON object (then `arguments` is `{}`). */
  raw_arguments?: string;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
}

export interface AssistantMessage {
  role: 'assistant';
  /** Null when the turn only called tools. */
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface ToolMessage {
  role: 'tool';
  /** The id of the assistant tool call this answers. */
  tool_call_id: string;
  /** The tool's name (Anthropic does not need it; OpenAI-compatible gateways sometimes do). */
  name: string;
  content: string;
  /** True when `content` reports a failure (`Error: ...`); Anthropic sends it as `is_error`. */
  is_error?: boolean;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A system message. */
export function systemMessage(content: string): SystemMessage {
  return { role: 'system', content };
}

/** A user message. */
export function userMessage(content: string): UserMessage {
  return { role: 'user', content };
}

/** An assistant message; `tool_calls` is omitted when there are none, so histories compare equal after a round trip. */
export function assistantMessage(content: string | null, toolCalls: ToolCall[] = []): AssistantMessage {
  return toolCalls.length > 0 ? { role: 'assistant', content, tool_calls: toolCalls } : { role: 'assistant', content };
}

/** The result of one tool call, as the model will read it. */
export function toolMessage(toolCallId: string, name: string, content: string, isError = false): ToolMessage {
  return isError ? { role: 'tool', tool_call_id: toolCallId, name, content, is_error: true } : { role: 'tool', tool_call_id: toolCallId, name, content };
}

/** A deep copy of a history. */
export function cloneMessages(messages: readonly Message[]): Message[] {
  return cloneJson(messages as Message[]);
}
