/**
 * The canned turn of a deterministic model: text, tool calls, or both. Tool-call ids are assigned per model in call
 * order (`call_1`, `call_2`, ...) unless given, and usage is estimated at one token per four characters unless given,
 * so runs report stable, non-zero token counts.
 */
import type { JsonObject, Message } from '../llm/messages.js';
import { usageOf, type ChatRequest, type LLMResponse } from '../llm/types.js';

/** One scripted tool call. */
export interface ScriptedToolCall {
  name: string;
  arguments?: JsonObject;
  /** Default: `call_<n>`, numbered per model. */
  id?: string;
}

/** One scripted turn; a plain string is a text-only turn. */
export type Turn =
  | string
  | {
      text?: string;
      toolCalls?: ScriptedToolCall[];
      /** Default: estimated from the characters sent and produced. */
      usage?: { inputTokens: number; outputTokens: number };
      /** Default: `tool_calls` when the turn calls tools, else `stop`. */
      finishReason?: string;
    };

/** Tokens for `chars` characters at four characters a token (at least one token for any text). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function messageChars(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += m.content?.length ?? 0;
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) chars += c.name.length + JSON.stringify(c.arguments).length;
  }
  return chars;
}

/** The response a turn stands for; `nextId` numbers tool calls without an id. */
export function responseOf(turn: Turn, request: ChatRequest, model: string, nextId: () => string): LLMResponse {
  const t = typeof turn === 'string' ? { text: turn } : turn;
  const text = t.text ?? '';
  const toolCalls = (t.toolCalls ?? []).map((c) => ({ id: c.id ?? nextId(), name: c.name, arguments: c.arguments ?? {} }));
  const produced = text.length + toolCalls.reduce((n, c) => n + c.name.length + JSON.stringify(c.arguments).length, 0);
  const usage = t.usage
    ? usageOf(t.usage.inputTokens, t.usage.outputTokens)
    : usageOf(estimateTokens(messageChars(request.messages)), estimateTokens(produced));
  return { text, toolCalls, usage, model, finishReason: t.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop') };
}
