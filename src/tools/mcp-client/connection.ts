/**
 * One connection to an external MCP server, shared by the tools listed from it: a child process spoken to over
 * stdio, or a Streamable HTTP endpoint reached through the SSRF-safe client. The SDK is an optional dependency and is
 * loaded only when a connection is made.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ConfigError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { SafeHttpClient, describeUrl } from '../net/safe-client.js';
import type { Resolver } from '../net/ssrf-guard.js';
import type { McpCallResult } from './result.js';

export interface StdioServer {
  command: string;
  args?: readonly string[];
  /** Added to the small default environment the SDK gives a server (PATH, HOME, ...). */
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpServer {
  url: string;
  /** Sent with every request (for example Authorization); values are registered secrets and serialize as `***`. */
  headers?: Record<string, string>;
  /** Host names, IP addresses or CIDR ranges the connection may reach although they are not public. */
  allowHosts?: readonly string[];
  resolver?: Resolver;
}

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean; destructiveHint?: boolean };
}

const STDERR_LINES = 20;

export class McpConnection {
  private closed = false;
  private released = false;
  private constructor(
    private readonly client: Client,
    /** For messages: the command or the URL (origin and path). */
    readonly label: string,
    private readonly stderrTail: string[],
    private readonly http: SafeHttpClient | null,
  ) {}

  /** Start the server (stdio) or open the session (HTTP) and initialize. Throws ConfigError saying why it failed. */
  static async open(server: StdioServer | HttpServer): Promise<McpConnection> {
    const { Client } = await loadSdk(() => import('@modelcontextprotocol/sdk/client/index.js'));
    const client = new Client({ name: 'agentkit', version: VERSION });
    const stderrTail: string[] = [];
    let transport: Transport;
    let label: string;
    let http: SafeHttpClient | null = null;
    if ('command' in server) {
      const { StdioClientTransport } = await loadSdk(() => import('@modelcontextprotocol/sdk/client/stdio.js'));
      label = [server.command, ...(server.args ?? [])].join(' ');
      const stdio = new StdioClientTransport({
        command: server.command,
        args: [...(server.args ?? [])],
        ...(server.env ? { env: server.env } : {}),
        ...(server.cwd ? { cwd: server.cwd } : {}),
        stderr: 'pipe',
      });
      // Keep the end of the server's stderr for error messages instead of mixing it into ours.
      stdio.stderr?.on('data', (chunk: Buffer) => {
        stderrTail.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((l) => l.trim() !== ''),
        );
        stderrTail.splice(0, Math.max(0, stderrTail.length - STDERR_LINES));
      });
      transport = stdio;
    } else {
      const { StreamableHTTPClientTransport } = await loadSdk(() => import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
      let url: URL;
      try {
        url = new URL(server.url);
      } catch {
        throw new ConfigError(`MCP server url ${JSON.stringify(server.url)} is not a valid URL`);
      }
      label = describeUrl(url);
      http = new SafeHttpClient({
        ...(server.allowHosts ? { allowHosts: server.allowHosts } : {}),
        ...(server.resolver ? { resolver: server.resolver } : {}),
        credentialHeaders: Object.keys(server.headers ?? {}),
        timeoutMs: 0,
      });
      transport = new StreamableHTTPClientTransport(url, { fetch: http.fetch, requestInit: { headers: { ...(server.headers ?? {}) } } });
    }
    try {
      await client.connect(transport);
    } catch (error) {
      http?.close();
      await client.close().catch(() => undefined);
      const why = error instanceof Error ? error.message : String(error);
      const tail = stderrTail.length > 0 ? `; its stderr ends with: ${stderrTail.slice(-5).join(' | ')}` : '';
      throw new ConfigError(`cannot connect to the MCP server '${label}': ${why}${tail}`, { cause: error });
    }
    const connection = new McpConnection(client, label, stderrTail, http);
    client.onclose = () => {
      connection.closed = true;
    };
    return connection;
  }

  /** Every tool the server lists (all pages). */
  async listTools(): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {});
      tools.push(...(page.tools as ListedTool[]));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Call one tool by its MCP name. Rejects when the connection is closed or the call times out. */
  async callTool(name: string, args: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<McpCallResult> {
    if (this.closed) throw new Error(`the connection to the MCP server '${this.label}' is closed${this.stderrEnd()}`);
    try {
      return (await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      })) as McpCallResult;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`the MCP server '${this.label}' failed the call: ${why}${this.closed ? this.stderrEnd() : ''}`, { cause: error });
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** End the session and, for stdio, the server process. Idempotent. */
  async close(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.closed = true;
    await this.client.close().catch(() => undefined);
    this.http?.close();
  }

  private stderrEnd(): string {
    return this.stderrTail.length > 0 ? `; its stderr ends with: ${this.stderrTail.slice(-5).join(' | ')}` : '';
  }
}

async function loadSdk<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new ConfigError('tools from MCP servers need the optional dependency @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk', {
      cause: error,
    });
  }
}
