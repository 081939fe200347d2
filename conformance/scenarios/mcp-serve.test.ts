/**
 * `agentkit mcp serve` as a real process of the built binary, driven over stdio by the MCP SDK's own client and by the
 * MCP Inspector's CLI: tools listed honestly (descriptions, schemas, annotations, no pausing tool alone), arguments
 * checked against the advertised schema, structured results a client validates, pauses resumed with the named
 * target, cancellation and client timeouts that stop the run, and a target that writes to stdout.
 */
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { backendConfig } from '../harness/checkpointers.js';
import { BIN } from '../harness/cli.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';

const area = conformance('mcp serve');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const moduleUrl = (file: string) => JSON.stringify(pathToFileURL(path.join(root, file)).href);
const QUICKSTART = path.join(root, 'examples/quickstart-agent.ts');
/** The system prompt of the quickstart agent, which no client may see. */
const QUICKSTART_PROMPT = /support desk|lookup_order before anything|Refund only when/;

/** Runner files in the variant's directory: the weather agent, the approval chain, the slow and the noisy agents. */
async function writeRunners(t: ScenarioContext): Promise<void> {
  const chain = t.backend.kind === 'none' ? '' : `export const refund = () => approvalRunner(${JSON.stringify(backendConfig(t.backend))});\n`;
  const db = t.env.AGENTKIT_LOCAL_DB ?? path.join(t.cwd, 'local.db');
  await writeFile(
    path.join(t.cwd, 'runners.mts'),
    `import { weatherAgent } from ${moduleUrl('conformance/fixtures/serving/runners.ts')};
import { noisyAgent, slowAgent } from ${moduleUrl('conformance/fixtures/serving/mcp-agents.ts')};
import { approvalRunner } from ${moduleUrl('conformance/fixtures/durability/chains.ts')};
export const weather = weatherAgent();
export const slow = slowAgent({ dir: ${JSON.stringify(t.cwd)}, dbPath: ${JSON.stringify(db)} });
export const noisy = () => noisyAgent();
${chain}`,
  );
}

async function mcpClient(t: ScenarioContext, args: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'serve', ...args],
    cwd: t.cwd,
    env: { ...(process.env as Record<string, string>), ...t.env, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'conformance', version: '1.0.0' });
  await client.connect(transport);
  t.defer(() => client.close());
  return { client, stderr: () => stderr };
}

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>)[0]!.text;

/** The JSON-RPC error a request was refused with. */
async function refusal(call: Promise<unknown>): Promise<McpError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('the call was not refused');
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

area.scenario(
  'the SDK client lists and calls the agent and its tools; a mismatched argument is -32602 naming its path',
  { rows: ['cli:mcp serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    await writeRunners(t);
    const { client } = await mcpClient(t, ['runners.mts:weather', '--expose-tools']);
    const { tools } = await client.listTools();
    assert.equal(
      tools.map((tool) => [tool.name, tool.annotations ?? null]),
      [
        ['weather', null],
        ['get_weather', { readOnlyHint: true }],
      ],
    );
    // The weather agent has no description: a fixed sentence with its name, never its system prompt.
    assert.match(tools[0]!.description ?? '', /^Ask the 'weather' agent\. Send the request as 'input'\./);
    assert.not.match(JSON.stringify(tools), /Answers weather questions|Use get_weather/);
    assert.equal(tools[1]!.inputSchema.required, ['city']);

    const answer = await client.callTool({ name: 'weather', arguments: { input: 'weather in Oslo' } });
    assert.equal(answer.content, [{ type: 'text', text: 'It is 14 degrees in Oslo.' }]);
    assert.equal(
      { ...(answer.structuredContent as object), execution_id: 'x', trace_id: 'x' },
      {
        output: 'It is 14 degrees in Oslo.',
        status: 'completed',
        execution_id: 'x',
        trace_id: 'x',
        pending_interrupt: null,
      },
    );
    const direct = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
    assert.equal(direct.content, [{ type: 'text', text: '{"city":"Oslo","degrees":14}' }]);
    assert.equal(direct.structuredContent, { city: 'Oslo', degrees: 14 });

    const extra = await refusal(client.callTool({ name: 'weather', arguments: { input: 'hi', verbose: true } }));
    assert.is(extra.code, -32602);
    assert.match(extra.message, /\/verbose: unknown argument 'verbose'/);
    const invalid = await refusal(client.callTool({ name: 'get_weather', arguments: { town: 'Oslo' } }));
    assert.is(invalid.code, -32602);
    assert.match(invalid.message, /arguments of tool 'get_weather': \/city: required argument 'city' is missing/);
    const failing = await client.callTool({ name: 'weather', arguments: { input: 'explode' } });
    assert.is(failing.isError, true);
    assert.equal(failing.content, [{ type: 'text', text: 'Error: the model exploded' }]);
    assert.is(failing.structuredContent, undefined);
  },
);

area.scenario(
  'the quickstart: --expose-tools lists lookup_order (readOnlyHint) and not refund; a pause is structured and resumes with the named target',
  { rows: ['cli:mcp serve', 'cli:resume'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const { client, stderr } = await mcpClient(t, [`${QUICKSTART}:support`, '--expose-tools']);
    const { tools } = await client.listTools();
    assert.equal(
      tools.map((tool) => tool.name),
      ['support', 'lookup_order'],
    );
    assert.equal(tools[1]!.annotations, { readOnlyHint: true });
    assert.is(tools[0]!.outputSchema?.type, 'object');
    assert.match(tools[0]!.description ?? '', /^Looks orders up by number and refunds them; every refund waits for a manager's approval\./);
    assert.not.match(JSON.stringify(tools), QUICKSTART_PROMPT);
    assert.match(stderr(), /tools: support, lookup_order \(not listed, they pause: refund; they run through 'support'\)/);

    // callTool validates structuredContent against the listed outputSchema itself: it throws when they disagree.
    const paused = (await client.callTool({ name: 'support', arguments: { input: 'Please refund order 42 in full.' } })) as CallToolResult;
    assert.not.ok(paused.isError);
    const result = paused.structuredContent as { status: string; execution_id: string; pending_interrupt: { reason: string; context: unknown } };
    assert.is(result.status, 'paused');
    assert.equal(result.pending_interrupt.context, { order_id: '42', amount: 50 });
    const runner = /--runner (\S+)`\.$/.exec(textOf(paused))?.[1];
    assert.is(runner, `${QUICKSTART}:support`, textOf(paused));
    assert.match(textOf(paused), new RegExp(`execution_id=${result.execution_id}\\.`));

    const resumed = await t.bin(['resume', result.execution_id, '--runner', runner!, '--value', '{"approved": true, "metadata": {"approver": "alice"}}']);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /status: completed/);
    assert.match(resumed.stdout, /refunded 50 USD on order 42, approved by alice/);
  },
);

area.scenario(
  'a call cancelled at 300 ms, or timed out by the client, stops the run before its side effect and writes its failed row; the next call works',
  { rows: ['cli:mcp serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    await writeRunners(t);
    const { client, stderr } = await mcpClient(t, ['runners.mts:slow']);
    await client.listTools();
    const started = (label: string) => readFile(path.join(t.cwd, `${label}.started`), 'utf8').catch(() => '');
    const checkpointer = new SQLiteCheckpointer(t.env.AGENTKIT_LOCAL_DB);
    t.defer(() => checkpointer.close());

    // A first call opens the store and sets tracing up, so the slow calls below reach their tool well within 300 ms.
    assert.is(textOf(await client.callTool({ name: 'shipper', arguments: { input: 'warm up' } })), 'quick answer to warm up');

    const controller = new AbortController();
    const cancelled = client.callTool({ name: 'shipper', arguments: { input: 'slow cancelled' } }, undefined, { signal: controller.signal });
    // Cancelled at 300 ms, once the tool is under way (it waits 1.5 s before its side effect).
    await sleep(300);
    await until(async () => (await started('cancelled')) !== '', 'the cancelled call to start its tool');
    controller.abort('the user pressed stop');
    await cancelled.then(
      () => assert.unreachable('a cancelled call has no answer'),
      () => undefined,
    );
    const timedOut = await refusal(client.callTool({ name: 'shipper', arguments: { input: 'slow timedout' } }, undefined, { timeout: 300 }));
    assert.match(timedOut.message, /Request timed out/);

    for (const label of ['cancelled', 'timedout']) {
      const executionId = await started(label);
      assert.match(executionId, /^[0-9a-f-]{36}$/, `the ${label} call had started its tool`);
      await until(async () => (await checkpointer.getLast(executionId))?.step_type === 'run_end', `the failed row of the ${label} run`);
      const last = await checkpointer.getLast(executionId);
      assert.is(last?.run_status, 'failed');
    }
    // Well past the tool's 1.5 s wait: had the runs gone on, the side effects would be there by now.
    await sleep(2_000);
    assert.not.ok(existsSync(path.join(t.cwd, 'cancelled.shipped')), 'the cancelled call shipped nothing');
    assert.not.ok(existsSync(path.join(t.cwd, 'timedout.shipped')), 'the timed-out call shipped nothing');
    assert.match(stderr(), /call \d+ of tool 'shipper' stopped: the MCP client cancelled the call: the user pressed stop/);

    // A cancel for a request that already finished, or for one never sent, is ignored.
    await client.notification({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'late' } });
    await client.notification({ method: 'notifications/cancelled', params: { requestId: 424242 } });
    const next = await client.callTool({ name: 'shipper', arguments: { input: 'slow next' } });
    assert.is(textOf(next), 'shipped next');
    assert.ok(existsSync(path.join(t.cwd, 'next.shipped')));
  },
);

area.scenario(
  'a target that writes to stdout (while it loads, from a tool, with console.log) does not break the session; the writes reach stderr',
  { rows: ['cli:mcp serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    await writeRunners(t);
    const { client, stderr } = await mcpClient(t, ['runners.mts:noisy', '--expose-tools']);
    const first = await client.callTool({ name: 'noisy', arguments: { input: 'talk' } });
    assert.is(textOf(first), 'all quiet on the protocol');
    const direct = await client.callTool({ name: 'chatter', arguments: {} });
    assert.is(textOf(direct), 'all quiet on the protocol');
    assert.equal(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['noisy', 'chatter'],
    );
    await until(() => stderr().split('noisy: console.log from the tool').length === 3, 'both calls chattering on stderr');
    assert.match(stderr(), /noisy: built\n/);
    assert.match(stderr(), /noisy: raw write from the tool\n/);
  },
);

area.scenario(
  'a paused chain answers with a structured pause and its execution id; --name renames the tool',
  { rows: ['cli:mcp serve'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    await writeRunners(t);
    const { client } = await mcpClient(t, ['runners.mts:refund', '--name', 'refunds']);
    const { tools } = await client.listTools();
    assert.equal(
      tools.map((tool) => tool.name),
      ['refunds'],
    );
    const paused = await client.callTool({ name: 'refunds', arguments: { input: 'refund order 9' } });
    assert.not.ok(paused.isError);
    const result = paused.structuredContent as { status: string; execution_id: string; pending_interrupt: { reason: string } };
    assert.is(result.status, 'paused');
    assert.is(result.pending_interrupt.reason, 'manager_approval');
    assert.match(textOf(paused), new RegExp(`^paused: manager_approval; execution_id=${result.execution_id}\\. Nothing after the pause ran\\.`));
    assert.match(textOf(paused), new RegExp(`--runner ${path.join(t.cwd, 'runners.mts').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:refund\``));
    const resumed = await t.cli(['resume', result.execution_id, '--runner', 'runners.mts:refund']);
    assert.is(resumed.code, 0, resumed.stderr);
  },
);

/** The MCP Inspector's CLI (`mcp-inspector --cli`), run against the built binary; HOME is the variant's directory. */
async function inspector(t: ScenarioContext, args: string[], server: string[]) {
  const launcher = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json');
  const bin = path.join(path.dirname(launcher), 'clients/launcher/build/index.js');
  const child = spawn(
    process.execPath,
    [bin, '--cli', ...args, '-e', `AGENTKIT_LOCAL_DB=${t.env.AGENTKIT_LOCAL_DB}`, '--cwd', t.cwd, '--', process.execPath, BIN, 'mcp', 'serve', ...server],
    { cwd: t.cwd, env: { ...process.env, ...t.env, HOME: t.cwd, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.defer(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  return { code, stdout, stderr };
}

area.scenario(
  'the MCP Inspector CLI lists the tools with their schemas and calls them; an extra argument is refused naming it',
  { rows: ['cli:mcp serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    const server = [`${QUICKSTART}:support`, '--expose-tools'];
    const listed = await inspector(t, ['--method', 'tools/list', '--strict'], server);
    assert.is(listed.code, 0, listed.stderr);
    const { tools } = JSON.parse(listed.stdout) as { tools: Array<{ name: string; outputSchema?: unknown; annotations?: unknown }> };
    assert.equal(
      tools.map((tool) => tool.name),
      ['support', 'lookup_order'],
    );
    assert.ok(tools[0]!.outputSchema, 'the agent tool has an output schema');
    assert.not.match(listed.stdout, QUICKSTART_PROMPT);
    assert.not.match(listed.stderr, /Warning:|Error:|\d+ errors?,/, 'no schema portability problem under --strict');

    const looked = await inspector(t, ['--method', 'tools/call', '--tool-name', 'lookup_order', '--tool-arg', 'order_id="42"'], server);
    assert.is(looked.code, 0, looked.stderr);
    assert.equal((JSON.parse(looked.stdout) as { structuredContent: unknown }).structuredContent, { order_id: '42', total: 50, status: 'delivered' });

    const asked = await inspector(t, ['--method', 'tools/call', '--tool-name', 'support', '--tool-arg', 'input=What about order 1001?'], server);
    assert.is(asked.code, 0, asked.stderr);
    const answer = JSON.parse(asked.stdout) as { content: Array<{ text: string }>; structuredContent: { status: string; output: string } };
    assert.is(answer.structuredContent.status, 'completed');
    assert.is(answer.structuredContent.output, 'Order 1001: 1200 USD, shipped.');
    assert.is(answer.content[0]!.text, 'Order 1001: 1200 USD, shipped.');

    const extra = await inspector(t, ['--method', 'tools/call', '--tool-name', 'support', '--tool-arg', 'input=hi', 'extra=1'], server);
    assert.is.not(extra.code, 0);
    assert.match(extra.stderr, /Invalid params: arguments of tool 'support': \/extra: unknown argument 'extra'/);
  },
);

area.run();
