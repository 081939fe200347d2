/**
 * Rebuilding the agent a fork reruns (rerun rules 1-3): decode the chosen `agent.<name>` span's reconstruction
 * attributes, apply the fork's changes, and rebind every tool and guardrail by name. Where the trace cannot carry
 * something (a model or tool defined in code), it comes from, in order: what the fork was given (`withTools`, the
 * rerun's `llm` or `withModel`), the registered agent of the same name (`agent` option, `--agent` on the CLI), the registries.
 */
import { Agent } from '../agent/agent.js';
import { agentConfig, agentConfigFromDict } from '../agent/config.js';
import { agentDefinitionFromAttributes, RECONSTRUCTION_ATTRIBUTES, type AgentDefinition } from '../agent/definition.js';
import { AgentkitError, ConfigError } from '../errors.js';
import type { Guardrail } from '../guardrails/guardrail.js';
import { currentGuardrailRegistry, type GuardrailRegistry } from '../guardrails/registry.js';
import { createModel, type ModelSecrets } from '../llm/create.js';
import type { ChatModel } from '../llm/types.js';
import { AGENT_ATTR } from '../tracing/attributes.js';
import { currentToolRegistry, type ToolRegistry } from '../tools/registry.js';
import type { Tool } from '../tools/tool.js';
import type { Span } from '../types.js';
import { ReplayError } from './errors.js';
import type { Determinism } from './mode.js';
import { UNRECORDED_SETTINGS, type Modifications } from './modifications.js';
import type { KeyedHash } from '../tracing/redaction-hash.js';
import { recordedCalls, ReplayModel } from './recorded-model.js';
import { recordedDecisions, recordedToolCalls, ReplayTool, type ToolGuard } from './replay-tools.js';
import { runLegs } from './execution.js';
import { childrenOf } from './scope.js';

/** What a rerun may be given besides the trace. */
export interface RebuildSources {
  /** The registered agent of the same name: its model, tools, guardrails and prompt fill what the trace lacks. */
  agent?: Agent;
  /** The model to call live (default: the registered agent's, else one built from the recorded configuration). */
  llm?: ChatModel;
  /** Key and header values for a model built from the recorded configuration. */
  secrets?: ModelSecrets;
  toolRegistry?: ToolRegistry;
  guardrailRegistry?: GuardrailRegistry;
  /** The keyed hash of the trace's masked values (its store's), to match masked recorded calls (docs/adr/0010). */
  redactionHash?: KeyedHash;
}

export interface Rebuilt {
  agent: Agent;
  input: string;
  model: ReplayModel;
  guard: ToolGuard;
}

/** The agent to rerun and its input. ReplayError for anything missing, naming it and how to supply it. */
export function rebuildAgent(
  traceId: string,
  spans: readonly Span[],
  agentSpan: Span,
  mods: Modifications,
  determinism: Determinism,
  sources: RebuildSources,
  stop: ToolGuard['stop'],
): Rebuilt {
  const definition = definitionOf(traceId, agentSpan);
  const registered = sources.agent && sources.agent.name === definition.name ? sources.agent : undefined;
  if (sources.agent && !registered)
    throw new ReplayError(
      `the registered agent is '${sources.agent.name}' but the trace's agent is '${definition.name}'; register the agent named '${definition.name}'`,
    );

  // A run that paused and was resumed has one root per leg: its recorded calls are under all of them, in order.
  const legs = runLegs(spans, agentSpan);
  const under = (prefix: string) => legs.flatMap((leg) => childrenOf(spans, leg, prefix)).sort((a, b) => spans.indexOf(a) - spans.indexOf(b));
  const toolSpans = under('tool.');
  const guard: ToolGuard = {
    recorded: recordedToolCalls(toolSpans),
    decisions: recordedDecisions(toolSpans),
    mode: determinism.mode,
    overrides: mods.toolOverrides,
    allowSideEffects: determinism.allowSideEffects,
    stop,
    counts: { live: 0, recorded: 0, override: 0 },
    ...(sources.redactionHash ? { hash: sources.redactionHash } : {}),
  };
  const toolRegistry = sources.toolRegistry ?? currentToolRegistry();
  const tools = definition.tools.map((dict) => {
    const real = mods.tools.get(dict.name) ?? registered?.tools.find((t) => t.name === dict.name) ?? toolRegistry.get(dict.name) ?? null;
    // A guarded tool is only answered from the trace (or an override) unless side effects are allowed: no callable needed.
    const guarded = dict.replay_class !== 'read_only' && !determinism.allowSideEffects;
    if (!real && !mods.toolOverrides.has(dict.name) && !guarded) {
      throw new ReplayError(
        `cannot rerun agent '${definition.name}': tool '${dict.name}' cannot be rebound (no tool of that name is registered) and would have to run; import the module that defines it (agentkit replay fork --agent <file>:<agent>), pass it with withTools([...]), or answer it with withToolOverride('${dict.name}', response)`,
      );
    }
    return new ReplayTool(real as Tool | null, dict, guard);
  });

  const guardrailRegistry = sources.guardrailRegistry ?? currentGuardrailRegistry();
  const guardrails = definition.guardrails.map((dict): Guardrail => {
    const found = registered?.guardrails.find((g) => g.name === dict.name) ?? guardrailRegistry.get(dict.name);
    if (!found)
      throw new ReplayError(
        `cannot rerun agent '${definition.name}': guardrail '${dict.name}' cannot be rebound (none of that name is registered); import the module that defines it (agentkit replay fork --agent <file>:<agent>)`,
      );
    return found;
  });

  let config;
  try {
    config = agentConfig({ ...agentConfigFromDict(definition.config), ...mods.config });
  } catch (error) {
    throw new ReplayError(`cannot rerun agent '${definition.name}': ${(error as Error).message}`, { cause: error });
  }

  const model = replayModel(definition, under('llm.'), mods, determinism, sources, registered);
  const systemPrompt = mods.prompt ?? definition.system_prompt ?? registered?.systemPrompt ?? '';
  const input = mods.input ?? agentSpan.attributes[AGENT_ATTR.input];
  if (typeof input !== 'string')
    throw new ReplayError(`cannot rerun agent '${definition.name}': span ${agentSpan.span_id} has no agent.input; give one with modifyInput(...)`);
  // The module's checkpointer stays: a rerun that pauses (live mode, or a trace still paused) persists its pause there.
  const agent = new Agent({ name: definition.name, systemPrompt, llm: model, tools, guardrails, config, checkpointer: registered?.checkpointer ?? null });
  return { agent, input, model, guard };
}

function definitionOf(traceId: string, span: Span): AgentDefinition {
  const missing = RECONSTRUCTION_ATTRIBUTES.filter((key) => typeof span.attributes[key] !== 'string');
  if (missing.length > 0) {
    throw new ReplayError(
      `cannot rerun trace '${traceId}': span '${span.name}' has no reconstruction attributes (${missing.join(', ')}), so the agent cannot be rebuilt from it; record the run again with agentkit 0.1.7 or later (every agent.<name> span carries them)`,
    );
  }
  try {
    return agentDefinitionFromAttributes(span.attributes, span.name);
  } catch (error) {
    throw new ReplayError(`cannot rerun trace '${traceId}': ${(error as Error).message}`, { cause: error });
  }
}

function replayModel(
  definition: AgentDefinition,
  llmSpans: readonly Span[],
  mods: Modifications,
  determinism: Determinism,
  sources: RebuildSources,
  registered: Agent | undefined,
): ReplayModel {
  const config = { ...definition.llm, ...(mods.model ? { model: mods.model } : {}) };
  const given = sources.llm ?? registered?.llm;
  if (given && mods.model && mods.model !== given.model) {
    throw new ReplayError(
      `modifyConfig({ model: '${mods.model}' }) cannot change a model supplied in code ('${given.provider}' model '${given.model}'); pass the model you want with rerun({ llm })`,
    );
  }
  let built: ChatModel | undefined;
  const live = (): ChatModel => {
    if (given) return given;
    if (built) return built;
    try {
      built = createModel(config, sources.secrets);
      return built;
    } catch (error) {
      const why = error instanceof AgentkitError || error instanceof ConfigError ? error.message : String(error);
      throw new ReplayError(
        `agent '${definition.name}' needs a live model call but its '${config.provider}' model cannot be rebuilt from the trace (${why}); register the agent (agentkit replay fork --agent <file>:${definition.name}) or pass the model with fork.withModel(model) or rerun({ llm })`,
        { cause: error },
      );
    }
  };
  const forceLive = UNRECORDED_SETTINGS.some((key) => mods.config[key] !== undefined);
  return new ReplayModel({
    config,
    live,
    identity: given ? { provider: given.provider, model: given.model } : undefined,
    recorded: recordedCalls(llmSpans),
    determinism,
    forceLive,
    agentName: definition.name,
    ...(sources.redactionHash ? { hash: sources.redactionHash } : {}),
  });
}
