/** What `agentkit mcp serve` needs from a target: one primary tool that runs it, and optionally its own tools. */
import type { Context } from '@opentelemetry/api';
import type { McpRunResult } from '../../generated/types/resources.js';
import type { ReplayClass } from '../tools/replay-class.js';

export type { McpRunResult };

/** One of an Agent's own tools, as `--expose-tools` may list it. */
export interface McpExposedTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (`type: object`). */
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
  /** How safe the tool is to run again (its MCP annotations come from it). */
  readonly replayClass: ReplayClass;
  /** The tool declared that it may call `interrupt()`: it only runs inside its agent, so it is never listed alone. */
  readonly pauses: boolean;
  /**
   * Run the tool; `signal` aborts when the client cancels; `parent` is the caller's context (`_meta.traceparent`). A
   * thrown error becomes an MCP error result.
   */
  call(args: Record<string, unknown>, signal: AbortSignal, parent?: Context): Promise<unknown>;
}

export interface McpTarget {
  readonly kind: 'agent' | 'chain' | 'swarm' | 'supervisor';
  readonly name: string;
  /** The runner's own description ('' when it has none); never its system prompt. */
  readonly description: string;
  /**
   * Run the target on `input` until it answers or pauses; `signal` aborts the run (the client cancelled, timed out or
   * left). `parent` is the caller's context from the call's `_meta` (`traceparent`, `tracestate`, `baggage`): the run's
   * spans are its children on the wire (docs/adr/0009). Rejects when the run fails.
   */
  run(input: string, signal: AbortSignal, parent?: Context): Promise<McpRunResult>;
  /** The target's own tools (Agents only). */
  readonly tools?: readonly McpExposedTool[];
}
