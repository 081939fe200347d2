/**
 * `mcpTools(...)`: connect to an external MCP server, over stdio (`{ command, args, env }`) or Streamable HTTP
 * (`{ url, headers }`), and return its tools as agentkit tools. They run like function tools in an agent (validated
 * arguments, `tool.<name>` spans with origin `mcp`), over one connection that `close()` on the list, on any of its
 * tools or on the agent ends.
 */
import { registerSecret } from '../../config/secrets.js';
import { ConfigError } from '../../errors.js';
import type { JsonObject } from '../../llm/messages.js';
import { describeUrl } from '../net/safe-client.js';
import type { Resolver } from '../net/ssrf-guard.js';
import type { ToolRegistry } from '../registry.js';
import { replayClassOf, type ReplayClass } from '../replay-class.js';
import { REDACTED } from '../rest/headers.js';
import { McpConnection, type ListedTool } from './connection.js';
import { DEFAULT_MCP_TIMEOUT_MS, McpTool } from './mcp-tool.js';

interface CommonOptions {
  /** Only these tools (by their MCP names); default all. An unknown name is a ConfigError. */
  include?: readonly string[];
  /** Put before every agentkit tool name (`github_` -> `github_search`), to keep servers apart. */
  prefix?: string;
  /** One replay class for every tool, or one per MCP tool name; default from the server's annotations. */
  replayClass?: ReplayClass | Record<string, ReplayClass>;
  /** Time limit of one call in ms (default 60 s). */
  timeoutMs?: number;
  /** Registry the tools join (default: the current one); `false` to join none. */
  registry?: ToolRegistry | false;
}

export interface StdioMcpOptions extends CommonOptions {
  command: string;
  args?: readonly string[];
  /**
   * Added to the SDK's default environment of the server. Values of names that look like credentials (KEY, TOKEN,
   * SECRET, PASSWORD, AUTH, CREDENTIAL) are registered secrets; no value is ever serialized.
   */
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpMcpOptions extends CommonOptions {
  url: string;
  /** Sent with every request; values are registered secrets and serialize as `***`. */
  headers?: Record<string, string>;
  /** Host names, IP addresses or CIDR ranges the connection may reach although they are not public. */
  allowHosts?: readonly string[];
  resolver?: Resolver;
}

export type McpToolsOptions = StdioMcpOptions | HttpMcpOptions;

/** The tools of one server, plus `close()` for the connection they share. */
export type McpTools = McpTool[] & { close(): Promise<void> };

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL/i;
const INVALID_NAME_CHARS = /[^A-Za-z0-9_-]/g;

/**
 * Connect, list the server's tools and wrap them. Throws ConfigError when the server cannot be started or reached
 * (with the end of its stderr), when `include` names a tool the server does not have, or when two tools end up with
 * the same agentkit name; the connection is closed then.
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpTools> {
  const isHttp = 'url' in options && typeof options.url === 'string';
  if (!isHttp && (typeof (options as StdioMcpOptions).command !== 'string' || (options as StdioMcpOptions).command === '')) {
    throw new ConfigError('mcpTools needs either a command (stdio) or a url (Streamable HTTP)');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new ConfigError('mcpTools: timeoutMs must be positive');
  let server: JsonObject;
  let connection: McpConnection;
  if (isHttp) {
    const http = options as HttpMcpOptions;
    for (const value of Object.values(http.headers ?? {})) registerSecret(value);
    connection = await McpConnection.open({
      url: http.url,
      ...(http.headers ? { headers: http.headers } : {}),
      ...(http.allowHosts ? { allowHosts: http.allowHosts } : {}),
      ...(http.resolver ? { resolver: http.resolver } : {}),
    });
    server = { transport: 'streamable_http', url: describeUrl(new URL(http.url)), headers: redacted(http.headers) };
  } else {
    const stdio = options as StdioMcpOptions;
    for (const [name, value] of Object.entries(stdio.env ?? {})) if (SECRET_NAME.test(name)) registerSecret(value);
    connection = await McpConnection.open({
      command: stdio.command,
      ...(stdio.args ? { args: stdio.args } : {}),
      ...(stdio.env ? { env: stdio.env } : {}),
      ...(stdio.cwd ? { cwd: stdio.cwd } : {}),
    });
    server = { transport: 'stdio', command: stdio.command, args: [...(stdio.args ?? [])], env: redacted(stdio.env) };
  }
  try {
    const listed = await connection.listTools();
    const chosen = choose(listed, options.include, connection.label);
    const names = new Set<string>();
    const tools = chosen.map((t) => {
      const name = `${options.prefix ?? ''}${t.name}`.replace(INVALID_NAME_CHARS, '_').slice(0, 64);
      if (names.has(name)) throw new ConfigError(`MCP server '${connection.label}': two tools become '${name}'; use include or prefix`);
      names.add(name);
      return new McpTool({
        connection,
        name,
        mcpName: t.name,
        description: t.description ?? '',
        parameters: schemaOf(t),
        replayClass: replayClassFor(t, options.replayClass),
        timeoutMs,
        server,
        ...(options.registry !== undefined ? { registry: options.registry } : {}),
      });
    });
    return Object.assign(tools, { close: () => connection.close() });
  } catch (error) {
    await connection.close();
    throw error;
  }
}

function redacted(values: Record<string, string> | undefined): JsonObject {
  return Object.fromEntries(Object.keys(values ?? {}).map((k) => [k, REDACTED]));
}

function choose(listed: ListedTool[], include: readonly string[] | undefined, label: string): ListedTool[] {
  if (!include) return listed;
  const byName = new Map(listed.map((t) => [t.name, t]));
  const missing = include.filter((n) => !byName.has(n));
  if (missing.length > 0)
    throw new ConfigError(
      `MCP server '${label}' has no tool ${missing.map((n) => `'${n}'`).join(', ')}; it has ${listed.map((t) => `'${t.name}'`).join(', ') || 'none'}`,
    );
  return include.map((n) => byName.get(n)!);
}

/** The server's input schema as plain JSON, always of type object (an MCP tool without arguments may omit it). */
function schemaOf(tool: ListedTool): JsonObject {
  const schema = JSON.parse(JSON.stringify(tool.inputSchema ?? {})) as JsonObject;
  if (schema.type !== 'object') return { type: 'object', properties: {} };
  delete schema.$schema;
  return schema;
}

function replayClassFor(tool: ListedTool, setting: CommonOptions['replayClass']): ReplayClass {
  if (typeof setting === 'string') return replayClassOf(setting, tool.name);
  if (setting && setting[tool.name] !== undefined) return replayClassOf(setting[tool.name], tool.name);
  if (tool.annotations?.readOnlyHint === true) return 'read_only';
  if (tool.annotations?.idempotentHint === true) return 'idempotent';
  return 'side_effecting';
}
