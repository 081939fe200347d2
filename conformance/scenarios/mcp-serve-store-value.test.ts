/**
 * `mcp serve --db <path|url>` (issue 38) on both engines: every call's trace goes to the store one value names, and a
 * Postgres URL is never a file path (no `.agentkit` appears); its password appears in no output of the server.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from '../harness/cli.js';
import { conformance, type Backend } from '../harness/index.js';

const area = conformance('mcp serve: a store named by one value');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PASSWORD = 'Mcp5toreS3cretPw';

function storeValueOf(backend: Backend): string {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind !== 'postgres') throw new Error('no store');
  const url = new URL(backend.url);
  url.password = PASSWORD;
  url.searchParams.set('schema', backend.schema);
  return url.toString();
}

area.scenario('mcp serve --db traces each call in the store it names', { rows: ['cli:mcp serve'], surfaces: ['cli'], timeoutMs: 60_000 }, async (t) => {
  const store = storeValueOf(t.backend);
  const fixture = JSON.stringify(pathToFileURL(path.join(root, 'conformance/fixtures/serving/runners.ts')).href);
  await writeFile(path.join(t.cwd, 'runners.mts'), `import { weatherAgent } from ${fixture};\nexport const weather = weatherAgent();\n`);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...(t.env as Record<string, string>), NO_COLOR: '1' };
  if (t.backend.kind === 'postgres') delete env.AGENTKIT_LOCAL_DB;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'serve', 'runners.mts:weather', '--db', store],
    cwd: t.cwd,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'conformance', version: '1.0.0' });
  await client.connect(transport);
  t.defer(() => client.close());
  const answer = await client.callTool({ name: 'weather', arguments: { input: 'weather in Oslo' } });
  const traceId = (answer.structuredContent as { trace_id: string }).trace_id;

  // The server writes spans in batches: the trace arrives while the server still runs.
  let listed = await t.cli(['traces', 'list', '--db', store, '--json']);
  for (let tries = 0; tries < 50 && !listed.stdout.includes(traceId); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    listed = await t.cli(['traces', 'list', '--db', store, '--json']);
  }
  assert.is(listed.code, 0, listed.stderr);
  assert.ok(
    (JSON.parse(listed.stdout) as { items: Array<{ trace_id: string }> }).items.some((item) => item.trace_id === traceId),
    `trace ${traceId} is in the store --db names: ${listed.stdout}`,
  );
  await client.close();
  assert.not.ok(stderr.includes(PASSWORD), stderr);
  if (t.backend.kind === 'postgres') assert.not.ok(existsSync(path.join(t.cwd, '.agentkit')), 'a URL store creates no .agentkit folder');
});

area.run();
