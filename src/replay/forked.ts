/**
 * A fork of a replay: anchored at a step, changed by chainable modifiers, then rerun from the top as a new trace
 * (rules 1-6 of the spec's "Replay rerun rules"), and compared with the original. The rerun reruns the agent span at
 * the fork step, or the nearest agent above it, or the trace's first agent (see scope.ts).
 */
import { trace, type Span as OtelSpan } from '@opentelemetry/api';
import type { AgentResult } from '../types.js';
import { NotImplementedError, ConfigError } from '../errors.js';
import type { ChatModel } from '../llm/types.js';
import type { Tool } from '../tools/tool.js';
import { AGENT_ATTR } from '../tracing/attributes.js';
import { storedTraceId } from '../tracing/setup.js';
import type { ComparisonResult, ReplayStep, Span } from '../types.js';
import { compareSteps, describeComparison } from './compare.js';
import type { ReplayError } from './errors.js';
import { DEFAULT_REPLAY_MODE, REPLAY_MODES, type Determinism, type DeterminismOptions, type ReplayMode } from './mode.js';
import { inputText, noModifications, splitConfigPatch, type ConfigPatch, type Modifications } from './modifications.js';
import { rebuildAgent, type RebuildSources } from './rebuild.js';
import type { Replay } from './replay.js';
import { ReplayRunResult } from './result.js';
import { agentSpanFor, subtreeOf } from './scope.js';
import { asOneRun, runLegs } from './execution.js';
import { ReplayError as RerunError } from './errors.js';
import { ChainCheckpointError } from '../durability/errors.js';
import { REPLAY_ATTR } from './span-attributes.js';
import { promptModification, type LoadedPromptVersion } from './prompt-modification.js';
import type { RegistryPrompt } from '../agent/registry-prompt.js';
import { stepsOf } from './steps.js';
import { decodeValue } from '../tracing/payload-keys.js';

export interface RerunOptions extends RebuildSources {
  /** Cancels the rerun. */
  signal?: AbortSignal;
  /** The `context` value the agent's tools, guardrails and prompt function receive. */
  context?: unknown;
  /**
   * Called once, inside the rerun's agent span, with the new trace's id: the agent was rebuilt and runs now. A
   * watcher (the local UI's rerun stream) reads the trace's spans from the store as they end.
   */
  onTraceStart?: (traceId: string) => void;
}

export class ForkedReplay {
  /** The fork step: the divergence anchor of `compare` (a rerun always starts from the top). */
  readonly step: number;
  private readonly mods: Modifications = noModifications();
  private determinism: Determinism = { mode: DEFAULT_REPLAY_MODE, onMiss: 'live', allowSideEffects: false };
  private readonly agentSpan: Span;

  constructor(
    readonly replay: Replay,
    step: number,
  ) {
    this.step = step;
    // A fork in a resume's leg reruns the run from its first leg (which holds the reconstruction attributes).
    const span = agentSpanFor(replay.trace.spans, step, replay.traceId);
    this.agentSpan = runLegs(replay.trace.spans, span)[0] ?? span;
  }

  /** The name of the agent this fork reruns. */
  get agentName(): string {
    return this.agentSpan.name.slice('agent.'.length);
  }

  /** The input the fork's agent span recorded (`agent.input`), or null when it has none. */
  get originalInput(): string | null {
    const input = this.agentSpan.attributes[AGENT_ATTR.input];
    return typeof input === 'string' ? input : null;
  }

  /** The current determinism settings. */
  get settings(): Readonly<Determinism> {
    return { ...this.determinism };
  }

  /** The changes made so far (a copy). */
  get modifications(): {
    prompt: string | RegistryPrompt | null;
    input: string | null;
    config: ConfigPatch;
    toolOverrides: Record<string, unknown>;
    tools: string[];
  } {
    return {
      prompt: this.mods.prompt,
      input: this.mods.input,
      config: { ...this.mods.config, ...(this.mods.model ? { model: this.mods.model } : {}) },
      toolOverrides: Object.fromEntries(this.mods.toolOverrides),
      tools: [...this.mods.tools.keys()],
    };
  }

  /**
   * Replace the system prompt with a text, or with a version from the prompt registry: a reference
   * (`registry.ref(name, { version | label, variables })`, resolved at rerun time, so the rerun's `agent.<name>` span
   * records `agent.prompt.name` and `agent.prompt.version`) or a loaded version (`await registry.load(name,
   * { version })`, rendered with `variables`, and resolved the same way so its name and version are recorded too).
   */
  modifyPrompt(prompt: string | RegistryPrompt | LoadedPromptVersion, variables: Readonly<Record<string, unknown>> = {}): this {
    this.mods.prompt = promptModification(prompt, variables);
    return this;
  }

  /** Replace the input: a string, an object's `input` string, or any other JSON value as its JSON text. */
  modifyInput(value: unknown): this {
    this.mods.input = inputText(value);
    return this;
  }

  /** Change configuration values (`temperature`, `maxTokens`/`max_tokens`, `topP`/`top_p`, `seed`, `model`, `maxIterations`, ...); merged over earlier calls. */
  modifyConfig(patch: ConfigPatch): this {
    if (!patch || typeof patch !== 'object') throw new ConfigError('modifyConfig needs an object of settings');
    const { config, model } = splitConfigPatch(patch);
    Object.assign(this.mods.config, config);
    if (model !== null) this.mods.model = model;
    return this;
  }

  /** Answer every call of `toolName` with `response` (strings as they are, anything else as JSON) instead of running it. */
  withToolOverride(toolName: string, response: unknown): this {
    if (typeof toolName !== 'string' || toolName === '') throw new ConfigError('withToolOverride needs a tool name');
    this.mods.toolOverrides.set(toolName, response);
    return this;
  }

  /** Use these tools (by name) instead of the registered ones: tools built at run time survive a replay this way. */
  withTools(tools: readonly Tool[]): this {
    for (const tool of tools) this.mods.tools.set(tool.name, tool);
    return this;
  }

  /**
   * Call this model wherever the rerun needs a live answer (live mode, or after a recorded miss), instead of the
   * registered agent's or one rebuilt from the trace: a model that cannot be rebuilt from a trace (an AI SDK model, a
   * function model) reruns live this way. Same as `rerun({ llm })`, which wins when both are given.
   */
  withModel(model: ChatModel): this {
    if (!model || typeof model.complete !== 'function' || typeof model.stream !== 'function') {
      throw new ConfigError('withModel needs a chat model (for an AI SDK model: withModel(aiSdkModel(model)))');
    }
    this.mods.llm = model;
    return this;
  }

  /** Choose `live` or `recorded` (the default) model answers, what a recorded miss does, and whether side effects may run. */
  withDeterminism(mode: ReplayMode, options: DeterminismOptions = {}): this {
    if (!REPLAY_MODES.includes(mode)) throw new ConfigError(`replay mode must be one of ${REPLAY_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
    const onMiss = options.onMiss ?? 'live';
    if (onMiss !== 'live' && onMiss !== 'error') throw new ConfigError(`onMiss must be 'live' or 'error', got ${JSON.stringify(onMiss)}`);
    this.determinism = { mode, onMiss, allowSideEffects: options.allowSideEffects === true };
    return this;
  }

  /** Not supported: a replay reruns from the top. Branch state with `chain.fork(executionId, { modifiedState })`. */
  modifyState(_state?: unknown): never {
    throw new NotImplementedError(
      'modifyState() is not supported by replay (a rerun starts from the top); branch state with chain.fork(executionId, { checkpointId, modifiedState }) instead',
    );
  }

  /**
   * Rebuild the agent, apply the changes, run it from the top with a new trace in the replay's store. Rejects with
   * ReplayError when the trace cannot be rebuilt (naming what is missing) or a guarded tool had to stop the run.
   */
  async rerun(options: RerunOptions = {}): Promise<ReplayRunResult> {
    const controller = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    const stop = (error: ReplayError): never => {
      controller.abort(error);
      throw error;
    };
    const redactionHash = await this.replay.redactionHash();
    const { agent, input, model, guard } = rebuildAgent(
      this.replay.traceId,
      this.replay.trace.spans,
      this.agentSpan,
      this.mods,
      this.determinism,
      { ...options, llm: options.llm ?? this.mods.llm ?? undefined, ...(redactionHash ? { redactionHash } : {}) },
      stop,
    );
    let marked = false;
    const result: AgentResult = await runOrExplain(agent.name, () =>
      agent.run(input, {
        traceDb: this.replay.store.dbPath,
        signal,
        context: options.context,
        hooks: {
          // Called inside the agent span: mark it as a rerun of this trace once.
          beforeTurn: () => {
            if (marked) return;
            marked = true;
            const active = trace.getActiveSpan();
            markRoot(active, this);
            if (active?.isRecording()) options.onTraceStart?.(storedTraceId(active));
          },
        },
      }),
    );
    const steps = result.trace_id
      ? (await this.replay.store.spans(result.trace_id)).length
      : 1 + model.recordedCount + model.liveCount + result.tool_calls.length;
    return new ReplayRunResult({
      // A run that paused and was resumed answered in its last leg.
      original_output: decodeValue(runLegs(this.replay.trace.spans, this.agentSpan).at(-1)!.attributes[AGENT_ATTR.output] ?? null),
      new_output: result.output,
      steps_executed: steps,
      trace_id: result.trace_id,
      source_trace_id: this.replay.traceId,
      input,
      mode: this.determinism.mode,
      counts: {
        recordedModelCalls: model.recordedCount,
        liveModelCalls: model.liveCount,
        liveToolCalls: guard.counts.live,
        recordedToolCalls: guard.counts.recorded,
        overriddenToolCalls: guard.counts.override,
      },
      agentResult: result,
    });
  }

  /**
   * Compare a rerun with the original, step by step. The original's steps are the rerun agent's span and those below
   * it (the whole trace when that agent is the root), numbered from 0 like the rerun's.
   */
  async compare(result: { trace_id: string | null }): Promise<ComparisonResult> {
    const rerun = result.trace_id ? stepsOf(await this.replay.store.spans(result.trace_id)) : null;
    return compareSteps(this.originalSteps(), rerun);
  }

  /** `compare` as text: where it diverged and a line diff of that step's output. */
  async diff(result: { trace_id: string | null }): Promise<string> {
    return describeComparison(await this.compare(result));
  }

  /** The steps a rerun is compared with. */
  originalSteps(): ReplayStep[] {
    const spans = this.replay.trace.spans;
    // An execution's legs read as one run: the resume's root and the paused call it answered are left out.
    if (this.agentSpan === spans[0] && this.agentSpan.parent_span_id === null) return stepsOf(asOneRun(spans));
    const legs = runLegs(spans, this.agentSpan);
    return stepsOf(asOneRun(legs.flatMap((leg) => subtreeOf(spans, leg))));
  }
}

function markRoot(span: OtelSpan | undefined, fork: ForkedReplay): void {
  if (!span?.isRecording()) return;
  span.setAttributes({
    [REPLAY_ATTR.sourceTraceId]: fork.replay.traceId,
    [REPLAY_ATTR.sourceSpanId]: fork.replay.span(fork.step).span_id,
    [REPLAY_ATTR.forkStep]: fork.step,
    [REPLAY_ATTR.mode]: fork.settings.mode,
  });
}

/**
 * Run the rebuilt agent. A rerun that must pause (live mode, or a trace still paused) needs the module's
 * checkpointer: without one it cannot be rerun as asked, which is a ReplayError (exit 2) saying how to supply it.
 */
async function runOrExplain(agentName: string, run: () => Promise<AgentResult>): Promise<AgentResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ChainCheckpointError && /has no checkpointer/.test(error.message)) {
      throw new RerunError(
        `cannot rerun agent '${agentName}' as asked: the rerun pauses for a decision (interrupt()) and the agent has no checkpointer to keep the pause; register the agent with its checkpointer (agentkit replay fork --agent <file>:${agentName}) or use recorded mode on a trace that holds the decision`,
        { cause: error },
      );
    }
    throw error;
  }
}
