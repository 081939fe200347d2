/** Turning a loaded runner into an MCP target: one run per call, text out, a pause described with its id. */
import type { AgentResult, ChainResult } from '../../generated/types/resources.js';
import { ConfigError } from '../errors.js';
import { describePause } from '../pause-text.js';
import { runnerKind, runnerName } from '../runner-kind.js';
import { withTraceDestination } from '../tracing/index.js';
import type { McpExposedTool, McpTarget } from './target.js';

interface ToolLike {
  name: string;
  description?: string;
  toDefinition?(): { name: string; description?: string; parameters?: Record<string, unknown> };
  parameters?: Record<string, unknown>;
}

interface RunnerLike {
  name?: string;
  systemPrompt?: unknown;
  tools?: readonly ToolLike[];
  run(input: string, options?: Record<string, unknown>): Promise<AgentResult | ChainResult>;
}

/** How an agent's own tool is invoked outside a run (`--expose-tools`). */
export type InvokeTool = (tool: unknown, args: Record<string, unknown>) => Promise<unknown>;

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
  const firstLine = typeof runner.systemPrompt === 'string' ? runner.systemPrompt.split('\n')[0]!.slice(0, 180) : '';
  const tools: McpExposedTool[] = kind === 'agent' ? (runner.tools ?? []).map((tool) => exposed(tool, options.invokeTool)) : [];
  return {
    kind,
    name: runnerName(value, kind),
    description: firstLine,
    tools,
    async run(input) {
      const result = await withTraceDestination(options.traceDb, () => runner.run(input, {}));
      if (result.status === 'paused') return describePause(result.execution_id, result.pending_interrupt);
      const output = (result as { output: unknown }).output;
      return typeof output === 'string' ? output : JSON.stringify(output ?? null);
    },
  };
}

function exposed(tool: ToolLike, invokeTool: InvokeTool): McpExposedTool {
  const definition = tool.toDefinition?.();
  const parameters = definition?.parameters ?? tool.parameters ?? {};
  return {
    name: tool.name,
    description: definition?.description ?? tool.description ?? '',
    inputSchema: { ...parameters, type: 'object' },
    call: (args) => invokeTool(tool, args),
  };
}
