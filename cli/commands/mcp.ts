/**
 * `agentkit mcp serve <spec>`: an MCP server over stdio exposing the runner as one tool (and, with --expose-tools,
 * an Agent's own tools that do not pause). stdout carries the protocol only: for the life of the command every other
 * write to it (console.log, process.stdout.write from the target) goes to stderr (src/mcp/stdout.ts, ADR 0007).
 */
import { Command, Option, UsageError } from 'clipanion';
import { localStore } from '../../src/config/paths.js';
import { storeValue } from '../../src/config/store-value.js';
import { namedStore } from '../store-path.js';
import { toMcpTarget } from '../../src/mcp/adapters.js';
import { invokeToolDirectly } from '../../src/mcp/invoke.js';
import { serveMcpStdio, withheldTools } from '../../src/mcp/server.js';
import { claimStdout } from '../../src/mcp/stdout.js';
import { loadTarget, type LoadedTarget } from '../../src/targets.js';
import { shutdownTracing } from '../../src/tracing/index.js';
import { AgentkitCommand } from '../base.js';
import { withProgress } from '../progress.js';
import { closeRunner } from '../runner-lifecycle.js';

/** How long calls still running when the client leaves get to stop (they were aborted) before the process exits. */
const STOP_GRACE_MS = 10_000;

export class McpServeCommand extends AgentkitCommand {
  static override paths = [['mcp', 'serve']];

  static override usage = Command.Usage({
    category: 'Serving',
    description: 'Serve an agent or chain as an MCP server over stdio',
    details: [
      "Lists one tool, named after the target (or `--name`), that runs it with an `input` argument. Its description is the runner's own `description` (never its system prompt). Every successful call answers with text and with `structuredContent` matching the tool's `outputSchema`: `{ output, status, execution_id, trace_id, pending_interrupt }`, status `completed` or `paused`; a paused run's text names the `agentkit resume <id> --runner <this target>` command. Arguments that do not match a tool's input schema get a JSON-RPC -32602 error naming the path; failures of the run come back as MCP error results (`isError: true`).",
      "With `--expose-tools`, each of an Agent's own tools is listed too, with its JSON Schema and annotations from its replay class (`read_only`: readOnlyHint, `idempotent`: idempotentHint, `side_effecting`: destructiveHint), except tools declared `pauses: true` (they call `interrupt()` and run through the agent's tool).",
      'A cancelled call (`notifications/cancelled`, or a client timeout) aborts its run; so does the client closing stdin, after which the server waits up to 10 s for running calls to stop and exits.',
      "Each call's trace goes to `--db` (a SQLite file or a `postgres://...?schema=<name>` URL; default `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`); checkpoints stay where the target's own checkpointer keeps them. A password in the URL is never printed.",
      'Needs the `mcp-server` extra (`@modelcontextprotocol/sdk`). stdout is the protocol: logs, and anything the target writes to stdout, go to stderr.',
      'Claude Desktop and other MCP clients: command `npx`, args `["agentkit", "mcp", "serve", "/abs/path/agents.ts:support"]`.',
    ].join('\n\n'),
    examples: [
      ['Serve the quickstart agent', '$0 mcp serve examples/quickstart-agent.ts:support'],
      ['Serve an agent and its tools under a chosen name', '$0 mcp serve agents.ts:support --expose-tools --name support'],
    ],
  });

  spec = Option.String({ name: 'spec' });
  exposeTools = Option.Boolean('--expose-tools', false, { description: "Also list the agent's own tools (not those that pause)" });
  name = Option.String('--name', { description: 'Name of the tool that runs the target (default: its name)' });
  db = Option.String('--db', {
    description: 'Where the runs are traced: a SQLite file or a postgres://...?schema= URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)',
  });

  async run(): Promise<number> {
    if (this.name !== undefined && this.name.trim() === '') throw new UsageError('--name must not be empty');
    try {
      await import('@modelcontextprotocol/sdk/server/index.js');
    } catch {
      this.err('error: agentkit mcp serve needs the mcp-server extra: npm install @modelcontextprotocol/sdk');
      return 1;
    }
    // Claimed before the target loads: a module that prints when imported must not corrupt the protocol either.
    const claim = this.context.stdout === process.stdout ? claimStdout() : null;
    try {
      const loaded = await withProgress(this.context.stderr, `agentkit: loading ${this.spec}`, () => loadTarget(this.spec, { cwd: this.context.cwd }));
      const target = toMcpTarget(loaded.value, {
        traceDb: namedStore(this.context.cwd, this.db, { readOnly: false }) ?? storeValue(localStore({ env: this.context.env, cwd: this.context.cwd })),
        invokeTool: invokeToolDirectly,
      });
      const options = {
        exposeTools: this.exposeTools,
        runner: resumeTarget(loaded),
        log: (line: string) => this.err(line),
        ...(this.name ? { name: this.name } : {}),
      };
      const serving = await serveMcpStdio(target, options, { stdin: this.context.stdin, stdout: claim?.protocol ?? this.context.stdout });
      const withheld = withheldTools(target, options);
      const note = withheld.length > 0 ? ` (not listed, they pause: ${withheld.join(', ')}; they run through '${serving.tools[0]}')` : '';
      this.err(`agentkit: MCP server for ${target.kind} '${target.name}' on stdio; tools: ${serving.tools.join(', ')}${note}`);
      await new Promise<void>((resolve) => {
        serving.server.onclose = () => resolve();
        this.context.stdin.once('end', () => resolve());
      });
      const stillRunning = await serving.close('the MCP client disconnected', STOP_GRACE_MS);
      if (stillRunning > 0) {
        this.err(`agentkit: ${stillRunning} call(s) still running ${STOP_GRACE_MS / 1000} s after the client left; exiting (a durable run stays resumable)`);
      }
      await shutdownTracing();
      await closeRunner(loaded.value);
      return 0;
    } finally {
      claim?.release();
    }
  }
}

/** The target as `agentkit resume --runner` takes it from anywhere: a file target with its absolute path. */
function resumeTarget(loaded: LoadedTarget): string {
  return loaded.spec.kind === 'file' ? `${loaded.file}:${loaded.spec.attribute}` : loaded.spec.text;
}
