/**
 * Turning a loaded runner into an MCP target: one run per call, its result as the contract's McpRunResult, the
 * client's cancellation as the run's abort signal.
 */
import type { AgentResult, ChainResult } from '../../generated/types/resources.js';
import { ConfigError } from '../errors.js';
import { runnerKind, runnerName } from '../runner-kind.js';
import { DEFAULT_REPLAY_CLASS, REPLAY_CLASSES, type ReplayClass } from '../tools/replay-class.js';
import { withTraceDestination } from '../tracing/index.js';
import type { McpExposedTool, McpRunResult, McpTarget } from './target.js';

interface ToolLike {
  name: string;
  description?: string;
  replayClass?: unknown;
  pauses?: unknown;
  toDefinition?(): { name: string; description?: string; parameters?: Record<string, unknown> };
  parameters?: Record<string, unknown>;
}

interface RunnerLike {
  name?: string;
  description?: unknown;
  tools?: readonly ToolLike[];
  run(input: string, options?: { signal?: AbortSignal }): Promise<AgentResult | ChainResult>;
}

/** How an agent's own tool is invoked outside a run (`--expose-tools`); `signal` aborts it. */
export type InvokeTool = (tool: unknown, args: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

export interface McpAdapterOptions {
  traceDb: string;
  /** Runs one of the agent's tools directly (validated arguments, its own span). */
  invokeTool: InvokeTool;
}

/** Adapt `value`; throws ConfigError naming what it is when it is not a runner. */
export function toMcpTarget(value: unknown, options: McpAdapterOptions): McpTarget {
  const kind = runnerKind(value);
  if (!kind) throw new ConfigError('cannot serve this target over MCP: expected an Agent, Chain, Swarm or Supervisor');
  const runner = value as RunnerLike;
  const tools: McpExposedTool[] = kind === 'agent' ? (runner.tools ?? []).map((tool) => exposed(tool, options)) : [];
  return {
    kind,
    name: runnerName(value, kind),
    // Only what the runner says it does: its system prompt is instructions for the model, not for clients.
    description: typeof runner.description === 'string' ? runner.description.trim() : '',
    tools,
    async run(input, signal, parent) {
      return runResult(await withTraceDestination(options.traceDb, () => runner.run(input, { signal }), parent));
    },
  };
}

/** A run's result as the contract's McpRunResult. */
export function runResult(result: AgentResult | ChainResult): McpRunResult {
  if (result.status === 'paused' && result.pending_interrupt) {
    return { output: '', status: 'paused', execution_id: result.execution_id, trace_id: result.trace_id, pending_interrupt: result.pending_interrupt };
  }
  const output: unknown = result.output;
  return {
    output: typeof output === 'string' ? output : (JSON.stringify(output ?? null) ?? 'null'),
    status: 'completed',
    execution_id: result.execution_id,
    trace_id: result.trace_id,
    pending_interrupt: null,
  };
}

function exposed(tool: ToolLike, options: McpAdapterOptions): McpExposedTool {
  const definition = tool.toDefinition?.();
  const parameters = definition?.parameters ?? tool.parameters ?? {};
  const replayClass = (REPLAY_CLASSES as readonly unknown[]).includes(tool.replayClass) ? (tool.replayClass as ReplayClass) : DEFAULT_REPLAY_CLASS;
  return {
    name: tool.name,
    description: definition?.description ?? tool.description ?? '',
    inputSchema: { ...parameters, type: 'object' },
    replayClass,
    pauses: tool.pauses === true,
    call: (args, signal, parent) => withTraceDestination(options.traceDb, () => options.invokeTool(tool, args, signal), parent),
  };
}
