/**
 * The typed client as a `tsc --strict` consumer sees it (the built declarations in dist/): error bodies narrow per
 * route and status, `errors` is reachable once `code === 'validation_failed'`, `signal` is accepted on every call. A
 * probe that uses the narrowing compiles; a probe that skips it, or compares a code the route or status cannot have,
 * fails with exactly the diagnostics expected.
 */
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformance, type ScenarioContext } from '../harness/index.js';

const area = conformance('served agent: the typed client under tsc --strict');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENT = path.join(root, 'dist/src/client/index.js');
const any = { backends: 'none', surfaces: ['sdk'], timeoutMs: 120_000 } as const;

const HEADER = `import { AgentClient, StreamCutError } from ${JSON.stringify(CLIENT)};\nconst client = new AgentClient({ baseUrl: 'http://127.0.0.1:8000', token: 't' });\n`;

/** Type-check `source` alone with `--strict` (and the node types); the diagnostics as `line: TSxxxx`. */
async function typecheck(t: ScenarioContext, name: string, source: string): Promise<{ status: number | null; diagnostics: string[]; output: string }> {
  const file = path.join(t.cwd, `${name}.mts`);
  await writeFile(file, HEADER + source);
  const result = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/typescript/bin/tsc'),
      '--strict',
      '--noEmit',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      '--typeRoots',
      path.join(root, 'node_modules/@types'),
      file,
    ],
    { cwd: t.cwd, encoding: 'utf8' },
  );
  const output = `${result.stdout}${result.stderr}`;
  const diagnostics = [...output.matchAll(/\.mts\((\d+),\d+\): error (TS\d+)/g)].map((m) => `${Number(m[1]) - 2}: ${m[2]}`);
  return { status: result.status, diagnostics, output };
}

area.scenario('a consumer that narrows by status and code compiles', any, async (t) => {
  assert.ok(existsSync(CLIENT.replace(/\.js$/, '.d.ts')), 'dist/ is built (npm run build)');
  const result = await typecheck(
    t,
    'narrowing',
    `export async function use(signal: AbortSignal): Promise<string> {
  const ran = await client.run('refund order 42', { idempotencyKey: 'k1', signal });
  if (ran.data) return ran.data.execution_id;
  const error = ran.error;
  if (error.body.code === 'validation_failed') return error.body.errors.map((issue) => issue.path + issue.message).join();
  if (error.body.code === 'idempotency_key_in_use') return error.body.execution_id;
  if (error.status === 503 && error.body.code === 'run_stopped') return error.body.execution_id;
  if (error.unexpected) return String(error.status);
  const status: 400 | 401 | 404 | 405 | 408 | 409 | 413 | 415 | 422 | 431 | 500 | 503 = error.status;
  const streamed = await client.stream('hi', { signal });
  if (streamed.error?.body.code === 'streaming_unsupported') return streamed.error.body.detail;
  try {
    for await (const event of streamed.data ?? []) if (event.type === 'done') return event.status;
  } catch (cut) {
    if (cut instanceof StreamCutError) return String(cut.received);
  }
  const state = await client.getRun('e1', { signal });
  if (state.error?.status === 404 && state.error.body.code === 'not_found') return state.error.body.detail;
  return \`\${status} \${state.data?.status ?? ''}\`;
}
`,
  );
  assert.is(result.status, 0, result.output);
  assert.equal(result.diagnostics, []);
});

area.scenario('a consumer that skips the narrowing, or compares a code the route cannot send, does not compile', any, async (t) => {
  const result = await typecheck(
    t,
    'unnarrowed',
    `export async function use(): Promise<void> {
  const ran = await client.run('x');
  if (!ran.error) return;
  console.log(ran.error.body.errors);
  if (ran.error.body.code === 'streaming_unsupported') return;
  if (ran.error.status === 401 && ran.error.body.code === 'validation_failed') return;
  await client.getRun('e1', { signal: 'soon' });
}
`,
  );
  assert.is.not(result.status, 0, 'the probe must not compile');
  assert.equal(result.diagnostics, ['4: TS2339', '5: TS2367', '6: TS2367', '7: TS2322'], result.output);
  assert.match(result.output, /Property 'errors' does not exist on type/);
});

area.run();
