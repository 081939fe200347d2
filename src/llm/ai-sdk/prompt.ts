/**
 * A request in agentkit's message model as the call options of an AI SDK V4 language model: the history as a V4
 * prompt, tool definitions as function tools (their JSON schemas, from TypeBox, as `inputSchema`), the tool choice and
 * the sampling settings. Settings left undefined are not sent, so the provider's defaults apply.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolChoice,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { Message } from '../messages.js';
import type { ChatRequest, ToolChoice, ToolDefinition } from '../types.js';

type AssistantContent = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'];

/**
 * The call options for `request`, with `headers` (the call's extra HTTP headers) as V4's own. `parallelToolCalls` has
 * no V4 equivalent (it is a provider option, e.g. `providerOptions.openai.parallelToolCalls`) and is not sent.
 */
export function callOptionsOf(
  request: ChatRequest,
  providerOptions: SharedV4ProviderOptions | undefined,
  signal: AbortSignal | undefined,
  headers?: Readonly<Record<string, string>>,
): LanguageModelV4CallOptions {
  const options: LanguageModelV4CallOptions = { prompt: promptOf(request.messages) };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    options.tools = tools.map(functionTool);
    const choice = toolChoiceOf(request.settings?.toolChoice);
    if (choice) options.toolChoice = choice;
  }
  const s = request.settings ?? {};
  if (s.temperature !== undefined) options.temperature = s.temperature;
  if (s.maxTokens !== undefined) options.maxOutputTokens = s.maxTokens;
  if (s.topP !== undefined) options.topP = s.topP;
  if (s.stop !== undefined && s.stop.length > 0) options.stopSequences = [...s.stop];
  if (s.seed !== undefined) options.seed = s.seed;
  if (providerOptions) options.providerOptions = providerOptions;
  // The W3C trace context of the model span (docs/adr/0009); the provider package sends it with the request.
  if (headers && Object.keys(headers).length > 0) options.headers = { ...headers };
  // The run's own signal, never a composite made from it: nothing of ours then sits between the run and the
  // provider's fetch, and no signal made per call can be left registered on it (docs/adr/0001).
  if (signal) options.abortSignal = signal;
  return options;
}

/**
 * The history as a V4 prompt. A tool call's arguments go as the decoded object (`input`); consecutive tool results
 * go in one tool message, the way the AI SDK itself sends the results of one step. A failed tool's result is sent
 * as `error-text`.
 */
export function promptOf(messages: readonly Message[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user':
        prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
        break;
      case 'assistant': {
        const content: AssistantContent = [];
        if (message.content) content.push({ type: 'text', text: message.content });
        for (const call of message.tool_calls ?? []) content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const part: LanguageModelV4ToolResultPart = {
          type: 'tool-result',
          toolCallId: message.tool_call_id,
          toolName: message.name,
          output: message.is_error ? { type: 'error-text', value: message.content } : { type: 'text', value: message.content },
        };
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}

function functionTool(tool: ToolDefinition): LanguageModelV4FunctionTool {
  // Tool parameters are plain JSON Schema already (TypeBox's markers are dropped when a tool is built).
  const definition: LanguageModelV4FunctionTool = {
    type: 'function',
    name: tool.name,
    inputSchema: tool.parameters as LanguageModelV4FunctionTool['inputSchema'],
  };
  if (tool.description !== '') definition.description = tool.description;
  return definition;
}

function toolChoiceOf(choice: ToolChoice | undefined): LanguageModelV4ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === 'object') return { type: 'tool', toolName: choice.name };
  return { type: choice };
}
