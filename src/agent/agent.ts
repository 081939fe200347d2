/**
 * An Agent: a name, a system prompt (text, or a function of the run's context), a model, tools, guardrails and a
 * configuration. `run()` returns an AgentResult; `stream()` yields events as the run happens and ends with `done`.
 * Every run has an execution id (a uuid unless given) and, with tracing on, a trace rooted at `agent.<name>` whose
 * attributes are enough to rebuild the agent (`Agent.fromDefinition`).
 */
import { context as otelContext } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { localDbPath } from '../config/paths.js';
import { ConfigError } from '../errors.js';
import type { Guardrail } from '../guardrails/guardrail.js';
import { currentGuardrailRegistry, type GuardrailRegistry } from '../guardrails/registry.js';
import { runGuardrails } from '../guardrails/run.js';
import { createModel, type ModelSecrets } from '../llm/create.js';
import { systemMessage, userMessage, type Message } from '../llm/messages.js';
import type { ChatModel } from '../llm/types.js';
import { AGENT_ATTR, payloadsEnabled, SPAN } from '../tracing/attributes.js';
import { setTraceDestination, traceDestinationOf } from '../tracing/destination.js';
import { withSpan } from '../tracing/spans.js';
import { ensureTracing } from '../tracing/setup.js';
import { currentToolRegistry, type ToolRegistry } from '../tools/registry.js';
import type { Tool } from '../tools/tool.js';
import type { AgentResult } from '../types.js';
import { agentConfig, agentConfigDict, agentConfigFromDict, samplingSettings, type AgentConfig, type AgentConfigOptions } from './config.js';
import type { AgentDefinition } from './definition.js';
import { ReconstructionError } from './errors.js';
import { EventQueue } from './event-queue.js';
import { runToolLoop } from './loop.js';
import { recordEnd, startAttributes } from './root-span.js';
import type { AgentRun, AgentStreamEvent, LoopState, RunHooks } from './run-state.js';

/** What a system prompt function receives. */
export interface PromptContext {
  /** The `context` value passed to `run()`. */
  context: unknown;
  input: string;
  agentName: string;
  executionId: string;
}

export type SystemPrompt = string | ((prompt: PromptContext) => string | Promise<string>);

export interface AgentOptions {
  name: string;
  systemPrompt?: SystemPrompt;
  llm: ChatModel;
  tools?: readonly Tool[];
  guardrails?: readonly Guardrail[];
  config?: AgentConfigOptions;
  /** Store this agent's traces go to (default: `AGENTKIT_LOCAL_DB` when a run starts, else ./.agentkit/local.db). */
  traceDb?: string;
  /** Record traces (default true). */
  trace?: boolean;
}

export interface RunOptions {
  /** Any value; tools, guardrails and a system prompt function receive it. */
  context?: unknown;
  /** Default: a new uuid. */
  executionId?: string;
  /** Record this run's trace (default: the agent's setting). */
  trace?: boolean;
  /** Store this run's trace and guardrail events go to (default: the agent's, else the enclosing trace's, else AGENTKIT_LOCAL_DB). */
  traceDb?: string;
  /** Cancels the run: the model call or tool in progress is aborted and the run rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Earlier conversation to continue: placed after the system prompt and before the input. */
  history?: readonly Message[];
  /** Callbacks at the loop's boundaries (the durability layer's seam; see run-state.ts). */
  hooks?: RunHooks;
  /** Continue (a copy of) this saved state instead of starting from the input (no input guardrails, no new messages). */
  startState?: LoopState;
}

/** Rebuild options: what a definition cannot carry. */
export interface RebuildOptions {
  /** Use this model instead of building one from the definition (required for scripted and function models). */
  llm?: ChatModel;
  /** Key and header values for a model built from the definition. */
  secrets?: ModelSecrets;
  /** Registry the tools are found in by name (default: the current one). */
  toolRegistry?: ToolRegistry;
  /** Registry the guardrails are found in by name (default: the current one). */
  guardrailRegistry?: GuardrailRegistry;
  /** Override the system prompt (a definition recorded with payloads off has none). */
  systemPrompt?: SystemPrompt;
  /** Override configuration values. */
  config?: AgentConfigOptions;
}

export class Agent {
  readonly name: string;
  readonly systemPrompt: SystemPrompt;
  readonly llm: ChatModel;
  readonly tools: readonly Tool[];
  readonly guardrails: readonly Guardrail[];
  readonly config: AgentConfig;
  readonly traceDb: string | undefined;
  readonly trace: boolean;
  private readonly toolsByName: ReadonlyMap<string, Tool>;
  private readonly toolDefinitions: ReturnType<Tool['toDefinition']>[];
  private readonly toolNames: string[];
  private definitionAttributes: Record<string, string> | undefined;

  /** Throws ConfigError for an empty name, a missing model, duplicate tool names or a bad configuration. */
  constructor(options: AgentOptions) {
    if (typeof options.name !== 'string' || options.name.trim() === '') throw new ConfigError('an agent needs a non-empty name');
    if (!options.llm || typeof options.llm.complete !== 'function') throw new ConfigError(`agent '${options.name}': llm must be a chat model`);
    this.name = options.name;
    this.systemPrompt = options.systemPrompt ?? '';
    this.llm = options.llm;
    this.tools = [...(options.tools ?? [])];
    this.guardrails = [...(options.guardrails ?? [])];
    this.config = agentConfig(options.config);
    this.traceDb = options.traceDb;
    this.trace = options.trace ?? true;
    const byName = new Map<string, Tool>();
    for (const tool of this.tools) {
      if (byName.has(tool.name)) throw new ConfigError(`agent '${options.name}': two tools are named '${tool.name}'`);
      byName.set(tool.name, tool);
    }
    this.toolsByName = byName;
    this.toolDefinitions = this.tools.map((t) => t.toDefinition());
    this.toolNames = this.tools.map((t) => t.name);
  }

  /** Run to completion. Rejects with GuardrailBlockedError, MaxIterationsError, LLMProviderError or the abort reason. */
  async run(input: string, options: RunOptions = {}): Promise<AgentResult> {
    return this.execute(input, options, undefined);
  }

  /**
   * Run and yield events as they happen: text deltas, tool calls and their results, usage, then `done` with the
   * AgentResult. Model calls are streamed. A failure is thrown by the iterator after the events before it; stopping
   * the iteration early aborts the run.
   */
  stream(input: string, options: RunOptions = {}): AsyncGenerator<AgentStreamEvent> {
    const controller = new AbortController();
    const outer = options.signal;
    const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
    const queue = new EventQueue<AgentStreamEvent>(() => controller.abort(new Error('the stream consumer stopped')));
    this.execute(input, { ...options, signal }, (event) => queue.push(event)).then(
      (result) => {
        queue.push({ type: 'done', result });
        queue.end();
      },
      (error: unknown) => queue.fail(error),
    );
    return queue.iterate();
  }

  /** The definition a trace records (the system prompt as given when it is text, else null unless `resolvedPrompt`). */
  toDefinition(resolvedPrompt?: string): AgentDefinition {
    return {
      name: this.name,
      system_prompt: resolvedPrompt ?? (typeof this.systemPrompt === 'string' ? this.systemPrompt : null),
      llm: this.llm.toConfig(),
      tools: this.tools.map((t) => t.toDict()),
      guardrails: this.guardrails.map((g) => g.toDict()),
      config: agentConfigDict(this.config),
    };
  }

  /**
   * Rebuild an agent from a definition: tools and guardrails are found by name in their registries, the model is
   * built from its configuration unless given. Throws ReconstructionError for a tool or guardrail that is not
   * registered or a model that cannot be built.
   */
  static fromDefinition(definition: AgentDefinition, options: RebuildOptions = {}): Agent {
    const toolRegistry = options.toolRegistry ?? currentToolRegistry();
    const guardrailRegistry = options.guardrailRegistry ?? currentGuardrailRegistry();
    const tools = definition.tools.map((dict) => {
      const found = toolRegistry.get(dict.name);
      if (!found) throw new ReconstructionError(`tool '${dict.name}' is not registered; import the module that defines it before rebuilding the agent`);
      return found;
    });
    const guardrails = definition.guardrails.map((dict) => {
      const found = guardrailRegistry.get(dict.name);
      if (!found) throw new ReconstructionError(`guardrail '${dict.name}' is not registered; import the module that defines it before rebuilding the agent`);
      return found;
    });
    let llm = options.llm;
    if (!llm) {
      try {
        llm = createModel(definition.llm, options.secrets);
      } catch (error) {
        throw new ReconstructionError(`cannot rebuild the model of agent '${definition.name}': ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
    return new Agent({
      name: definition.name,
      systemPrompt: options.systemPrompt ?? definition.system_prompt ?? '',
      llm,
      tools,
      guardrails,
      config: { ...agentConfigFromDict(definition.config), ...options.config },
    });
  }

  private async execute(input: string, options: RunOptions, emit: AgentRun['emit']): Promise<AgentResult> {
    if (typeof input !== 'string') throw new ConfigError(`agent '${this.name}': input must be a string`);
    const executionId = options.executionId ?? randomUUID();
    // Before reading the active context: until tracing is set up, no context manager carries it.
    ensureTracing();
    const active = otelContext.active();
    const dbPath = options.traceDb ?? this.traceDb ?? traceDestinationOf(active) ?? localDbPath();
    const traced = options.trace ?? this.trace;
    const parent = traced ? setTraceDestination(active, dbPath) : suppressTracing(active);
    this.definitionAttributes ??= startAttributes(this.toDefinition(), '', '');
    const definition = this.definitionAttributes;

    return withSpan(SPAN.agent(this.name), { parent }, async (span) => {
      const started = performance.now();
      // Set after the start: attributes given to startSpan are validated three times over.
      if (span.isRecording()) span.setAttributes({ ...definition, [AGENT_ATTR.executionId]: executionId, [AGENT_ATTR.input]: input });
      const run: AgentRun = {
        agentName: this.name,
        llm: this.llm,
        tools: this.toolsByName,
        toolDefinitions: this.toolDefinitions,
        toolNames: this.toolNames,
        guardrails: this.guardrails,
        config: this.config,
        settings: samplingSettings(this.config),
        executionId,
        context: options.context,
        signal: options.signal ?? new AbortController().signal,
        payloads: payloadsEnabled(),
        dbPath,
        hooks: options.hooks ?? {},
        emit,
      };
      const state = options.startState ? structuredClone(options.startState) : await this.initialState(run, input, options.history ?? []);
      const prompt = state.messages.find((m) => m.role === 'system')?.content;
      if (run.payloads && prompt !== undefined && span.isRecording()) span.setAttribute(AGENT_ATTR.systemPrompt, prompt);
      const output = await runToolLoop(run, state);
      await runGuardrails(run.guardrails, 'output', output, run);
      const latencyMs = performance.now() - started;
      if (span.isRecording()) recordEnd(span, output, state.tokensUsed, latencyMs, 'completed');
      return {
        output,
        trace_id: span.isRecording() ? span.spanContext().traceId : null,
        execution_id: executionId,
        status: 'completed',
        pending_interrupt: null,
        tokens_used: state.tokensUsed,
        latency_ms: latencyMs,
        tool_calls: state.toolCalls,
      };
    });
  }

  /** Input guardrails, then the opening history: system prompt, earlier conversation, the input. */
  private async initialState(run: AgentRun, input: string, history: readonly Message[]): Promise<LoopState> {
    await runGuardrails(run.guardrails, 'input', input, run);
    const prompt = typeof this.systemPrompt === 'string' ? this.systemPrompt : await this.systemPrompt({ context: run.context, input, agentName: this.name, executionId: run.executionId });
    if (typeof prompt !== 'string') throw new ConfigError(`agent '${this.name}': the system prompt function returned ${typeof prompt}, not a string`);
    const messages: Message[] = [];
    if (prompt !== '') messages.push(systemMessage(prompt));
    messages.push(...structuredClone(history), userMessage(input));
    return { messages, turn: 0, toolCalls: [], tokensUsed: 0 };
  }
}
