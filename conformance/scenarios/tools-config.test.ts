/**
 * Tools from configuration inside agent runs: a REST tool and an MCP server's tool in one run of the scripted model
 * (tool spans with their origins), the REST tool's token absent from the local store file and from an OTLP export,
 * an SSRF refusal recorded as a failed tool span, and an agent rebuilt from its trace with headers supplied anew.
 */
import * as assert from 'uvu/assert';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { conformance, startFakeProvider, type ScenarioContext, runTsFile } from '../harness/index.js';
import { recordingServer } from '../../test-support/recording-server.js';
import { restAndMcpAgent } from '../fixtures/tools/rest-and-mcp-agent.js';
import { Agent, agentDefinitionFromAttributes, flushTraces, RESTTool, ToolRegistry, TraceStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { toMcpTarget } from '../../src/mcp/adapters.js';
import { invokeToolDirectly } from '../../src/mcp/invoke.js';
import { createMcpServer } from '../../src/mcp/server.js';

const area = conformance('tools: REST and MCP tools in agent runs');
const FIXTURE = path.resolve('conformance/fixtures/tools/rest-and-mcp-agent.ts');

function dbOf(t: ScenarioContext): string {
  if (t.backend.kind !== 'sqlite') throw new Error('trace scenarios run on the local store');
  return t.backend.dbPath;
}

/** Every file of the local store (the database and its WAL), as text, for grepping. */
async function storeFiles(dbPath: string): Promise<string> {
  const dir = path.dirname(dbPath);
  const names = (await readdir(dir)).filter((n) => n.startsWith(path.basename(dbPath)));
  assert.ok(names.length > 0, 'the store exists');
  return (await Promise.all(names.map((n) => readFile(path.join(dir, n), 'latin1')))).join('\n');
}

area.scenario(
  'an agent uses a REST tool and an MCP tool in one run; both are tool spans; the token is in no span or store file',
  { backends: ['sqlite'], timeoutMs: 30_000 },
  async (t) => {
    const token = 'tok-agentrun-5d41402abc4b2a76';
    const api = await recordingServer();
    t.defer(() => api.close());
    const agent = await restAndMcpAgent(api.url, token, { traceDb: dbOf(t) });
    t.defer(() => agent.close());
    const result = await agent.run('Look up order A/1 and add 2 and 3');
    assert.is(result.output, 'Order A/1 found; 2 + 3 = 5.');
    assert.equal(
      result.tool_calls.map((c) => [c.tool_name, c.output]),
      [
        ['get_order', { method: 'GET', path: '/orders/A%2F1' }],
        ['add', '5'],
      ],
    );
    assert.is(api.requests[0]!.headers.authorization, `Bearer ${token}`);
    await flushTraces();
    const spans = await new TraceStore({ dbPath: dbOf(t) }).spans(result.trace_id!);
    const rest = spans.find((s) => s.name === 'tool.get_order')!;
    const mcp = spans.find((s) => s.name === 'tool.add')!;
    assert.equal([rest.attributes['tool.origin'], rest.attributes['tool.status'], rest.status], ['rest', 'ok', 'OK']);
    assert.equal([mcp.attributes['tool.origin'], mcp.attributes['tool.status'], mcp.attributes['agentkit.tool.replay_class']], ['mcp', 'ok', 'read_only']);
    const root = spans.find((s) => s.name === 'agent.orders')!;
    const tools = JSON.parse(root.attributes['agent.tools'] as string) as Array<{ name: string; config: { headers?: object } }>;
    assert.equal(tools.find((x) => x.name === 'get_order')!.config.headers, { Authorization: '***' });
    assert.not.ok(JSON.stringify(spans).includes(token), 'no span carries the token');
    assert.not.ok((await storeFiles(dbOf(t))).includes(token), 'the store files do not contain the token');
  },
);

area.scenario(
  'the REST token never reaches an OTLP export (a real child process, a local collector)',
  { backends: ['sqlite'], timeoutMs: 40_000 },
  async (t) => {
    const token = 'tok-otlp-8f14e45fceea167a';
    const api = await recordingServer();
    t.defer(() => api.close());
    const collector = await startFakeProvider(() => ({ json: {} }));
    t.defer(() => collector.close());
    const { code, stdout, stderr } = await runTsFile([FIXTURE], {
      cwd: t.cwd,
      env: { ...process.env, AGENTKIT_LOCAL_DB: dbOf(t), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, REST_BASE_URL: api.url, REST_TOKEN: token },
    });
    assert.is(code, 0, stderr);
    assert.match(stdout, /^[0-9a-f]{32}$/);
    assert.is(api.requests[0]!.headers.authorization, `Bearer ${token}`, 'the token was used on the request');
    const body = collector.requests
      .filter((r) => r.path === '/v1/traces')
      .map((r) => r.raw)
      .join('\n');
    assert.ok(body.includes('tool.get_order') && body.includes('tool.add'), 'both tool spans are exported');
    assert.not.ok(body.includes(token), 'the token is not in the export');
    assert.not.ok((await storeFiles(dbOf(t))).includes(token), 'nor in the local store');
  },
);

area.scenario('a refused destination is a failed tool span with code ssrf_blocked; the model reads why', { backends: ['sqlite'] }, async (t) => {
  const api = await recordingServer();
  t.defer(() => api.close());
  const internal = new RESTTool({ name: 'internal_admin', url: `${api.url}/admin`, registry: false });
  const agent = new Agent({
    name: 'guarded',
    llm: new ScriptedModel([{ toolCalls: [{ name: 'internal_admin', arguments: {} }] }, 'Could not reach it.']),
    tools: [internal],
    traceDb: dbOf(t),
  });
  const result = await agent.run('open the admin page');
  assert.match(result.tool_calls[0]!.error!, /^tool 'internal_admin': refused to connect to '127\.0\.0\.1': it is a loopback address/);
  assert.is(api.requests.length, 0);
  await flushTraces();
  const span = (await new TraceStore({ dbPath: dbOf(t) }).spans(result.trace_id!)).find((s) => s.name === 'tool.internal_admin')!;
  assert.is(span.status, 'ERROR');
  assert.is(span.attributes['agentkit.tool.error_code'], 'ssrf_blocked');
  assert.is(span.attributes['tool.status'], 'error');
});

area.scenario(
  'an agent rebuilt from its trace gets its REST tool back from the redacted definition plus headers given now',
  { backends: ['sqlite'] },
  async (t) => {
    const api = await recordingServer();
    t.defer(() => api.close());
    const registry = new ToolRegistry();
    const lookup = new RESTTool({
      name: 'lookup_user',
      url: `${api.url}/users/{id}`,
      bodyMapping: 'path_params',
      headers: { 'X-Api-Key': 'key-original-31415926' },
      allowHosts: ['127.0.0.1'],
      registry,
    });
    const agent = new Agent({
      name: 'users',
      llm: new ScriptedModel([{ toolCalls: [{ name: 'lookup_user', arguments: { id: '7' } }] }, 'ok']),
      tools: [lookup],
      traceDb: dbOf(t),
    });
    const first = await agent.run('who is 7?');
    await flushTraces();
    const root = (await new TraceStore({ dbPath: dbOf(t) }).spans(first.trace_id!)).find((s) => s.name === 'agent.users')!;
    const definition = agentDefinitionFromAttributes(root.attributes, root.name);
    const rebuilt = Agent.fromDefinition(definition, {
      toolRegistry: new ToolRegistry(),
      llm: new ScriptedModel([{ toolCalls: [{ name: 'lookup_user', arguments: { id: '8' } }] }, 'ok']),
      toolHeaders: { lookup_user: { 'X-Api-Key': 'key-at-replay-27182818' } },
    });
    await rebuilt.run('who is 8?');
    assert.equal(
      api.requests.map((r) => [r.path, r.headers['x-api-key']]),
      [
        ['/users/7', 'key-original-31415926'],
        ['/users/8', 'key-at-replay-27182818'],
      ],
    );
  },
);

area.scenario(
  "mcp serve --expose-tools serves an agent's REST and MCP-client tools like function tools",
  { backends: ['sqlite'], timeoutMs: 30_000 },
  async (t) => {
    const token = 'tok-exposed-1b6453892473a467';
    const api = await recordingServer();
    t.defer(() => api.close());
    const agent = await restAndMcpAgent(api.url, token, { traceDb: dbOf(t) });
    t.defer(() => agent.close());
    const target = toMcpTarget(agent, { traceDb: dbOf(t), invokeTool: invokeToolDirectly });
    const { server } = await createMcpServer(target, { exposeTools: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    t.defer(async () => {
      await client.close();
      await server.close();
    });
    const listed = (await client.listTools()).tools.map((x) => x.name).sort();
    assert.ok(listed.includes('get_order') && listed.includes('add'), listed.join(', '));
    const order = await client.callTool({ name: 'get_order', arguments: { id: '9' } });
    assert.match(JSON.stringify(order.content), /\/orders\/9/);
    const sum = await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } });
    assert.match(JSON.stringify(sum.content), /42/);
    assert.is(api.requests[0]!.headers.authorization, `Bearer ${token}`);
  },
);

area.scenario(
  'examples/tools/rest-and-mcp-agent.ts (the docs/tools.md example) runs offline and prints what the docs show',
  { backends: ['sqlite'], timeoutMs: 30_000 },
  async (t) => {
    const { code, stdout, stderr } = await runTsFile([path.resolve('examples/tools/rest-and-mcp-agent.ts')], {
      cwd: t.cwd,
      env: { ...process.env, ...t.env, ORDERS_TOKEN: 'docs-example-token-99' },
    });
    assert.is(code, 0, stderr);
    assert.is(
      stdout,
      [
        'get_order: {"id":"A-17","total":21,"currency":"EUR"}',
        'multiply: "42"',
        'output: Order A-17 totals 21 EUR; two of them cost 42 EUR.',
        'serialized headers: {"Authorization":"***"}',
        '',
      ].join('\n'),
    );
    assert.not.ok((await storeFiles(dbOf(t))).includes('docs-example-token-99'));
  },
);

area.run();
