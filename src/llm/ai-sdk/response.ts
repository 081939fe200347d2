/**
 * An AI SDK V4 result in agentkit's terms: usage (input and output token objects) as token counts, the finish reason
 * as the provider reported it, and a generated turn's content as text and tool calls.
 */
import type { LanguageModelV4FinishReason, LanguageModelV4GenerateResult, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { ToolCall } from '../messages.js';
import { toolCallFromText } from '../tool-arguments.js';
import { usageOf, type LLMResponse, type Usage } from '../types.js';

/**
 * Token counts from V4 usage: each side's `total`, else the sum of its parts (input: not cached, cache read, cache
 * written; output: text, reasoning). Counts the provider did not report are 0.
 */
export function usageFrom(usage: LanguageModelV4Usage | undefined): Usage {
  const input = usage?.inputTokens;
  const output = usage?.outputTokens;
  const inputTokens = input?.total ?? sum(input?.noCache, input?.cacheRead, input?.cacheWrite);
  const outputTokens = output?.total ?? sum(output?.text, output?.reasoning);
  return usageOf(inputTokens, outputTokens);
}

/**
 * The provider's own finish reason (`raw`: `tool_calls`, `tool_use`, `end_turn`, ..., what agentkit's own providers
 * record), else the AI SDK's unified one (`stop`, `tool-calls`, `length`, ...); null when neither was reported.
 */
export function finishReasonOf(reason: LanguageModelV4FinishReason | undefined): string | null {
  return reason?.raw ?? reason?.unified ?? null;
}

/**
 * The turn of a `doGenerate` result: the text parts joined, the tool calls agentkit is to run. Calls the provider
 * executed itself (`providerExecuted`), their results, reasoning, files and sources have no place in the message
 * model and are left out.
 */
export function responseOf(result: LanguageModelV4GenerateResult, requestedModel: string): LLMResponse {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call' && part.providerExecuted !== true) toolCalls.push(toolCallFromText(part.toolCallId, part.toolName, part.input));
  }
  return {
    text,
    toolCalls,
    usage: usageFrom(result.usage),
    model: result.response?.modelId || requestedModel,
    finishReason: finishReasonOf(result.finishReason),
  };
}

function sum(...counts: Array<number | undefined>): number {
  return counts.reduce<number>((total, count) => total + (count ?? 0), 0);
}
