/**
 * `agentkit mcp serve`: an MCP server over stdio (the `mcp-server` extra, @modelcontextprotocol/sdk). It lists one
 * primary tool that runs the target with an `input` argument and, with `exposeTools`, each of an Agent's tools that
 * can run on its own. Rules (docs/adr/0007-mcp-server.md):
 *
 * - Arguments are checked against the schema the tool advertised: a mismatch is a JSON-RPC -32602 error naming each
 *   offending path. Failures of the run or the tool are MCP error results (`isError: true`), never a dead server.
 * - The primary tool has one `outputSchema` (the contract's McpRunResult, completed or paused) and every successful
 *   call returns it as `structuredContent`, with the same answer as text beside it; error results carry none.
 * - `notifications/cancelled`, a client's timeout (which sends one) and the client leaving abort the call's run
 *   through its abort signal, as an HTTP disconnect does for the served agent.
 * - A tool that declares `pauses` is not listed alone (its pause needs the agent's run); listed tools carry MCP
 *   annotations from their replay class.
 */
import type { Context } from '@opentelemetry/api';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Readable, Writable } from 'node:stream';
import { maskCredentials } from '../config/redact.js';
import { isPlainObject } from '../durability/json.js';
import { describePause } from '../pause-text.js';
import type { ReplayClass } from '../tools/replay-class.js';
import { outputText } from '../tools/invoke.js';
import { callerContextOf } from '../tracing/propagation.js';
import { VERSION } from '../version.js';
import { argumentChecker, InvalidParamsError, type ArgumentProblem } from './arguments.js';
import { jsonRpcGuard } from './jsonrpc-guard.js';
import { RUN_RESULT_OUTPUT_SCHEMA } from './output-schema.js';
import type { McpExposedTool, McpTarget } from './target.js';

export interface McpServeOptions {
  /** Name of the primary tool (default: the target's name), sanitized to `[A-Za-z0-9_-]`. */
  name?: string;
  /** Also list the target's own tools (those that do not pause). */
  exposeTools?: boolean;
  /**
   * The target as `agentkit resume --runner` takes it (`/abs/agents.ts:support`): a paused run's text says how to
   * resume it with this. Default: the placeholder `module:attr`.
   */
  runner?: string;
  /** One line per call that ended early (cancelled, or still running when the server stopped). Default: silent. */
  log?: (line: string) => void;
}

/** MCP tool names allow `[A-Za-z0-9_-]`, at most 64 characters. */
export function sanitizeToolName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return cleaned || 'agent';
}

/** MCP tool annotations (hints for a client deciding whether to ask the user first). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

type Content = Array<{ type: 'text'; text: string }>;

/** What a call returns (a `tools/call` result). */
export interface ToolResult {
  content: Content;
  structuredContent?: Record<string, unknown>;
  isError?: true;
  [key: string]: unknown;
}

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { readonly type: 'object'; readonly [key: string]: unknown };
  annotations?: ToolAnnotations;
  /**
   * Run with arguments that match `inputSchema`; `signal` aborts when the call is cancelled; `parent` is the caller's
   * context from the call's `_meta`. Throws on failure.
   */
  call(args: Record<string, unknown>, signal: AbortSignal, parent?: Context): Promise<ToolResult>;
}

/**
 * The annotations of a replay class: `read_only` is `readOnlyHint`, `idempotent` is `idempotentHint` (and not
 * read-only), `side_effecting` is `destructiveHint` (and neither).
 */
export function annotationsFor(replayClass: ReplayClass): ToolAnnotations {
  switch (replayClass) {
    case 'read_only':
      return { readOnlyHint: true };
    case 'idempotent':
      return { readOnlyHint: false, idempotentHint: true };
    case 'side_effecting':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: false };
  }
}

/** The primary tool's description: the target's own description, or a fixed sentence with its name; then how to call it. */
export function primaryDescription(target: McpTarget): string {
  const what = target.description || `Ask the '${target.name}' ${target.kind}.`;
  return `${what} Send the request as 'input'. A run that pauses for a human decision answers with status 'paused' and the execution_id to resume it by.`;
}

/** The tools the server lists: the primary one first, then the exposed ones that can run alone and do not clash. */
export function listedTools(target: McpTarget, options: McpServeOptions = {}): ListedTool[] {
  const primaryName = sanitizeToolName(options.name ?? target.name);
  const primary: ListedTool = {
    name: primaryName,
    description: primaryDescription(target),
    inputSchema: {
      type: 'object',
      properties: { input: { type: 'string', description: `The request for the ${target.kind}.` } },
      required: ['input'],
      additionalProperties: false,
    },
    outputSchema: RUN_RESULT_OUTPUT_SCHEMA,
    async call(args, signal, parent) {
      const input = args.input as string;
      if (input.trim() === '') throw new Error("'input' cannot be empty.");
      const result = await target.run(input, signal, parent);
      const text = result.status === 'paused' ? describePause(result.execution_id, result.pending_interrupt, options.runner) : result.output;
      return { content: [{ type: 'text', text }], structuredContent: { ...result } };
    },
  };
  const tools = [primary];
  if (options.exposeTools) {
    const taken = new Set([primaryName]);
    for (const tool of target.tools ?? []) {
      const name = sanitizeToolName(tool.name);
      if (tool.pauses || taken.has(name)) continue;
      taken.add(name);
      tools.push(exposed(tool, name, target));
    }
  }
  return tools;
}

/** Names of the target's tools `--expose-tools` leaves out because they pause (run them through the primary tool). */
export function withheldTools(target: McpTarget, options: McpServeOptions = {}): string[] {
  return options.exposeTools ? (target.tools ?? []).filter((tool) => tool.pauses).map((tool) => tool.name) : [];
}

function exposed(tool: McpExposedTool, name: string, target: McpTarget): ListedTool {
  return {
    name,
    description: tool.description || `The '${tool.name}' tool of the '${target.name}' ${target.kind}.`,
    inputSchema: tool.inputSchema,
    annotations: annotationsFor(tool.replayClass),
    async call(args, signal, parent) {
      const output = await tool.call(args, signal, parent);
      const text = outputText(output);
      // A JSON object result is also structured content (a copy through JSON: exactly what the text says).
      const structured = isPlainObject(output) ? (JSON.parse(text) as unknown) : undefined;
      return { content: [{ type: 'text', text }], ...(isPlainObject(structured) ? { structuredContent: structured } : {}) };
    },
  };
}

/** A connected (or connectable) server and the calls it is running. */
export interface McpServing {
  readonly server: Server;
  /** Names of the listed tools, primary first. */
  readonly tools: readonly string[];
  /**
   * Abort every call in progress (their runs get `reason`), wait for them to settle for at most `graceMs`, then close
   * the server. Resolves with the number of calls still running when it gave up waiting (0 when all settled).
   */
  close(reason?: string, graceMs?: number): Promise<number>;
}

/** Build the MCP server (not yet connected). Throws ConfigError when a tool's input schema cannot be compiled. */
export async function createMcpServer(target: McpTarget, options: McpServeOptions = {}): Promise<McpServing> {
  const [{ Server: McpServer }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const tools = listedTools(target, options);
  const checks = new Map(tools.map((tool) => [tool.name, argumentChecker(tool.name, tool.inputSchema)] as const));
  const running = new Map<AbortController, Promise<unknown>>();
  const log = options.log ?? (() => undefined);
  const server = new McpServer({ name: `agentkit-${sanitizeToolName(target.name)}`, version: VERSION }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, description, inputSchema, outputSchema, annotations }) => ({
      name,
      description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(annotations ? { annotations } : {}),
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolResult> => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) return errorResult(`unknown tool '${request.params.name}'. Tools: ${tools.map((t) => t.name).join(', ')}.`);
    const args = request.params.arguments ?? {};
    const problems: ArgumentProblem[] = checks.get(tool.name)!(args);
    if (problems.length > 0) throw new InvalidParamsError(tool.name, problems);

    // The call's own controller: the client's cancel (or the server closing) aborts it with a reason that says so.
    const controller = new AbortController();
    const cancelled = () => controller.abort(cancellation(extra.signal.reason));
    if (extra.signal.aborted) cancelled();
    else extra.signal.addEventListener('abort', cancelled, { once: true });
    // W3C context in `_meta` (`traceparent`, `tracestate`, `baggage`): the call's run is a child of the caller's span.
    const meta = request.params._meta;
    const work = tool.call(args, controller.signal, meta ? callerContextOf(meta) : undefined);
    running.set(controller, work);
    try {
      return await work;
    } catch (error) {
      if (controller.signal.aborted) {
        log(maskCredentials(`agentkit: ${describeCall(tool.name, extra.requestId)} stopped: ${reasonText(controller.signal.reason)}`));
        // Nobody reads this answer (the SDK sends none for a cancelled request), but the handler must return one.
        return errorResult(reasonText(controller.signal.reason));
      }
      return errorResult(error instanceof Error ? error.message : String(error));
    } finally {
      extra.signal.removeEventListener('abort', cancelled);
      running.delete(controller);
    }
  });

  return {
    server,
    tools: tools.map((t) => t.name),
    async close(reason = 'the MCP server is shutting down', graceMs = 10_000) {
      const calls = [...running.entries()];
      for (const [controller] of calls) controller.abort(abortError(reason));
      const settled = Promise.allSettled(calls.map(([, work]) => work));
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
        timer.unref();
      });
      const outcome = await Promise.race([settled, gaveUp]);
      clearTimeout(timer);
      await server.close().catch(() => undefined);
      return outcome === 'timeout' ? running.size : 0;
    },
  };
}

/** Serve over stdio (the process's own streams unless given) until stdin closes. Resolves once connected. */
export async function serveMcpStdio(
  target: McpTarget,
  options: McpServeOptions = {},
  streams: { stdin?: Readable; stdout?: Writable } = {},
): Promise<McpServing> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const serving = await createMcpServer(target, options);
  const stdin = streams.stdin ?? process.stdin;
  const stdout = streams.stdout ?? process.stdout;
  // Lines the SDK would drop silently (not JSON, not JSON-RPC, bad tools/call params) are answered per JSON-RPC 2.0.
  const guarded = stdin.pipe(jsonRpcGuard(stdout));
  await serving.server.connect(new StdioServerTransport(guarded, stdout));
  return serving;
}

/** An MCP error result; its text never carries a registered secret or a credential shape (docs/adr/0010). */
function errorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: `Error: ${maskCredentials(message)}` }], isError: true };
}

/** The abort reason of a call the client cancelled: `notifications/cancelled` may carry a reason of its own. */
function cancellation(clientReason: unknown): Error {
  const given = typeof clientReason === 'string' ? clientReason.replace(/\s+/g, ' ').trim().slice(0, 200) : '';
  return abortError(given ? `the MCP client cancelled the call: ${given}` : 'the MCP client cancelled the call');
}

function abortError(message: string): Error {
  return new DOMException(message, 'AbortError');
}

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

function describeCall(tool: string, id: string | number): string {
  return `call ${JSON.stringify(id)} of tool '${tool}'`;
}
