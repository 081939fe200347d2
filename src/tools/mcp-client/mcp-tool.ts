/**
 * One tool of an external MCP server as an agentkit tool: the server's name (made provider-safe), description and
 * input schema; calls go over the shared connection. Its replay class comes from the server's annotations
 * (`readOnlyHint` -> read_only, `idempotentHint` -> idempotent, else side_effecting) unless set explicitly.
 */
import type { JsonObject } from '../../llm/messages.js';
import type { ToolRegistry } from '../registry.js';
import type { ReplayClass } from '../replay-class.js';
import { Tool, type ToolContext } from '../tool.js';
import { ToolError } from '../tool-error.js';
import type { McpConnection } from './connection.js';
import { callResultValue } from './result.js';

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

export interface McpToolOptions {
  connection: McpConnection;
  /** The agentkit name (what the model sees). */
  name: string;
  /** The name the server knows the tool by. */
  mcpName: string;
  description: string;
  parameters: JsonObject;
  replayClass: ReplayClass;
  timeoutMs: number;
  /** What `toDict()` records about the server (secrets already redacted). */
  server: JsonObject;
  registry?: ToolRegistry | false;
}

export class McpTool extends Tool {
  readonly toolType = 'mcp';
  readonly origin = 'mcp';
  readonly mcpName: string;
  private readonly connection: McpConnection;
  private readonly callTimeoutMs: number;
  private readonly server: JsonObject;

  constructor(options: McpToolOptions) {
    super({
      name: options.name,
      description: options.description,
      parameters: options.parameters,
      replayClass: options.replayClass,
      ...(options.registry !== undefined ? { registry: options.registry } : {}),
    });
    this.mcpName = options.mcpName;
    this.connection = options.connection;
    this.callTimeoutMs = options.timeoutMs;
    this.server = options.server;
  }

  /**
   * Validate `args` and call the tool on the server. Returns its structured content, else its content as text.
   * Throws ToolError: `validation_failed` naming the argument, `tool_execution_error` when the server reports an
   * error, the call times out or the connection is gone.
   */
  async execute(args: JsonObject, context?: Partial<ToolContext>): Promise<unknown> {
    const prepared = this.prepareArguments(args ?? {});
    if (!prepared.ok) throw new ToolError('validation_failed', `tool '${this.name}': invalid arguments: ${prepared.problems.join('; ')}`);
    let result;
    try {
      result = await this.connection.callTool(this.mcpName, prepared.args, {
        timeoutMs: this.callTimeoutMs,
        ...(context?.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      if (context?.signal?.aborted) throw context.signal.reason;
      throw new ToolError('tool_execution_error', `tool '${this.name}': ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return callResultValue(this.name, result);
  }

  /** Close the connection to the server (shared by every tool listed from it). */
  override async close(): Promise<void> {
    await this.connection.close();
  }

  protected override config(): JsonObject {
    return { ...this.server, mcp_name: this.mcpName, timeout_ms: this.callTimeoutMs };
  }
}
