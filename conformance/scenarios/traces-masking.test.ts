/**
 * Credential shapes masked in every observation copy (docs/adr/0010): a GitHub token, a JWT and an `sk-` key in a
 * tool's output and in a provider's error body never reach the store, OTLP, the server's logs or any HTTP or MCP
 * error body; a replay of the run in recorded mode still matches its recorded calls. Real served processes (the built
 * binary), a fake provider speaking OpenAI's protocol, a loopback OTLP receiver and the MCP SDK's client.
 */
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { conformance, startCli, startFakeProvider, startOtlpReceiver, type FakeReply, type RecordedRequest, type ScenarioContext } from '../harness/index.js';
import { BIN } from '../harness/cli.js';
import { LEAKED, providerAgent, providerReply } from '../fixtures/serving/provider-agent.js';
import { Replay } from '../../src/replay/index.js';
import { TraceStore } from '../../src/tracing/index.js';

const area = conformance('masking: credential shapes in every observation copy');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const moduleUrl = (file: string) => JSON.stringify(pathToFileURL(path.join(root, file)).href);
const SECRETS = Object.values(LEAKED);

/** The fake provider: the desk's script, except that a request whose user asks to fail gets a 401 quoting credentials. */
function reply(request: RecordedRequest): FakeReply {
  if (request.raw.includes('please fail')) {
    return {
      status: 401,
      json: {
        error: { message: `Incorrect API key provided: ${LEAKED.openai}; your session ${LEAKED.jwt} and deploy token ${LEAKED.github} are not valid here` },
      },
    };
  }
  return { json: providerReply(request.body) };
}

/** Nothing in `text` of any leaked credential. */
function clean(text: string, where: string): void {
  for (const secret of SECRETS) assert.not.ok(text.includes(secret), `${where} holds ${secret.slice(0, 8)}...`);
}

/**
 * Everything the variant's store holds, as text: the SQLite files (database and WAL) byte for byte, or every row of
 * every table in the Postgres schema. A credential written anywhere in them shows.
 */
async function storeText(t: ScenarioContext): Promise<string> {
  if (t.backend.kind === 'sqlite') {
    const file = t.backend.dbPath;
    return [file, `${file}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('\n');
  }
  if (t.backend.kind !== 'postgres') throw new Error('masking scenarios need a store');
  const client = new pg.Client({ connectionString: t.backend.url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
      [t.backend.schema],
    );
    assert.ok(
      tables.rows.some((r) => r.table_name === 'spans'),
      'the run wrote its spans to the schema',
    );
    const dumps: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT r::text AS row FROM "${t.backend.schema}"."${table_name}" r`);
      dumps.push(...rows.rows.map((r) => r.row));
    }
    return dumps.join('\n');
  } finally {
    await client.end();
  }
}

async function writeRunners(t: ScenarioContext, baseUrl: string): Promise<void> {
  await writeFile(
    path.join(t.cwd, 'runners.mts'),
    `import { providerAgent } from ${moduleUrl('conformance/fixtures/serving/provider-agent.ts')};
export const desk = () => providerAgent({ baseUrl: ${JSON.stringify(baseUrl)}, leakyOutput: true });
`,
  );
}

area.scenario(
  'served over HTTP: a ghp_, a JWT and an sk- string in tool output and in a provider error reach no store, OTLP, log or error body; replay still matches',
  { surfaces: ['http'], timeoutMs: 60_000, storeEnv: true },
  async (t) => {
    const receiver = await startOtlpReceiver();
    t.defer(() => receiver.close());
    const provider = await startFakeProvider(reply);
    t.defer(() => provider.close());
    await writeRunners(t, `${provider.url}/v1`);
    const proc = startCli(['agent', 'serve', 'runners.mts:desk', '--port', '0', '--host', '127.0.0.1'], {
      cwd: t.cwd,
      env: { ...t.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    t.defer(() => proc.kill());
    const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 30_000);
    const post = (route: string, input: string) =>
      fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });

    const ok = await post('/run', 'What does order 42 cost?');
    const okBody = (await ok.json()) as { trace_id: string; output: string };
    assert.is(okBody.output, 'Order 42 costs 50.');
    // The model did read the tool's real output: masking is for observation copies, never for what the run reads.
    const toolMessage = (provider.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'tool')!;
    assert.ok(toolMessage.content.includes(LEAKED.github));

    const failed = await post('/run', 'please fail');
    assert.is(failed.status, 500);
    const failedText = await failed.text();
    clean(failedText, 'the /run error body');
    assert.match(failedText, /Incorrect API key provided: \[REDACTED\]; your session \[REDACTED\] and deploy token \[REDACTED\]/);
    const streamed = await post('/run/stream', 'please fail');
    const streamedText = await streamed.text();
    clean(streamedText, 'the /run/stream error');
    assert.match(streamedText, /\[REDACTED\]/);

    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, { code: 0, signal: null });
    clean(proc.stderr(), "the server's log");
    assert.match(proc.stderr(), /agentkit serve: LLMProviderError: openai: HTTP 401 .*\[REDACTED\]/, 'the failure was logged, masked');
    clean(receiver.bodies().join('\n'), 'the OTLP export');
    assert.ok(receiver.spans().some((s) => String(s.attributes['gen_ai.tool.call.result'] ?? '').includes('[REDACTED]')));
    clean(await storeText(t), 'the store');

    // The stored run: masked, with the keyed hashes replay needs, and its rerun in recorded mode calls no model.
    const store = new TraceStore({ dbPath: t.store! });
    t.defer(() => store.close());
    const spans = (await store.getTrace(okBody.trace_id)).spans;
    const secondModel = spans.filter((s) => s.name === 'llm.chat_completion')[1]!;
    assert.match(String(secondModel.attributes['agentkit.redaction.hmac']), /"gen_ai.request.messages":\{"3":"[0-9a-f]{32}"\}/);
    const calls = provider.requests.length;
    const rerun = await (await Replay.load(okBody.trace_id, { store }))
      .forkAt(0)
      .withDeterminism('recorded', { onMiss: 'error' })
      .rerun({ agent: providerAgent({ baseUrl: `${provider.url}/v1`, leakyOutput: true }) });
    assert.is(rerun.new_output, 'Order 42 costs 50.');
    assert.equal([rerun.counts.recordedModelCalls, rerun.counts.liveModelCalls], [2, 0]);
    assert.is(provider.requests.length, calls, 'no call reached the provider');
  },
);

area.scenario(
  'mcp serve: a provider error quoting credentials comes back as an MCP error result with them masked; the server log holds none',
  { surfaces: ['cli'], timeoutMs: 40_000, storeEnv: true },
  async (t) => {
    const provider = await startFakeProvider(reply);
    t.defer(() => provider.close());
    await writeRunners(t, `${provider.url}/v1`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', 'serve', 'runners.mts:desk', '--expose-tools'],
      cwd: t.cwd,
      env: { ...(process.env as Record<string, string>), ...t.env, NO_COLOR: '1' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'conformance', version: '1.0.0' });
    await client.connect(transport);
    t.defer(() => client.close());
    const failed = await client.callTool({ name: 'desk', arguments: { input: 'please fail' } });
    assert.is(failed.isError, true);
    const text = (failed.content as Array<{ text: string }>)[0]!.text;
    clean(text, 'the MCP error result');
    assert.match(text, /^Error: openai: HTTP 401 .*Incorrect API key provided: \[REDACTED\]/);
    // The tool on its own answers with its real output (what the client asked for is not an observation copy).
    const direct = await client.callTool({ name: 'lookup_order', arguments: { id: '42' } });
    assert.ok(JSON.stringify(direct.content).includes(LEAKED.github));
    await client.close();
    clean(stderr, "the MCP server's log");
    clean(await storeText(t), 'the store');
  },
);

area.run();
