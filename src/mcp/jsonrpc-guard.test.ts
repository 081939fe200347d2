import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { suite } from '../../test-support/uvu.js';
import { serveMcpStdio } from './server.js';
import type { McpTarget } from './target.js';

const test = suite('mcp stdio: JSON-RPC 2.0 errors for bad lines');

const target: McpTarget = {
  kind: 'agent',
  name: 'echo',
  description: 'Echoes.',
  run: async (input) => ({ output: `echo ${input}`, status: 'completed', execution_id: 'e', trace_id: null, pending_interrupt: null }),
  tools: [],
};

/** Serve over in-memory stdio; send lines; collect answers until `count` arrived. */
async function exchange(lines: string[], count: number): Promise<Array<Record<string, unknown>>> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers: Array<Record<string, unknown>> = [];
  let buffer = '';
  const arrived = new Promise<void>((resolve) => {
    stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        answers.push(JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>);
        buffer = buffer.slice(newline + 1);
      }
      if (answers.length >= count) resolve();
    });
  });
  const serving = await serveMcpStdio(target, {}, { stdin, stdout });
  for (const line of lines) stdin.write(`${line}\n`);
  await arrived;
  await serving.close();
  return answers;
}

const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

test('not JSON -> -32700; not JSON-RPC -> -32600; bad tools/call params or arguments -> -32602; a valid line is still served', async () => {
  const answers = await exchange(
    [
      '{not json',
      '42',
      '{"id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call"}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":5}}',
      init,
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"input":5}}}',
    ],
    8,
  );
  const byId = (id: unknown) => answers.filter((a) => a.id === id);
  const errors = answers.filter((a) => a.error).map((a) => [a.id, (a.error as { code: number }).code]);
  assert.equal(errors, [
    [null, -32700],
    [null, -32600],
    [1, -32600],
    [null, -32600],
    [2, -32602],
    [3, -32602],
    [4, -32602],
  ]);
  assert.match(String((byId(2)[0]!.error as { message: string }).message), /^Invalid params: tools\/call needs "params.name"/);
  assert.ok(byId(0)[0]!.result, 'initialize still answered');
  const call = byId(4)[0]!.error as { message: string; data: unknown };
  assert.is(call.message, "Invalid params: arguments of tool 'echo': /input: must be string");
  assert.equal(call.data, { tool: 'echo', errors: [{ path: '/input', message: 'must be string' }] });
});

test.run();
