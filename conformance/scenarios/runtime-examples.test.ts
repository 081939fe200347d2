/** The runnable examples the docs point at run offline (scripted model, no key) and leave a trace. */
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { conformance } from '../harness/index.js';

const area = conformance('runtime: examples');

area.scenario('examples/quickstart-agent.ts runs without a key and its trace is listed', { backends: ['sqlite'], timeoutMs: 30_000 }, async (t) => {
  const env: Record<string, string | undefined> = { ...process.env, ...t.env };
  delete env.OPENAI_API_KEY;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', import.meta.resolve('tsx'), path.resolve('examples/quickstart-agent.ts')], { cwd: t.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  assert.is(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines.slice(0, 2), ['output: Order 42 (50 USD, delivered) is refunded.', 'tools: lookup_order, refund']);
  const traceId = /^trace: ([0-9a-f]{32})$/.exec(lines[3]!)?.[1];
  assert.ok(traceId, lines[3]);
  const listed = await t.cli(['traces', 'list']);
  assert.match(listed.stdout, new RegExp(`^${traceId}  agent\\.support  OK +7  `, 'm'));
});

area.run();
