import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { validator } from '../../generated/schemas/resources.js';
import { suite } from '../../test-support/uvu.js';
import { annotationsFor, createMcpServer, sanitizeToolName, type McpServeOptions } from './server.js';
import type { McpRunResult, McpTarget } from './target.js';

const test = suite('mcp server');

const completed = (output: string): McpRunResult => ({ output, status: 'completed', execution_id: 'e-1', trace_id: null, pending_interrupt: null });

/** Calls the slow input started, and those that reached their side effect. */
interface Effects {
  started: string[];
  done: string[];
  signals: AbortSignal[];
}

function makeTarget(effects: Effects, description = ''): McpTarget {
  return {
    kind: 'agent',
    name: 'refund bot',
    description,
    async run(input, signal) {
      if (input === 'explode') throw new Error('the model provider is down');
      if (input === 'pause') {
        return {
          output: '',
          status: 'paused',
          execution_id: 'e-paused',
          trace_id: 'a'.repeat(32),
          pending_interrupt: { reason: 'refund_approval', context: { amount: 5 }, node_id: 'turn:0/tool:refund', agent_path: 'agent:refund bot/tool:refund' },
        };
      }
      if (input.startsWith('slow')) {
        effects.started.push(input);
        effects.signals.push(signal);
        // A run that honours its signal: the side effect comes after the wait, and never once aborted.
        if (input === 'slow-deaf') await sleep(400);
        else await sleep(2_000, undefined, { signal });
        effects.done.push(input);
        return completed(`finished ${input}`);
      }
      return completed(`answer to ${input}`);
    },
    tools: [
      {
        name: 'lookup_order',
        description: 'Find an order',
        inputSchema: { type: 'object', properties: { id: { type: 'string' }, limit: { type: 'integer', default: 5 } }, required: ['id'] },
        replayClass: 'read_only',
        pauses: false,
        async call(args) {
          if (args.id === 'missing') throw new Error("order 'missing' not found");
          if (args.id === 'text') return 'plain text';
          return { id: args.id, total: 42 };
        },
      },
      { name: 'set_status', description: '', inputSchema: { type: 'object' }, replayClass: 'idempotent', pauses: false, call: async () => 'set' },
      {
        name: 'refund',
        description: 'Refund (asks a manager)',
        inputSchema: { type: 'object' },
        replayClass: 'side_effecting',
        pauses: true,
        call: async () => 'x',
      },
      { name: 'email', description: 'Send an email', inputSchema: { type: 'object' }, replayClass: 'side_effecting', pauses: false, call: async () => 'sent' },
      {
        name: 'refund bot',
        description: 'clashes with the primary tool',
        inputSchema: { type: 'object' },
        replayClass: 'read_only',
        pauses: false,
        call: async () => 'x',
      },
    ],
  };
}

async function connect(options: McpServeOptions = {}, description = '') {
  const effects: Effects = { started: [], done: [], signals: [] };
  const logged: string[] = [];
  const serving = await createMcpServer(makeTarget(effects, description), { log: (line) => logged.push(line), ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await serving.server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  // The SDK client validates structuredContent against a tool's outputSchema only once it has listed the tools.
  await client.listTools();
  return {
    client,
    serving,
    effects,
    logged,
    close: async () => {
      await client.close();
      await serving.close();
    },
  };
}

test('lists the primary tool (description never the prompt, one outputSchema); --expose-tools adds the tools that do not pause, annotated', async () => {
  const plain = await connect();
  try {
    const { tools } = await plain.client.listTools();
    assert.equal(
      tools.map((t) => t.name),
      ['refund_bot'],
    );
    const [primary] = tools;
    assert.equal(primary!.inputSchema.required, ['input']);
    assert.is(primary!.inputSchema.additionalProperties, false);
    assert.match(primary!.description ?? '', /^Ask the 'refund bot' agent\. Send the request as 'input'\./);
    const schema = primary!.outputSchema as Record<string, unknown>;
    assert.is(schema.type, 'object');
    assert.not.match(JSON.stringify(schema), /\$ref/, 'the output schema stands alone');
    assert.equal(
      (schema.anyOf as Array<{ properties: { status: { enum: string[] } } }>).map((branch) => branch.properties.status.enum),
      [['completed'], ['paused']],
    );
  } finally {
    await plain.close();
  }
  const described = await connect({}, 'Handles refunds.');
  try {
    const { tools } = await described.client.listTools();
    assert.match(tools[0]!.description ?? '', /^Handles refunds\. Send the request as 'input'\./);
  } finally {
    await described.close();
  }
  const exposed = await connect({ exposeTools: true, name: 'refunds' });
  try {
    const { tools } = await exposed.client.listTools();
    assert.equal(
      tools.map((t) => [t.name, t.annotations ?? null]),
      [
        ['refunds', null],
        ['lookup_order', { readOnlyHint: true }],
        ['set_status', { readOnlyHint: false, idempotentHint: true }],
        ['email', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
        ['refund_bot', { readOnlyHint: true }],
      ],
    );
    assert.is(tools.find((t) => t.name === 'set_status')!.description, "The 'set_status' tool of the 'refund bot' agent.");
  } finally {
    await exposed.close();
  }
});

test('successful calls carry structuredContent (validated by the SDK client) and text; error results carry none', async () => {
  const { client, close } = await connect({ exposeTools: true, runner: '/srv/my agents.ts:bot' });
  try {
    const ok = await client.callTool({ name: 'refund_bot', arguments: { input: 'hi' } });
    assert.equal(ok.content, [{ type: 'text', text: 'answer to hi' }]);
    assert.equal(ok.structuredContent, completed('answer to hi'));
    assert.not.ok(ok.isError);

    const paused = await client.callTool({ name: 'refund_bot', arguments: { input: 'pause' } });
    assert.is((paused.structuredContent as McpRunResult).status, 'paused');
    assert.ok(validator('McpRunResult').Check(paused.structuredContent), 'the contract validator agrees');
    const text = (paused.content as Array<{ text: string }>)[0]!.text;
    assert.match(text, /^paused: refund_approval \(tool 'refund'\); execution_id=e-paused\. Nothing after the pause ran\./);
    assert.match(text, /`agentkit resume e-paused --runner '\/srv\/my agents\.ts:bot'`\.$/, 'the real target, quoted for a shell');

    const tool = await client.callTool({ name: 'lookup_order', arguments: { id: 'A1' } });
    assert.equal(tool.content, [{ type: 'text', text: '{"id":"A1","total":42}' }]);
    assert.equal(tool.structuredContent, { id: 'A1', total: 42 });
    const textTool = await client.callTool({ name: 'lookup_order', arguments: { id: 'text' } });
    assert.equal(textTool.content, [{ type: 'text', text: 'plain text' }]);
    assert.is(textTool.structuredContent, undefined);

    const failed = await client.callTool({ name: 'refund_bot', arguments: { input: 'explode' } });
    assert.is(failed.isError, true);
    assert.equal(failed.content, [{ type: 'text', text: 'Error: the model provider is down' }]);
    assert.is(failed.structuredContent, undefined);

    const empty = await client.callTool({ name: 'refund_bot', arguments: { input: '  ' } });
    assert.is(empty.isError, true);
    assert.equal(empty.content, [{ type: 'text', text: "Error: 'input' cannot be empty." }]);

    const toolError = await client.callTool({ name: 'lookup_order', arguments: { id: 'missing' } });
    assert.is(toolError.isError, true);
    assert.is(toolError.structuredContent, undefined);

    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    assert.is(unknown.isError, true);
    assert.match(JSON.stringify(unknown.content), /unknown tool 'nope'/);
  } finally {
    await close();
  }
});

/** The JSON-RPC error a call is refused with. */
async function refusal(call: Promise<unknown>): Promise<McpError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('the call was not refused');
}

test('arguments that do not match the advertised schema get -32602 naming the path, before anything runs', async () => {
  const { client, effects, close } = await connect({ exposeTools: true });
  try {
    const extra = await refusal(client.callTool({ name: 'refund_bot', arguments: { input: 'slow-never', verbose: true } }));
    assert.is(extra.code, -32602);
    assert.match(extra.message, /Invalid params: arguments of tool 'refund_bot': \/verbose: unknown argument 'verbose' \(the tool takes: input\)/);
    assert.equal(extra.data, { tool: 'refund_bot', errors: [{ path: '/verbose', message: "unknown argument 'verbose' (the tool takes: input)" }] });
    assert.equal(effects.started, [], 'nothing ran');

    const wrongType = await refusal(client.callTool({ name: 'refund_bot', arguments: { input: 5 } }));
    assert.is(wrongType.code, -32602);
    assert.match(wrongType.message, /\/input: must be string/);
    const missing = await refusal(client.callTool({ name: 'refund_bot', arguments: {} }));
    assert.match(missing.message, /\/input: required argument 'input' is missing/);
    const toolArgs = await refusal(client.callTool({ name: 'lookup_order', arguments: { id: 7 } }));
    assert.match(toolArgs.message, /arguments of tool 'lookup_order': \/id: must be string/);
    // A default fills a missing argument before the check, as the tool itself does.
    assert.not.ok((await client.callTool({ name: 'lookup_order', arguments: { id: 'A2' } })).isError);
  } finally {
    await close();
  }
});

test("a cancelled call or a client timeout aborts the run's signal before its side effect; the next call works", async () => {
  const { client, effects, logged, close } = await connect();
  try {
    const controller = new AbortController();
    const cancelled = client.callTool({ name: 'refund_bot', arguments: { input: 'slow-cancelled' } }, undefined, { signal: controller.signal });
    await waitFor(() => effects.started.length === 1);
    controller.abort('the user pressed stop');
    await refusal(cancelled).catch(() => undefined);
    await waitFor(() => effects.signals[0]!.aborted);
    assert.is(effects.signals[0]!.reason.name, 'AbortError');
    assert.is(effects.signals[0]!.reason.message, 'the MCP client cancelled the call: the user pressed stop');

    const timedOut = client.callTool({ name: 'refund_bot', arguments: { input: 'slow-timeout' } }, undefined, { timeout: 150 });
    const timeout = await refusal(timedOut);
    assert.match(timeout.message, /Request timed out/);
    await waitFor(() => effects.signals[1]?.aborted === true);
    assert.match(effects.signals[1]!.reason.message, /^the MCP client cancelled the call: .*Request timed out/);

    await sleep(100);
    assert.equal(effects.done, [], 'no side effect after a cancel');
    const next = await client.callTool({ name: 'refund_bot', arguments: { input: 'again' } });
    assert.equal(next.structuredContent, completed('answer to again'));
    assert.is(logged.length, 2);
    assert.match(logged[0]!, /^agentkit: call \d+ of tool 'refund_bot' stopped: the MCP client cancelled the call: the user pressed stop$/);
  } finally {
    await close();
  }
});

test('a cancel for a finished call, a paused one or an unknown id changes nothing and raises nothing', async () => {
  const { client, logged, close } = await connect();
  const errors: unknown[] = [];
  client.onerror = (error) => errors.push(error);
  try {
    assert.not.ok((await client.callTool({ name: 'refund_bot', arguments: { input: 'pause' } })).isError);
    for (const requestId of [1, 2, 3, 9999, 'nope']) {
      await client.notification({ method: 'notifications/cancelled', params: { requestId, reason: 'late' } });
    }
    const after = await client.callTool({ name: 'refund_bot', arguments: { input: 'still here' } });
    assert.equal(after.structuredContent, completed('answer to still here'));
    assert.equal(logged, []);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('close() aborts the calls in progress and waits for them; a call deaf to its signal is reported after the grace', async () => {
  const listening = await connect();
  const call = listening.client.callTool({ name: 'refund_bot', arguments: { input: 'slow-at-close' } }).catch(() => undefined);
  await waitFor(() => listening.effects.started.length === 1);
  assert.is(await listening.serving.close('the MCP client disconnected', 5_000), 0);
  assert.is(listening.effects.signals[0]!.reason.message, 'the MCP client disconnected');
  assert.equal(listening.effects.done, []);
  await listening.client.close();
  await call;

  const deaf = await connect();
  const deafCall = deaf.client.callTool({ name: 'refund_bot', arguments: { input: 'slow-deaf' } }).catch(() => undefined);
  await waitFor(() => deaf.effects.started.length === 1);
  assert.is(await deaf.serving.close('the MCP client disconnected', 50), 1);
  await deaf.client.close();
  await deafCall;
});

test('replay classes map to MCP annotations; tool names are sanitized to the MCP alphabet', () => {
  assert.equal(annotationsFor('read_only'), { readOnlyHint: true });
  assert.equal(annotationsFor('idempotent'), { readOnlyHint: false, idempotentHint: true });
  assert.equal(annotationsFor('side_effecting'), { readOnlyHint: false, destructiveHint: true, idempotentHint: false });
  assert.is(sanitizeToolName('refund bot/v2!'), 'refund_bot_v2_');
  assert.is(sanitizeToolName('x'.repeat(80)).length, 64);
  assert.is(sanitizeToolName(''), 'agent');
});

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await sleep(5);
  }
}

test.run();
