/**
 * What an agentkit host sends to the Platform when it opts in with the standard OTLP environment
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT at `/v1/traces`, the key in OTEL_EXPORTER_OTLP_HEADERS): its agent spans arrive
 * under the key's project, registered secrets are masked in attributes, events and status messages, and with
 * AGENTKIT_TRACE_PAYLOADS=0 no system prompt, model message, tool argument or result leaves the host (the agent's
 * own input and output stay, as docs/tracing.md says: replay needs them).
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Type from 'typebox';
import { startIngestServer, type IngestServer } from '../../../test-support/otlp-ingest-server.js';
import { suite } from '../../../test-support/uvu.js';
import { Agent } from '../../agent/agent.js';
import { registerSecret } from '../../config/secrets.js';
import { FunctionModel } from '../../testing/index.js';
import { tool } from '../../tools/function-tool.js';
import { REDACTED } from '../../tracing/redact.js';
import { ensureTracing, flushTraces, shutdownTracing } from '../../tracing/setup.js';
import type { IngestedSpan } from '../server/ingested-span.js';

/** A registered secret with no credential shape: only the registry can mask it. */
const SECRET = 'orchid-basalt-7731-quietly';

const VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS', 'AGENTKIT_TRACE_PAYLOADS'] as const;

const test = suite<{ dir: string; server: IngestServer | undefined; saved: Record<string, string | undefined> }>('platform otlp: what an agentkit host sends', {
  state: { dir: '', server: undefined, saved: {} },
});

test.before(async (ctx) => {
  await shutdownTracing();
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-otlp-host-'));
  ctx.server = await startIngestServer();
  for (const name of VARIABLES) ctx.saved[name] = process.env[name];
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${ctx.server.url}/v1/traces`;
  process.env.OTEL_EXPORTER_OTLP_HEADERS = 'X-API-Key=key-alpha';
  registerSecret(SECRET);
  ensureTracing();
});
test.after(async (ctx) => {
  await shutdownTracing();
  for (const name of VARIABLES) {
    if (ctx.saved[name] === undefined) delete process.env[name];
    else process.env[name] = ctx.saved[name];
  }
  await ctx.server?.close();
  await rm(ctx.dir, { recursive: true, force: true });
});

const vault = tool({
  name: 'open_vault',
  description: 'Open the vault',
  parameters: Type.Object({ code: Type.String() }),
  registry: false,
  execute: ({ code }) => {
    if (code === 'wrong') throw new Error(`vault refused code ${SECRET}`);
    return { opened: true, echo: code };
  },
});

/** An agent whose prompt, tool arguments, tool result and tool error all quote the secret. */
function agent(dir: string, code: string): Agent {
  const llm = new FunctionModel((messages) =>
    messages.at(-1)!.role === 'user' ? { text: `Trying ${SECRET}.`, toolCalls: [{ name: 'open_vault', arguments: { code } }] } : 'Done.',
  );
  return new Agent({ name: 'keeper', systemPrompt: 'Guard the vault.', llm, tools: [vault], traceDb: path.join(dir, 'local.db') });
}

async function received(server: IngestServer, traceId: string): Promise<IngestedSpan[]> {
  await flushTraces();
  return server.stored.filter((s) => s.project === 'alpha' && s.span.trace_id === traceId).map((s) => s.span);
}

test('registered secrets are masked in attributes, events and status messages before they leave the host', async ({ dir, server }) => {
  for (const code of [SECRET, 'wrong']) {
    const result = await agent(dir, code).run(`Open the vault with ${SECRET}`);
    const spans = await received(server!, result.trace_id!);
    assert.equal(spans.map((s) => s.name).sort(), ['agent.keeper', 'llm.chat_completion', 'llm.chat_completion', 'tool.open_vault']);
    const text = JSON.stringify(spans);
    assert.not.ok(text.includes(SECRET), `the secret never reaches the Platform (code ${code})`);
    assert.ok(text.includes(REDACTED), 'the masked places say so');
    const model = spans.find((s) => s.name === 'llm.chat_completion')!;
    assert.match(String(model.attributes['gen_ai.input.messages']), /Open the vault with \[REDACTED\]/);
    if (code === 'wrong') {
      const failed = spans.find((s) => s.name === 'tool.open_vault')!;
      assert.is(failed.status, 'ERROR');
      assert.match(String(failed.status_message), /vault refused code \[REDACTED\]/);
    }
  }
});

test('AGENTKIT_TRACE_PAYLOADS=0: the spans arrive without the system prompt, model messages, tool arguments or results', async ({ dir, server }) => {
  process.env.AGENTKIT_TRACE_PAYLOADS = '0';
  let traceId: string;
  try {
    traceId = (await agent(dir, 'tool-argument-only').run('Open the vault')).trace_id!;
  } finally {
    delete process.env.AGENTKIT_TRACE_PAYLOADS;
  }
  const spans = await received(server!, traceId);
  assert.is(spans.length, 4);
  const text = JSON.stringify(spans);
  for (const content of ['tool-argument-only', 'Guard the vault', 'Trying', 'opened']) assert.not.ok(text.includes(content), `no span carries '${content}'`);
  const root = spans.find((s) => s.name === 'agent.keeper')!;
  assert.is(root.attributes['agent.input'], 'Open the vault', "the agent's input is kept (replay reruns it)");
  const model = spans.find((s) => s.name === 'llm.chat_completion')!;
  assert.is(model.attributes['gen_ai.operation.name'], 'chat');
  assert.is(model.attributes['gen_ai.input.messages'], undefined);
  assert.is(model.attributes['gen_ai.output.messages'], undefined);
  const toolSpan = spans.find((s) => s.name === 'tool.open_vault')!;
  assert.is(toolSpan.attributes['gen_ai.tool.call.arguments'], undefined);
  assert.is(toolSpan.attributes['gen_ai.tool.call.result'], undefined);
});

test.run();
