/** Tools written as a function: `tool({ name, description, parameters: Type.Object({...}), execute })`. */
import type { Static, TSchema } from 'typebox';
import { ConfigError } from '../errors.js';
import type { JsonObject } from '../llm/messages.js';
import { Tool, type ToolContext, type ToolOptions } from './tool.js';

/**
 * The options of a function tool; `execute` receives arguments typed by the TypeBox schema. `T` is inferred from
 * `parameters` alone: `NoInfer` keeps TypeScript from also inferring it through `execute`, which made it evaluate
 * `Static` over the open `TSchema` and cost about 1.3 million type instantiations per `tool()` call (now a few
 * thousand; bench/README.md, "tool() typing").
 */
export interface FunctionToolOptions<T extends TSchema> extends ToolOptions {
  parameters?: T;
  execute: (args: NoInfer<Static<T>>, context: ToolContext) => unknown;
}

/** A tool whose code is a function. */
export class FunctionTool<T extends TSchema = TSchema> extends Tool {
  readonly toolType = 'function';
  readonly origin = 'function';
  private readonly fn: (args: Static<T>, context: ToolContext) => unknown;

  constructor(options: FunctionToolOptions<T>) {
    super(options);
    if (typeof options.execute !== 'function') throw new ConfigError(`tool '${options.name}': execute must be a function`);
    this.fn = options.execute;
  }

  async execute(args: JsonObject, context: ToolContext): Promise<unknown> {
    return this.fn(args as Static<T>, context);
  }
}

/** Define a function tool (it joins the current tool registry). */
export function tool<T extends TSchema>(options: FunctionToolOptions<T>): FunctionTool<T> {
  return new FunctionTool(options);
}
