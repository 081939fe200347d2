/**
 * The Anthropic Messages wire format. System messages become the top-level `system`; tool results become
 * `tool_result` blocks of a user turn; consecutive user-side messages (tool results, then text) merge into one turn,
 * so the conversation alternates as the API requires.
 */
import { LLMProviderError } from '../errors.js';
import type { Message } from '../messages.js';
import { usageOf, type ChatRequest, type LLMResponse, type ToolChoice, type Usage } from '../types.js';

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/** The body of `POST /messages`. `seed` has no Anthropic equivalent and is not sent. */
export function messagesBody(model: string, request: ChatRequest, defaultMaxTokens: number, stream: boolean): Record<string, unknown> {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
  const body: Record<string, unknown> = { model, max_tokens: request.settings?.maxTokens ?? defaultMaxTokens };
  if (system.length > 0) body.system = system.join('\n\n');
  body.messages = wireMessages(request.messages);
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    const choice = wireToolChoice(request.settings?.toolChoice, request.settings?.parallelToolCalls);
    if (choice) body.tool_choice = choice;
  }
  const s = request.settings ?? {};
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.stop !== undefined && s.stop.length > 0) body.stop_sequences = s.stop;
  if (stream) body.stream = true;
  return body;
}

function wireMessages(messages: readonly Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) {
      last.content = [...asBlocks(last.content), ...blocks];
      return;
    }
    out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        push('user', [{ type: 'text', text: message.content }]);
        break;
      case 'tool': {
        const block: Block = { type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content };
        if (message.is_error) block.is_error = true;
        push('user', [block]);
        break;
      }
      case 'assistant': {
        const blocks: Block[] = [];
        if (message.content) blocks.push({ type: 'text', text: message.content });
        for (const call of message.tool_calls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
        push('assistant', blocks.length > 0 ? blocks : [{ type: 'text', text: '' }]);
        break;
      }
    }
  }
  // A turn holding a single text block is sent as a plain string, the form the API documents first.
  for (const message of out) {
    const blocks = message.content as Block[];
    if (blocks.length === 1 && blocks[0]!.type === 'text') message.content = blocks[0]!.text as string;
  }
  return out;
}

function asBlocks(content: string | Block[]): Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function wireToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): Block | undefined {
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...noParallel } : undefined;
  if (choice === 'auto') return { type: 'auto', ...noParallel };
  if (choice === 'required') return { type: 'any', ...noParallel };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.name, ...noParallel };
}

/** Usage from a wire `usage` object (`input_tokens`, `output_tokens`; cache reads and writes count as input). */
export function anthropicUsage(usage: unknown): Usage {
  const u = (usage ?? {}) as Record<string, unknown>;
  const n = (key: string) => (typeof u[key] === 'number' ? (u[key] as number) : 0);
  return usageOf(n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens'), n('output_tokens'));
}

/** An LLMResponse from a non-streamed body; a body without a `content` array is a malformed response. */
export function parseMessage(provider: string, requestedModel: string, json: unknown, where: string): LLMResponse {
  const body = (json ?? {}) as { content?: unknown; model?: unknown; stop_reason?: unknown; usage?: unknown };
  if (!Array.isArray(body.content)) {
    throw new LLMProviderError(provider, 200, `${provider}: malformed response from POST ${where}: no content array in the body`);
  }
  let text = '';
  const toolCalls = [];
  for (const [index, block] of (body.content as Array<Record<string, unknown>>).entries()) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    if (block.type === 'tool_use') {
      if (typeof block.name !== 'string' || typeof block.id !== 'string') {
        throw new LLMProviderError(provider, 200, `${provider}: malformed response from POST ${where}: tool_use block ${index} has no id or name`);
      }
      const input = block.input;
      const args = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, never>) : {};
      toolCalls.push({ id: block.id, name: block.name, arguments: args });
    }
  }
  return {
    text,
    toolCalls,
    usage: anthropicUsage(body.usage),
    model: typeof body.model === 'string' ? body.model : requestedModel,
    finishReason: typeof body.stop_reason === 'string' ? body.stop_reason : null,
  };
}
