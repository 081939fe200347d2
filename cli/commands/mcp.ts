/**
 * `agentkit mcp serve <spec>`: an MCP server over stdio exposing the runner as one tool (and, with --expose-tools,
 * an Agent's own tools). stdout carries the protocol only: logs, and anything the target prints, go to stderr.
 */
import { Command, Option, UsageError } from 'clipanion';
import { localDbPath } from '../../src/config/paths.js';
import { toMcpTarget } from '../../src/mcp/adapters.js';
import { invokeToolDirectly } from '../../src/mcp/invoke.js';
import { listedTools, serveMcpStdio } from '../../src/mcp/server.js';
import { loadTarget } from '../../src/targets.js';
import { shutdownTracing } from '../../src/tracing/index.js';
import { AgentkitCommand } from '../base.js';
import { withProgress } from '../progress.js';
import { closeRunner } from '../runner-lifecycle.js';

export class McpServeCommand extends AgentkitCommand {
  static override paths = [['mcp', 'serve']];

  static override usage = Command.Usage({
    category: 'Serving',
    description: 'Serve an agent or chain as an MCP server over stdio',
    details: [
      "Lists one tool, named after the target (or `--name`), that runs it with an `input` argument and answers with its output as text; a paused run answers with the pause and its `execution_id`. With `--expose-tools`, each of an Agent's own tools is listed too, with its JSON Schema. Failures come back as MCP error results (`isError: true`).",
      'Needs the `mcp-server` extra (`@modelcontextprotocol/sdk`). Logs go to stderr; stdout is the protocol. The server stops when the client closes stdin.',
      'Claude Desktop and other MCP clients: command `npx`, args `["agentkit", "mcp", "serve", "/abs/path/agents.ts:support"]`.',
    ].join('\n\n'),
    examples: [
      ['Serve an agent', '$0 mcp serve examples/refund-agent.ts:agent'],
      ['Serve an agent and its tools under a chosen name', '$0 mcp serve agents.ts:support --expose-tools --name support'],
    ],
  });

  spec = Option.String({ name: 'spec' });
  exposeTools = Option.Boolean('--expose-tools', false, { description: "Also list the agent's own tools" });
  name = Option.String('--name', { description: 'Name of the tool that runs the target (default: its name)' });

  async run(): Promise<number> {
    if (this.name !== undefined && this.name.trim() === '') throw new UsageError('--name must not be empty');
    try {
      await import('@modelcontextprotocol/sdk/server/index.js');
    } catch {
      this.err('error: agentkit mcp serve needs the mcp-server extra: npm install @modelcontextprotocol/sdk');
      return 1;
    }
    // A target module that logs with console.log would corrupt the protocol on stdout.
    const restore = this.context.stdout === process.stdout ? routeConsoleToStderr() : () => undefined;
    try {
      const loaded = await withProgress(this.context.stderr, `agentkit: loading ${this.spec}`, () => loadTarget(this.spec, { cwd: this.context.cwd }));
      const target = toMcpTarget(loaded.value, { traceDb: localDbPath({ env: this.context.env, cwd: this.context.cwd }), invokeTool: invokeToolDirectly });
      const options = { exposeTools: this.exposeTools, ...(this.name ? { name: this.name } : {}) };
      const server = await serveMcpStdio(target, options, { stdin: this.context.stdin, stdout: this.context.stdout });
      const names = listedTools(target, options).map((tool) => tool.name);
      this.err(`agentkit: MCP server for ${target.kind} '${target.name}' on stdio; tools: ${names.join(', ')}`);
      await new Promise<void>((resolve) => {
        server.onclose = () => resolve();
        this.context.stdin.once('end', () => resolve());
      });
      await server.close().catch(() => undefined);
      await shutdownTracing();
      await closeRunner(loaded.value);
      return 0;
    } finally {
      restore();
    }
  }
}

function routeConsoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}
