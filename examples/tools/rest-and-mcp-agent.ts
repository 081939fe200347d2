/**
 * An agent with a REST tool defined by configuration and a tool of an external MCP server, on the scripted model
 * (no key needed). A small "orders API" is started on loopback to stand in for your service; the REST tool reaches
 * it only because `allow_hosts` lists 127.0.0.1 (the SSRF guard refuses loopback and private addresses otherwise).
 *
 *   ORDERS_TOKEN=secret node --conditions=agentkit-source --import tsx examples/tools/rest-and-mcp-agent.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, mcpTools, RESTTool, shutdownTracing } from 'agentkit';
import { ScriptedModel } from 'agentkit/testing';

process.env.ORDERS_TOKEN ??= 'example-token-1234';

// Stand-in for your API: answers GET /orders/<id> when the bearer token matches.
const api = http.createServer((req, res) => {
  const ok = req.headers.authorization === `Bearer ${process.env.ORDERS_TOKEN}`;
  res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
  res.end(JSON.stringify(ok ? { id: decodeURIComponent(req.url!.split('/')[2]!), total: 21, currency: 'EUR' } : { detail: 'bad token' }));
});
await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;

// The same fields a JSON/YAML file would hold (loadRestTools reads such files).
const getOrder = RESTTool.fromConfig({
  name: 'get_order',
  description: 'Fetch an order by id',
  url: `${apiUrl}/orders/{id}`,
  method: 'GET',
  body_mapping: 'path_params',
  headers: { Authorization: 'Bearer ${ORDERS_TOKEN}' },
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  replay_class: 'read_only',
  allow_hosts: ['127.0.0.1'],
});

const here = path.dirname(fileURLToPath(import.meta.url));
const calculator = await mcpTools({ command: process.execPath, args: ['--import', import.meta.resolve('tsx'), path.join(here, 'calculator-mcp-server.ts')] });

const agent = new Agent({
  name: 'orders',
  systemPrompt: 'You answer questions about orders.',
  llm: new ScriptedModel([
    {
      toolCalls: [
        { name: 'get_order', arguments: { id: 'A-17' } },
        { name: 'multiply', arguments: { a: 21, b: 2 } },
      ],
    },
    'Order A-17 totals 21 EUR; two of them cost 42 EUR.',
  ]),
  tools: [getOrder, ...calculator],
});

try {
  const result = await agent.run('What do two of order A-17 cost?');
  for (const call of result.tool_calls) console.log(`${call.tool_name}: ${JSON.stringify(call.output)}`);
  console.log(`output: ${result.output}`);
  console.log(`serialized headers: ${JSON.stringify(getOrder.toDict().config.headers)}`);
} finally {
  await agent.close(); // ends the MCP server process and idle connections
  await shutdownTracing();
  api.close();
}
