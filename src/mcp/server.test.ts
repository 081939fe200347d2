import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { suite } from '../../conformance/harness/uvu.js';
import { createMcpServer, sanitizeToolName } from './server.js';
import type { McpTarget } from './target.js';

const test = suite('mcp server');

const target: McpTarget = {
  kind: 'agent',
  name: 'refund bot',
  description: 'Handles refunds.',
  async run(input) {
    if (input === 'explode') throw new Error('the model provider is down');
    return `answer to ${input}`;
  },
  tools: [
    {
      name: 'lookup_order',
      description: 'Find an order',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      async call(args) {
        if (args.id === 'missing') throw new Error("order 'missing' not found");
        return { id: args.id, total: 42 };
      },
    },
    { name: 'refund bot', description: 'clashes with the primary tool', inputSchema: { type: 'object' }, call: async () => 'x' },
  ],
};

async function connect(exposeTools: boolean, name?: string) {
  const server = await createMcpServer(target, { exposeTools, ...(name ? { name } : {}) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

test('lists one primary tool taking input; --expose-tools adds the agent tools without clashes', async () => {
  const plain = await connect(false);
  try {
    const { tools } = await plain.client.listTools();
    assert.equal(
      tools.map((t) => t.name),
      ['refund_bot'],
    );
    assert.equal(tools[0]!.inputSchema.required, ['input']);
    assert.match(tools[0]!.description ?? '', /Invoke the 'refund bot' agent\. Handles refunds\./);
  } finally {
    await plain.close();
  }
  const exposed = await connect(true, 'refunds');
  try {
    const { tools } = await exposed.client.listTools();
    assert.equal(
      tools.map((t) => t.name),
      ['refunds', 'lookup_order', 'refund_bot'],
    );
  } finally {
    await exposed.close();
  }
});

test('calls return text; failures and bad calls come back as MCP error results', async () => {
  const { client, close } = await connect(true);
  try {
    const ok = await client.callTool({ name: 'refund_bot', arguments: { input: 'hi' } });
    assert.equal(ok.content, [{ type: 'text', text: 'answer to hi' }]);
    assert.not.ok(ok.isError);

    const tool = await client.callTool({ name: 'lookup_order', arguments: { id: 'A1' } });
    assert.equal(tool.content, [{ type: 'text', text: '{"id":"A1","total":42}' }]);

    const failed = await client.callTool({ name: 'refund_bot', arguments: { input: 'explode' } });
    assert.is(failed.isError, true);
    assert.equal(failed.content, [{ type: 'text', text: 'Error: the model provider is down' }]);

    const empty = await client.callTool({ name: 'refund_bot', arguments: { input: '  ' } });
    assert.is(empty.isError, true);
    assert.equal(empty.content, [{ type: 'text', text: "Error: 'input' argument is required and cannot be empty." }]);

    const toolError = await client.callTool({ name: 'lookup_order', arguments: { id: 'missing' } });
    assert.is(toolError.isError, true);

    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    assert.is(unknown.isError, true);
    assert.match(JSON.stringify(unknown.content), /unknown tool 'nope'/);
  } finally {
    await close();
  }
});

test('tool names are sanitized to the MCP alphabet', () => {
  assert.is(sanitizeToolName('refund bot/v2!'), 'refund_bot_v2_');
  assert.is(sanitizeToolName('x'.repeat(80)).length, 64);
  assert.is(sanitizeToolName(''), 'agent');
});

test.run();
