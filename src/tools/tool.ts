/**
 * A tool: a name, a description, a JSON schema of its arguments, a replay class, and the code it runs. Arguments are
 * validated against the schema before the code runs. A tool joins the current registry when constructed.
 */
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { ConfigError } from '../errors.js';
import type { JsonObject } from '../llm/messages.js';
import type { ToolDefinition } from '../llm/types.js';
import { withDefaults } from './defaults.js';
import { currentToolRegistry, type ToolRegistry } from './registry.js';
import { replayClassOf, type ReplayClass } from './replay-class.js';

/** What a tool's code receives besides its arguments. */
export interface ToolContext {
  /** The id of the model's call being answered. */
  toolCallId: string;
  toolName: string;
  /** The agent running the tool (empty when invoked directly). */
  agentName: string;
  /** The run's execution id (empty when invoked directly). */
  executionId: string;
  /** The `context` value passed to `agent.run()`. */
  context: unknown;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /**
   * The W3C trace context of the call's span as HTTP headers (`traceparent`, `tracestate`; `baggage` too when asked),
   * for a tool that calls out over HTTP (a REST tool). Absent when nothing is traced.
   */
  traceHeaders?: (options?: { baggage?: boolean }) => Record<string, string>;
}

/** A tool as persisted on the root span (`agent.tools`) and rebuilt from. */
export interface ToolDict {
  name: string;
  description: string;
  tool_type: string;
  origin: string;
  parameters: JsonObject;
  replay_class: ReplayClass;
  config: JsonObject;
  /** Present (true) only on a tool whose successful call ends the run (a Swarm's handoff): replay needs to know. */
  ends_run?: boolean;
}

/** Options every tool takes. */
export interface ToolOptions {
  name: string;
  description?: string;
  /** A JSON schema of type `object` (a TypeBox `Type.Object(...)` is one). Default: no arguments. */
  parameters?: TSchema | JsonObject;
  /** `read_only`, `idempotent` or `side_effecting` (default). */
  replayClass?: ReplayClass;
  /** Fail the call (reported to the model) when the code runs longer (default: no limit). */
  timeoutMs?: number;
  /** Registry to join (default: the current one); `false` to join none. */
  registry?: ToolRegistry | false;
  /**
   * A successful call ends the agent's run once the turn's other calls are answered, with this call's result as
   * the run's output (a Swarm's handoff tools; default false). A failed call does not end the run.
   */
  endsRun?: boolean;
  /**
   * The tool may call `interrupt()` to pause the run for a human decision (default false). Declare it: nothing can
   * tell from outside what a function calls, and a pause only means something inside a run that checkpoints. Such a
   * tool is reached through its agent, never on its own (`mcp serve --expose-tools` does not list it).
   */
  pauses?: boolean;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

interface Checker {
  Check(value: unknown): boolean;
  Errors(value: unknown): Array<{ instancePath: string; message: string }>;
}

export abstract class Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  readonly replayClass: ReplayClass;
  readonly timeoutMs: number | undefined;
  /** A successful call ends the run after its turn (see ToolOptions.endsRun). */
  readonly endsRun: boolean;
  /** The tool may pause the run with `interrupt()` (see ToolOptions.pauses). */
  readonly pauses: boolean;
  /** `function`, `rest_api`, `mcp`, ... */
  abstract readonly toolType: string;
  /** Where the tool comes from (`function`, `rest`, `mcp`, ...), recorded on its spans. */
  abstract readonly origin: string;
  private readonly checker: Checker;

  /** Throws ConfigError for a name providers would reject, a bad replay class, a non-object schema, a bad timeout. */
  protected constructor(options: ToolOptions) {
    if (typeof options.name !== 'string' || !NAME.test(options.name)) {
      throw new ConfigError(`tool name ${JSON.stringify(options.name)} is invalid: use 1-64 letters, digits, '_' or '-'`);
    }
    this.name = options.name;
    this.description = options.description ?? '';
    this.replayClass = replayClassOf(options.replayClass, options.name);
    this.parameters = parametersOf(options.name, options.parameters);
    if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) throw new ConfigError(`tool '${options.name}': timeoutMs must be positive`);
    this.timeoutMs = options.timeoutMs;
    this.endsRun = options.endsRun === true;
    this.pauses = options.pauses === true;
    try {
      this.checker = Compile(this.parameters as TSchema) as unknown as Checker;
    } catch (error) {
      throw new ConfigError(`tool '${options.name}': parameters are not a usable JSON schema: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (options.registry !== false) (options.registry ?? currentToolRegistry()).register(this);
  }

  /** Run the tool's code on validated arguments. */
  abstract execute(args: JsonObject, context: ToolContext): Promise<unknown>;

  /**
   * Fill schema defaults into a copy of `args` and check it. Returns the arguments to run with, or every problem
   * as `<path>: <message>` lines.
   */
  prepareArguments(args: JsonObject): { ok: true; args: JsonObject } | { ok: false; problems: string[] } {
    const filled = withDefaults(this.parameters, args) as JsonObject;
    if (this.checker.Check(filled)) return { ok: true, args: filled };
    const problems = this.checker.Errors(filled).map((e) => `${e.instancePath || '(root)'}: ${e.message}`);
    return { ok: false, problems: [...new Set(problems)] };
  }

  /** The tool as the model sees it. */
  toDefinition(): ToolDefinition {
    return { name: this.name, description: this.description, parameters: this.parameters };
  }

  /** The tool as persisted on a trace (no secrets: subclasses redact their config). */
  toDict(): ToolDict {
    return {
      name: this.name,
      description: this.description,
      tool_type: this.toolType,
      origin: this.origin,
      parameters: this.parameters,
      replay_class: this.replayClass,
      config: this.config(),
      ...(this.endsRun ? { ends_run: true } : {}),
    };
  }

  /**
   * Release what the tool holds open (connections, a server process). Idempotent; `Agent.close()` calls it for each
   * of its tools. Function tools hold nothing.
   */
  async close(): Promise<void> {}

  /** Tool-type specific configuration, secrets redacted. */
  protected config(): JsonObject {
    return {};
  }
}

function parametersOf(name: string, parameters: TSchema | JsonObject | undefined): JsonObject {
  if (parameters === undefined) return { type: 'object', properties: {} };
  // A JSON round trip drops TypeBox's non-enumerable markers and proves the schema is plain JSON.
  const plain = JSON.parse(JSON.stringify(parameters)) as JsonObject;
  if (plain.type !== 'object') throw new ConfigError(`tool '${name}': parameters must be a JSON schema of type 'object'`);
  return plain;
}
