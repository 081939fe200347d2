/**
 * `agentkit mcp serve`: an MCP server over stdio (the `mcp-server` extra, @modelcontextprotocol/sdk). It lists one
 * primary tool that runs the target with an `input` argument and, with `exposeTools`, each of an Agent's tools.
 * Failures come back as MCP error results (`isError: true`), never as a dead server. stdout is the protocol: nothing
 * else may write there, so all logging goes to stderr.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Readable, Writable } from 'node:stream';
import { VERSION } from '../version.js';
import type { McpExposedTool, McpTarget } from './target.js';
import { jsonRpcGuard } from './jsonrpc-guard.js';

export interface McpServeOptions {
  /** Name of the primary tool (default: the target's name), sanitized to `[A-Za-z0-9_-]`. */
  name?: string;
  /** Also list the target's own tools. */
  exposeTools?: boolean;
}

/** MCP tool names allow `[A-Za-z0-9_-]`, at most 64 characters. */
export function sanitizeToolName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return cleaned || 'agent';
}

interface ListedTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  call(args: Record<string, unknown>): Promise<string>;
}

/** The tools the server lists: the primary one first, then the exposed ones that do not clash with it. */
export function listedTools(target: McpTarget, options: McpServeOptions = {}): ListedTool[] {
  const primaryName = sanitizeToolName(options.name ?? target.name);
  const primary: ListedTool = {
    name: primaryName,
    description: `Invoke the '${target.name}' ${target.kind}. ${target.description}`.trim() + " Pass your request as 'input'.",
    inputSchema: {
      type: 'object',
      properties: { input: { type: 'string', description: `The request for the ${target.kind}.` } },
      required: ['input'],
      additionalProperties: false,
    },
    async call(args) {
      const input = args.input;
      if (input !== undefined && typeof input !== 'string')
        throw new Error(`'input' argument must be a string, not ${input === null ? 'null' : typeof input}.`);
      if (typeof input !== 'string' || input.trim() === '') throw new Error("'input' argument is required and cannot be empty.");
      return target.run(input);
    },
  };
  const tools = [primary];
  if (options.exposeTools) {
    const taken = new Set([primaryName]);
    for (const tool of target.tools ?? []) {
      const name = sanitizeToolName(tool.name);
      if (taken.has(name)) continue;
      taken.add(name);
      tools.push(exposed(tool, name));
    }
  }
  return tools;
}

function exposed(tool: McpExposedTool, name: string): ListedTool {
  return {
    name,
    description: tool.description || tool.name,
    inputSchema: tool.inputSchema,
    async call(args) {
      const output = await tool.call(args);
      return typeof output === 'string' ? output : JSON.stringify(output);
    },
  };
}

/** Build the MCP server (not yet connected). */
export async function createMcpServer(target: McpTarget, options: McpServeOptions = {}): Promise<Server> {
  const [{ Server: McpServer }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const tools = listedTools(target, options);
  const server = new McpServer({ name: `agentkit-${sanitizeToolName(target.name)}`, version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) {
      return {
        content: [{ type: 'text' as const, text: `Error: unknown tool '${request.params.name}'. Tools: ${tools.map((t) => t.name).join(', ')}.` }],
        isError: true,
      };
    }
    try {
      const text = await tool.call(request.params.arguments ?? {});
      return { content: [{ type: 'text' as const, text }] };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { content: [{ type: 'text' as const, text: `Error: ${message}` }], isError: true };
    }
  });
  return server;
}

/** Serve over stdio (the process's own streams unless given) until stdin closes. Resolves once connected. */
export async function serveMcpStdio(target: McpTarget, options: McpServeOptions = {}, streams: { stdin?: Readable; stdout?: Writable } = {}): Promise<Server> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = await createMcpServer(target, options);
  const stdin = streams.stdin ?? process.stdin;
  const stdout = streams.stdout ?? process.stdout;
  // Lines the SDK would drop silently (not JSON, not JSON-RPC, bad tools/call params) are answered per JSON-RPC 2.0.
  const guarded = stdin.pipe(jsonRpcGuard(stdout));
  await server.connect(new StdioServerTransport(guarded, stdout));
  return server;
}
