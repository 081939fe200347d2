/**
 * Tool-call arguments arrive from providers as JSON text (OpenAI) or objects (Anthropic). A call whose text does not
 * decode to a JSON object keeps the text in `raw_arguments`, so the tool layer can tell the model exactly what was
 * wrong and the history sent back to the provider repeats what the model said.
 */
import type { JsonObject, ToolCall } from './messages.js';

/** A tool call from its wire arguments text. */
export function toolCallFromText(id: string, name: string, text: string): ToolCall {
  const trimmed = text.trim();
  if (trimmed === '') return { id, name, arguments: {} };
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { id, name, arguments: parsed as JsonObject };
  } catch {
    // Fall through: keep the text so the model is told its arguments were not JSON.
  }
  return { id, name, arguments: {}, raw_arguments: text };
}

/** The arguments text to send back for a call in a history. */
export function argumentsText(call: ToolCall): string {
  return call.raw_arguments ?? JSON.stringify(call.arguments);
}
