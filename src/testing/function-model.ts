/** A model backed by a function of the conversation: for multi-turn tests whose answers depend on what was said. */
import type { Message } from '../llm/messages.js';
import type { ChatRequest, LLMResponse, SamplingSettings, ToolDefinition } from '../llm/types.js';
import { DeterministicModel, type DeterministicModelOptions } from './deterministic-model.js';
import type { Turn } from './turn.js';

/** Decides a turn from the messages and tools the model received (sync or async). */
export type TurnFunction = (
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  settings: SamplingSettings,
) => Turn | LLMResponse | Promise<Turn | LLMResponse>;

/** A deterministic model whose every turn is `fn(messages, tools, settings)`. */
export class FunctionModel extends DeterministicModel {
  readonly provider = 'function';
  private readonly fn: TurnFunction;

  constructor(fn: TurnFunction, options: DeterministicModelOptions = {}) {
    super('function-model', options);
    this.fn = fn;
  }

  protected async turnFor(request: ChatRequest): Promise<Turn | LLMResponse> {
    return this.fn(request.messages, request.tools ?? [], request.settings ?? {});
  }
}
