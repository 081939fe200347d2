/**
 * An Agent: a name, a system prompt (text, or a function of the run's context), a model, tools, guardrails and a
 * configuration. `run()` returns an AgentResult; `stream()` yields events as the run happens and ends with `done`.
 * Every run has an execution id (a uuid unless given) and, with tracing on, a trace rooted at `agent.<name>` whose
 * attributes are enough to rebuild the agent (`Agent.fromDefinition`).
 */
import { context as otelContext } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { performance } from 'node:perf_hooks';
import { ConfigError } from '../errors.js';
import type { Guardrail } from '../guardrails/guardrail.js';
import { currentGuardrailRegistry, type GuardrailRegistry } from '../guardrails/registry.js';
import { hasGuardrails, runGuardrails } from '../guardrails/run.js';
import { createModel, type ModelSecrets } from '../llm/create.js';
import { cloneMessages, systemMessage, userMessage, type JsonObject, type Message } from '../llm/messages.js';
import type { ChatModel } from '../llm/types.js';
import { AGENT_ATTR, payloadsEnabled, SPAN } from '../tracing/attributes.js';
import { defaultTraceDestination, setTraceDestination, traceDestinationOf } from '../tracing/destination.js';
import { withSpan } from '../tracing/spans.js';
import { ensureTracing, storedTraceId } from '../tracing/setup.js';
import { currentToolRegistry, type ToolRegistry } from '../tools/registry.js';
import type { Tool, ToolDict } from '../tools/tool.js';
import { RESTTool } from '../tools/rest/rest-tool.js';
import { currentScope } from '../scope/scope.js';
import type { AgentResult } from '../types.js';
import { agentConfig, agentConfigDict, agentConfigFromDict, samplingSettings, type AgentConfig, type AgentConfigOptions } from './config.js';
import type { AgentDefinition } from './definition.js';
import { describedAs } from './description.js';
import { ReconstructionError } from './errors.js';
import { EventQueue } from './event-queue.js';
import { isRegistryPrompt, recordRegistryPrompt, type RegistryPrompt, type ResolvedRegistryPrompt } from './registry-prompt.js';
import { recordEnd, startAttributes } from './root-span.js';
import type { AgentRun, AgentStreamEvent, LoopState, RunHooks } from './run-state.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import { noteRunTrace } from '../durability/fenced.js';
import { withExecutionLease } from '../durability/lease.js';
import { runnerKey } from '../durability/runner-key.js';
import { driveRun } from './durable/drive.js';
import { planFork, type AgentForkOptions } from './durable/fork.js';
import { placeRun, type Plan, type Start } from './durable/plan.js';
import { planResume, planScopeResume, type AgentResumeOptions } from './durable/resume.js';
import { resumedFromLink, tracedDecision } from './resume-link.js';
import { PAUSED, RUN_STATUS_ATTR } from '../tracing/run-status.js';

/** What a system prompt function receives. */
export interface PromptContext {
  /** The `context` value passed to `run()`. */
  context: unknown;
  input: string;
  agentName: string;
  executionId: string;
}

/** Text, a function of the run's context, or a prompt registry reference (the run's span then names its version). */
export type SystemPrompt = string | ((prompt: PromptContext) => string | Promise<string>) | RegistryPrompt<PromptContext>;

export interface AgentOptions {
  name: string;
  /**
   * What the agent does, in a sentence, for the people and clients choosing it (the tool description of
   * `mcp serve`). Never sent to the model; the system prompt is never shown in its place.
   */
  description?: string;
  systemPrompt?: SystemPrompt;
  llm: ChatModel;
  tools?: readonly Tool[];
  guardrails?: readonly Guardrail[];
  config?: AgentConfigOptions;
  /** Store this agent's traces go to (default: `AGENTKIT_LOCAL_DB` when a run starts, else ./.agentkit/local.db). */
  traceDb?: string;
  /** Record traces (default true). */
  trace?: boolean;
  /**
   * Where checkpoints go: with one, every turn and tool call is checkpointed and a tool may `interrupt()` the run
   * (status `paused`); resume and fork need it. Inside a durable runner (a Chain node, a Swarm, a Supervisor) the
   * runner's checkpointer is used when the agent has none.
   */
  checkpointer?: Checkpointer | null;
  /** This agent's segment of `agent_path` (default `agent:<name>`; a Supervisor relabels its workers `worker:<role>`). */
  agentPathLabel?: string;
}

export interface RunOptions {
  /** Any value; tools, guardrails and a system prompt function receive it. */
  context?: unknown;
  /**
   * Default: the enclosing execution scope's (a Chain node, a Swarm, a Supervisor: the run joins that execution),
   * else a new uuid.
   */
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
  /**
   * Header values for REST tools rebuilt from their (redacted) definition, by tool name. A REST tool not found in
   * the registry is rebuilt from the definition with these headers; without them its redacted headers are left out.
   */
  toolHeaders?: Record<string, Record<string, string>>;
  /** Registry the guardrails are found in by name (default: the current one). */
  guardrailRegistry?: GuardrailRegistry;
  /** Override the system prompt (a definition recorded with payloads off has none). */
  systemPrompt?: SystemPrompt;
  /** Override configuration values. */
  config?: AgentConfigOptions;
}

export class Agent {
  /** What kind of runner this is (see runner-kind.ts). */
  readonly kind = 'agent' as const;
  readonly name: string;
  /** What the agent does (AgentOptions.description); empty when not given. */
  readonly description: string;
  readonly systemPrompt: SystemPrompt;
  readonly llm: ChatModel;
  readonly tools: readonly Tool[];
  readonly guardrails: readonly Guardrail[];
  readonly config: AgentConfig;
  readonly traceDb: string | undefined;
  readonly trace: boolean;
  readonly checkpointer: Checkpointer | null;
  readonly agentPathLabel: string;
  private readonly options: AgentOptions;
  private readonly toolsByName: ReadonlyMap<string, Tool>;
  private readonly toolDefinitions: ReturnType<Tool['toDefinition']>[];
  private readonly toolNames: string[];
  private definitionAttributes: Record<string, string> | undefined;

  /** Throws ConfigError for an empty name, a missing model, duplicate tool names or a bad configuration. */
  constructor(options: AgentOptions) {
    if (typeof options.name !== 'string' || options.name.trim() === '') throw new ConfigError('an agent needs a non-empty name');
    if (!options.llm || typeof options.llm.complete !== 'function') throw new ConfigError(`agent '${options.name}': llm must be a chat model`);
    this.name = options.name;
    this.description = describedAs(options.description, `agent '${options.name}'`);
    this.systemPrompt = options.systemPrompt ?? '';
    this.llm = options.llm;
    this.tools = [...(options.tools ?? [])];
    this.guardrails = [...(options.guardrails ?? [])];
    this.config = agentConfig(options.config);
    this.traceDb = options.traceDb;
    this.trace = options.trace ?? true;
    this.checkpointer = options.checkpointer ?? null;
    this.agentPathLabel = options.agentPathLabel ?? `agent:${options.name}`;
    if (typeof this.agentPathLabel !== 'string' || this.agentPathLabel === '' || this.agentPathLabel.includes('/')) {
      throw new ConfigError(
        `agent '${options.name}': agentPathLabel must be a non-empty path segment without '/', not ${JSON.stringify(options.agentPathLabel)}`,
      );
    }
    this.options = { ...options };
    const byName = new Map<string, Tool>();
    for (const tool of this.tools) {
      if (byName.has(tool.name)) throw new ConfigError(`agent '${options.name}': two tools are named '${tool.name}'`);
      byName.set(tool.name, tool);
    }
    this.toolsByName = byName;
    this.toolDefinitions = this.tools.map((t) => t.toDefinition());
    this.toolNames = this.tools.map((t) => t.name);
  }

  /**
   * Run to an answer (`status: 'completed'`) or a pause (`status: 'paused'` with `pending_interrupt`: a tool called
   * `interrupt()`; the run needs a checkpointer, its own or the enclosing runner's, else ChainCheckpointError). Rejects
   * with GuardrailBlockedError, MaxIterationsError, LLMProviderError or the abort reason, after writing a failed
   * terminal row when the run owns a durable execution. Inside a scope re-running this agent's claimed pause (a Chain
   * resuming the node that hosts it), the run resumes that pause instead of starting over.
   */
  run(input: string, options: RunOptions = {}): Promise<AgentResult> {
    // `start` is async: a bad input is a rejection, never a throw from here.
    return this.start(input, options, undefined);
  }

  /**
   * Continue a paused, crashed or failed execution, detecting the shape from its latest checkpoint (see
   * durable/shapes.ts), holding the execution's lease (ExecutionBusy when another process runs it): a pause needs
   * `resumeValue` or `defaultResumeValue` (its pending row is claimed and the decision recorded in one transaction;
   * AlreadyResumed when another resumer got it) and re-invokes the suspended tool with `interrupt()` returning the
   * value; a claimed pause whose tool never returned re-invokes it with the recorded decision; a crash in a tool
   * re-invokes it with its saved arguments; a crash before a model call re-issues it. A completed run raises
   * AlreadyResumed; a run with no checkpoint ChainCheckpointError; a paused run without a value ChainResumeError.
   */
  async resume(executionId: string, options: AgentResumeOptions = {}): Promise<AgentResult> {
    const placement = typeof executionId === 'string' && executionId !== '' ? placeRun(this, executionId) : null;
    const resume = async (leased: Checkpointer | null) => {
      const plan = await planResume(this, executionId, options, leased);
      return this.execute(plan.start.input, { context: options.context, signal: options.signal }, undefined, plan);
    };
    // A top-level resume owns the execution: it runs holding the lease. A resume joined to an enclosing runner's
    // execution (a Swarm member, a Supervisor worker) runs under that runner's lease.
    if (placement?.owner && placement.checkpointer) {
      return withExecutionLease(placement.checkpointer, executionId, `Agent '${this.name}'`, resume, 'now', placement.agentPath, runnerKey(this));
    }
    return resume(null);
  }

  /**
   * Branch a new execution from a checkpoint of `executionId` (default its last executed step): with `input`, a fresh
   * conversation asking that; without, the restored and balanced history continues. The original is not touched.
   * ChainCheckpointError when there is nothing to fork, or `checkpointId` names a terminal row, another execution's
   * row, or a row this agent did not write.
   */
  async fork(executionId: string, options: AgentForkOptions = {}): Promise<AgentResult> {
    const { plan, origin } = await planFork(this, executionId, options);
    const { placement } = plan;
    // The branch is a new execution: its lease is taken with its origin row.
    return withExecutionLease(
      placement.checkpointer!,
      placement.executionId,
      `Agent '${this.name}'`,
      async (fenced) => {
        await fenced.put(origin);
        return this.execute(plan.start.input, { context: options.context, signal: options.signal }, undefined, {
          ...plan,
          placement: { ...placement, checkpointer: fenced },
        });
      },
      'first-write',
      placement.agentPath,
      runnerKey(this),
    );
  }

  /** A copy of this agent with `patch` applied (a Swarm adds handoff tools; a Supervisor relabels workers). */
  clone(patch: Partial<AgentOptions> = {}): Agent {
    return new Agent({ ...this.options, ...patch });
  }

  /**
   * Release what the agent's tools hold open (MCP server connections and processes, REST keep-alive connections).
   * Call it when the agent is no longer used; every tool's `close()` is attempted, and the first failure is thrown.
   */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.tools.map((t) => t.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** True when this agent has a tool named `name`. */
  hasTool(name: string): boolean {
    return this.toolsByName.has(name);
  }

  /**
   * Run and yield events as they happen: text deltas, tool calls and their results, usage, `paused` when a tool paused
   * the run, then `done` with the AgentResult. Model calls are streamed. A failure is thrown by the iterator after the events before it; stopping
   * the iteration early aborts the run.
   */
  stream(input: string, options: RunOptions = {}): AsyncGenerator<AgentStreamEvent> {
    const controller = new AbortController();
    const outer = options.signal;
    const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
    const queue = new EventQueue<AgentStreamEvent>(() => controller.abort(new Error('the stream consumer stopped')));
    this.start(input, { ...options, signal }, (event) => queue.push(event)).then(
      (result) => {
        if (result.status === 'paused' && result.pending_interrupt) {
          const { reason, context } = result.pending_interrupt;
          queue.push({ type: 'paused', reason, executionId: result.execution_id, context: context as JsonObject });
        }
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
      if (found) return found;
      if (dict.tool_type === 'rest_api') return rebuildRestTool(dict, options.toolHeaders?.[dict.name]);
      throw new ReconstructionError(`tool '${dict.name}' is not registered; import the module that defines it before rebuilding the agent`);
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
        throw new ReconstructionError(`cannot rebuild the model of agent '${definition.name}': ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
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

  /** A run, unless it is the resume of this agent's pause that the enclosing scope is re-running (a hosting Chain node). */
  private async start(input: string, options: RunOptions, emit: AgentRun['emit']): Promise<AgentResult> {
    if (typeof input !== 'string') throw new ConfigError(`agent '${this.name}': input must be a string`);
    // Only inside a scope with a resume value bound can the run be a resume (checked here first: an await costs a
    // promise even when there is nothing to wait for).
    const resumed = options.startState || !currentScope()?.resumeValue ? null : await planScopeResume(this, options.executionId);
    if (resumed) return this.execute(resumed.start.input, options, emit, resumed);
    const placement = placeRun(this, options.executionId);
    const start: Start = options.startState ? { kind: 'state', input, state: options.startState } : { kind: 'input', input, history: options.history ?? [] };
    // A run that owns a durable execution holds its lease, taken with its first row (docs/adr/0015); a run joined to
    // an enclosing runner's execution writes under that runner's.
    if (!placement.owner || !placement.checkpointer) return this.execute(input, options, emit, { placement, start });
    return withExecutionLease(
      placement.checkpointer,
      placement.executionId,
      `Agent '${this.name}'`,
      (fenced) => this.execute(input, options, emit, { placement: { ...placement, checkpointer: fenced }, start }),
      'first-write',
      placement.agentPath,
      runnerKey(this),
    );
  }

  private async execute(input: string, options: RunOptions, emit: AgentRun['emit'], plan?: Plan): Promise<AgentResult> {
    if (typeof input !== 'string') throw new ConfigError(`agent '${this.name}': input must be a string`);
    const placement = plan?.placement ?? placeRun(this, options.executionId);
    const start: Start =
      plan?.start ?? (options.startState ? { kind: 'state', input, state: options.startState } : { kind: 'input', input, history: options.history ?? [] });
    const executionId = placement.executionId;
    // Before reading the active context: until tracing is set up, no context manager carries it.
    ensureTracing();
    const active = otelContext.active();
    const dbPath = options.traceDb ?? this.traceDb ?? traceDestinationOf(active) ?? defaultTraceDestination();
    const traced = options.trace ?? this.trace;
    const parent = traced ? setTraceDestination(active, dbPath) : suppressTracing(active);
    this.definitionAttributes ??= startAttributes(this.toDefinition(), '', '');
    const definition = this.definitionAttributes;
    // A resume continues a paused run: its root links to that run's root, and the resumed call records the decision.
    const resumed = start.kind === 'tool' && start.resume ? start.resume : null;
    const link = resumed && traced && placement.owner && placement.checkpointer ? await resumedFromLink(placement.checkpointer, executionId, dbPath) : null;

    return withSpan(SPAN.agent(this.name), { parent, ...(link ? { links: link.links } : {}) }, async (span) => {
      const started = performance.now();
      // Set after the start: attributes given to startSpan are validated three times over.
      if (span.isRecording()) {
        // The definition's keys in place (its execution id and input are placeholders), without copying it per run.
        span.setAttributes(definition);
        span.setAttribute(AGENT_ATTR.executionId, executionId);
        span.setAttribute(AGENT_ATTR.input, input);
        // The execution keeps the trace of each run and resume (stamped on the next row it writes).
        if (placement.owner) noteRunTrace(placement.checkpointer, storedTraceId(span));
        if (link) span.setAttributes(link.attributes);
      }
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
        // A run given no signal gets one of its own: a signal that outlived the run would become the parent of every
        // per-call signal made from it (AbortSignal.any) and keep them reachable for as long as it lives.
        signal: options.signal ?? new AbortController().signal,
        payloads: payloadsEnabled(),
        dbPath,
        hooks: options.hooks ?? {},
        emit,
        resumedCall:
          resumed && start.kind === 'tool'
            ? { callId: start.call.id, decision: tracedDecision(resumed.value, resumed.decision, resumed.claimed?.reason ?? null) }
            : undefined,
      };
      const outcome = await driveRun(run, placement, start, async () => {
        const state = await this.initialState(run, input, start.kind === 'input' ? start.history : [], (resolved) => {
          if (span.isRecording()) recordRegistryPrompt(span, resolved);
        });
        const prompt = state.messages.find((m) => m.role === 'system')?.content;
        if (run.payloads && prompt !== undefined && span.isRecording()) span.setAttribute(AGENT_ATTR.systemPrompt, prompt);
        return state;
      });
      const latencyMs = performance.now() - started;
      const output = outcome.status === 'completed' ? outcome.output : '';
      if (span.isRecording()) {
        recordEnd(span, output, outcome.state.tokensUsed, latencyMs, outcome.status);
        if (outcome.status === 'paused') span.setAttribute(RUN_STATUS_ATTR, PAUSED);
      }
      return {
        output,
        trace_id: span.isRecording() ? storedTraceId(span) : null,
        execution_id: executionId,
        status: outcome.status,
        pending_interrupt: outcome.status === 'paused' ? outcome.pending : null,
        tokens_used: outcome.state.tokensUsed,
        latency_ms: latencyMs,
        tool_calls: outcome.state.toolCalls,
      };
    });
  }

  /** Input guardrails, then the opening history: system prompt, earlier conversation, the input. */
  private async initialState(
    run: AgentRun,
    input: string,
    history: readonly Message[],
    onRegistryPrompt: (resolved: ResolvedRegistryPrompt) => void,
  ): Promise<LoopState> {
    if (hasGuardrails(run.guardrails, 'input')) await runGuardrails(run.guardrails, 'input', input, run);
    const prompt =
      typeof this.systemPrompt === 'string'
        ? this.systemPrompt
        : await this.resolveSystemPrompt({ context: run.context, input, agentName: this.name, executionId: run.executionId }, onRegistryPrompt);
    if (typeof prompt !== 'string') throw new ConfigError(`agent '${this.name}': the system prompt function returned ${typeof prompt}, not a string`);
    const messages: Message[] = [];
    if (prompt !== '') messages.push(systemMessage(prompt));
    messages.push(...cloneMessages(history), userMessage(input));
    return { messages, turn: 0, toolCalls: [], tokensUsed: 0 };
  }

  /** The run's system prompt text; a registry prompt also reports the name and version it resolved to. */
  private async resolveSystemPrompt(context: PromptContext, onRegistryPrompt: (resolved: ResolvedRegistryPrompt) => void): Promise<unknown> {
    const source = this.systemPrompt;
    if (typeof source === 'string') return source;
    if (isRegistryPrompt(source)) {
      const resolved = await source.resolve(context);
      onRegistryPrompt(resolved);
      return resolved.text;
    }
    return source(context);
  }
}

/** A REST tool rebuilt from its trace definition (configuration alone), joining no registry. */
function rebuildRestTool(dict: ToolDict, headers: Record<string, string> | undefined): Tool {
  try {
    return RESTTool.fromDict(dict, { ...(headers ? { headers } : {}), registry: false });
  } catch (error) {
    throw new ReconstructionError(`cannot rebuild REST tool '${dict.name}': ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
