/**
 * `Idempotency-Key` on `POST /run` and `POST /run/stream`, and `GET /runs/{execution_id}` (docs/adr/0052, 0053),
 * against `agentkit agent serve` as real processes of the built binary, on both engines: one execution per caller
 * and key, also across two replicas of one store and after a replica is SIGKILLed mid-run; repeats answer the
 * execution as it stands; the status route reads every state, behind the token, off by default without one.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { conformance, runTsFile, startCli, type ScenarioContext } from '../harness/index.js';
import { backendConfig } from '../harness/checkpointers.js';

const area = conformance('serving: idempotency keys and run status');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const moduleUrl = (file: string) => JSON.stringify(pathToFileURL(path.join(root, file)).href);
const TOKEN = 'conformance-token';

async function writeRunners(t: ScenarioContext): Promise<void> {
  const config = JSON.stringify(backendConfig(t.backend));
  await writeFile(
    path.join(t.cwd, 'runners.mts'),
    `import { keyedAgent } from ${moduleUrl('conformance/fixtures/serving/keyed-runners.ts')};
export const desk = keyedAgent(${config});
export const other = keyedAgent(${config}, 'other');
`,
  );
}

/** The inputs of the runs the model started, in order. */
async function runLog(t: ScenarioContext): Promise<string[]> {
  const text = await readFile(path.join(t.cwd, 'runs.log'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

async function serve(t: ScenarioContext, spec: string, args: string[] = [], env: Record<string, string> = {}) {
  const proc = startCli(['agent', 'serve', spec, '--port', '0', '--host', '127.0.0.1', ...args], {
    cwd: t.cwd,
    env: { ...t.env, AGENTKIT_TEST_RUN_LOG: path.join(t.cwd, 'runs.log'), ...env },
  });
  t.defer(() => proc.kill());
  const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 30_000);
  return { proc, url: url! };
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function post(url: string, input: string, options: { key?: string; token?: string; route?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${url}${options.route ?? '/run'}`, { method: 'POST', headers, body: JSON.stringify({ input }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The `data:` events of a `/run/stream` answer. */
async function stream(url: string, input: string, key: string, token?: string): Promise<Record<string, unknown>[]> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': key };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${url}/run/stream`, { method: 'POST', headers, body: JSON.stringify({ input }) });
  assert.is(response.status, 200, `stream answered ${response.status}`);
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

async function getRun(url: string, id: string, token?: string): Promise<Answer> {
  const response = await fetch(`${url}/runs/${id}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

area.scenario(
  'Idempotency-Key: a repeat answers the first execution (completed, paused then completed after resume, failed), 422 for another body, 400 for a malformed key; callers never share a key',
  { rows: ['route:POST /run', 'route:POST /run/stream', 'cli:agent serve'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    await writeRunners(t);
    const { url } = await serve(t, 'runners.mts:desk', ['--auth-token', TOKEN]);
    const auth = { token: TOKEN };

    for (const bad of ['', '""', 'has space', `"${'k'.repeat(256)}"`, 'tab\there', 'quote"inside', 'caf\u00e9']) {
      const answer = await post(url, 'hello', { ...auth, key: bad }).catch(() => null);
      if (answer === null) continue; // fetch refuses a header value it cannot send (non-Latin-1): nothing reached the server
      assert.is(answer.status, 400, `key ${JSON.stringify(bad)}`);
      assert.is(answer.body.code, 'invalid_idempotency_key');
    }
    assert.equal(await runLog(t), [], 'no malformed request ran');

    const first = await post(url, 'hello', { ...auth, key: 'order-1' });
    assert.is(first.status, 200);
    assert.is(first.body.status, 'completed');
    assert.is(first.body.output, 'echo: hello');
    const again = await post(url, 'hello', { ...auth, key: '"order-1"' });
    assert.is(again.status, 200, 'the quoted form names the same key');
    assert.is(again.body.execution_id, first.body.execution_id);
    assert.is(again.body.output, 'echo: hello');
    assert.is(again.body.trace_id, first.body.trace_id);
    assert.equal(await runLog(t), ['hello'], 'the repeat started nothing');

    const mismatch = await post(url, 'hello again', { ...auth, key: 'order-1' });
    assert.is(mismatch.status, 422);
    assert.is(mismatch.body.code, 'idempotency_key_mismatch');

    // Paused, then resumed from the CLI: the repeat follows the execution.
    const paused = await post(url, 'refund 50', { ...auth, key: 'refund-1' });
    assert.is(paused.body.status, 'paused');
    const id = String(paused.body.execution_id);
    const pausedAgain = await post(url, 'refund 50', { ...auth, key: 'refund-1' });
    assert.is(pausedAgain.body.status, 'paused');
    assert.is(pausedAgain.body.execution_id, id);
    assert.equal(pausedAgain.body.pending_interrupt, paused.body.pending_interrupt);
    const resumed = await t.bin(['resume', id, '--runner', 'runners.mts:desk', '--value', '{"approved": true}']);
    assert.is(resumed.code, 0, resumed.stderr);
    const completed = await post(url, 'refund 50', { ...auth, key: 'refund-1' });
    assert.is(completed.status, 200);
    assert.is(completed.body.status, 'completed');
    assert.is(completed.body.execution_id, id);
    assert.is(completed.body.output, 'Done: refunded 50');

    // A failed run: the repeat answers its failure and runs nothing.
    const failed = await post(url, 'fail now', { ...auth, key: 'fail-1' });
    assert.is(failed.status, 500);
    const failedAgain = await post(url, 'fail now', { ...auth, key: 'fail-1' });
    assert.is(failedAgain.status, 500);
    assert.is(failedAgain.body.code, 'internal_error');
    assert.match(String(failedAgain.body.detail), /the model failed on purpose/);

    // Another caller (an anonymous server on the same store) never gets this caller's execution for the same key.
    const open = await serve(t, 'runners.mts:desk');
    const theirs = await post(open.url, 'hello', { key: 'order-1' });
    assert.is(theirs.status, 200);
    assert.is.not(theirs.body.execution_id, first.body.execution_id);
    assert.equal(await runLog(t), ['hello', 'refund 50', 'fail now', 'hello']);
  },
);

area.scenario(
  'Idempotency-Key on /run/stream: done carries execution_id, trace_id and status; a repeat (an EventSource-style reconnect) sends only paused/done and starts no run',
  { rows: ['route:POST /run/stream', 'cli:agent serve'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    await writeRunners(t);
    const { url } = await serve(t, 'runners.mts:desk');
    const events = await stream(url, 'stream me', 's-1');
    const done = events.at(-1)!;
    assert.is(done.type, 'done');
    assert.is(done.status, 'completed');
    assert.type(done.execution_id, 'string');
    assert.type(done.trace_id, 'string');
    assert.ok(events.some((e) => e.type === 'delta'));
    // Reconnect after done, three times, with the key: one `done` each, the same execution, nothing run.
    for (let i = 0; i < 3; i++) assert.equal(await stream(url, 'stream me', 's-1'), [done]);
    const paused = await stream(url, 'refund 50', 's-2');
    assert.equal(
      paused.map((e) => e.type),
      ['tool_call', 'paused', 'done'],
    );
    const repeat = await stream(url, 'refund 50', 's-2');
    assert.equal(repeat, paused.slice(1));
    assert.equal(await runLog(t), ['stream me', 'refund 50']);
  },
);

area.scenario(
  'Idempotency-Key across two replicas of one store: the same key at once starts one execution; after a replica is SIGKILLed mid-run a retry gets 409, never a second run',
  { rows: ['route:POST /run', 'cli:agent serve'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    await writeRunners(t);
    const env = { AGENTKIT_EXECUTION_LEASE_MS: '1000' };
    const a = await serve(t, 'runners.mts:desk', ['--auth-token', TOKEN], env);
    const b = await serve(t, 'runners.mts:desk', ['--auth-token', TOKEN], env);
    const auth = { token: TOKEN };
    const [one, two] = await Promise.all([post(a.url, 'slow 1500 race', { ...auth, key: 'race' }), post(b.url, 'slow 1500 race', { ...auth, key: 'race' })]);
    const answers = [one, two].sort((x, y) => x.status - y.status);
    assert.is(answers[0]!.status, 200);
    assert.is(answers[0]!.body.status, 'completed');
    assert.ok([200, 409].includes(answers[1]!.status), `second answer ${answers[1]!.status}`);
    assert.is(answers[1]!.body.execution_id, answers[0]!.body.execution_id, 'both name the one execution');
    if (answers[1]!.status === 409) assert.is(answers[1]!.body.code, 'idempotency_key_in_use');
    assert.equal(await runLog(t), ['slow 1500 race'], 'one run started');
    const later = await post(b.url, 'slow 1500 race', { ...auth, key: 'race' });
    assert.is(later.body.execution_id, answers[0]!.body.execution_id);
    assert.is(later.body.status, 'completed');

    // A replica dies mid-run: the retry on the other answers 409 with the execution id, and runs nothing.
    const pending = post(a.url, 'slow 20000 killed', { ...auth, key: 'killed' }).catch(() => null);
    await until(
      () => runLog(t),
      (log) => log.includes('slow 20000 killed'),
      'the run to start',
    );
    a.proc.child.kill('SIGKILL');
    await a.proc.exited;
    await pending;
    const retry = await post(b.url, 'slow 20000 killed', { ...auth, key: 'killed' });
    assert.is(retry.status, 409);
    assert.is(retry.body.code, 'idempotency_key_in_use');
    const killedId = String(retry.body.execution_id);
    const status = await until(
      () => getRun(b.url, killedId, TOKEN),
      (s) => s.body.status === 'needs_attention',
      'the lease to expire',
    );
    assert.is(status.status, 200);
    assert.is((await post(b.url, 'slow 20000 killed', { ...auth, key: 'killed' })).status, 409);
    assert.equal(await runLog(t), ['slow 1500 race', 'slow 20000 killed'], 'never a second run');
  },
);

area.scenario(
  'GET /runs/{execution_id}: running, paused, completed, failed; 401 without the token; 404 for another runner or none; off without a token unless --expose-status',
  { rows: ['route:GET /runs/{execution_id}', 'cli:agent serve'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    await writeRunners(t);
    const { url } = await serve(t, 'runners.mts:desk', ['--auth-token', TOKEN]);
    const auth = { token: TOKEN };
    const done = await post(url, 'hello', auth);
    const id = String(done.body.execution_id);
    const unauthorized = await getRun(url, id);
    assert.is(unauthorized.status, 401);
    assert.is(unauthorized.body.code, 'unauthorized');
    const completed = await getRun(url, id, TOKEN);
    assert.is(completed.status, 200);
    assert.is(completed.body.status, 'completed');
    assert.is(completed.body.output, 'echo: hello');
    assert.equal(completed.body.trace_ids, [done.body.trace_id]);
    assert.type(completed.body.created_at, 'string');

    const paused = await post(url, 'refund 50', auth);
    const pausedStatus = await getRun(url, String(paused.body.execution_id), TOKEN);
    assert.is(pausedStatus.body.status, 'paused');
    assert.equal(pausedStatus.body.pending_interrupt, paused.body.pending_interrupt);
    assert.is(pausedStatus.body.output, null);

    const failedEvents = await stream(url, 'fail now', 'f', TOKEN);
    assert.equal(
      failedEvents.map((e) => e.type),
      ['tool_call', 'error', 'done'],
    );
    const failedDone = failedEvents.at(-1)!;
    assert.is(failedDone.status, 'failed');
    const failedStatus = await getRun(url, String(failedDone.execution_id), TOKEN);
    assert.is(failedStatus.body.status, 'failed');
    assert.match(String(failedStatus.body.error), /the model failed on purpose/);
    const slow = post(url, 'slow 2000 status', { ...auth, key: 'slow' });
    await until(
      () => runLog(t),
      (log) => log.includes('slow 2000 status'),
      'the slow run to start',
    );
    const busy = await post(url, 'slow 2000 status', { ...auth, key: 'slow' });
    assert.is(busy.status, 409);
    const running = await getRun(url, String(busy.body.execution_id), TOKEN);
    assert.is(running.body.status, 'running');
    assert.is((await slow).status, 200);

    assert.is((await getRun(url, 'no-such-execution', TOKEN)).status, 404);
    // Another runner's execution on the same store is not this server's.
    const other = await serve(t, 'runners.mts:other', ['--auth-token', TOKEN]);
    const theirs = await post(other.url, 'hello', auth);
    const notOurs = await getRun(url, String(theirs.body.execution_id), TOKEN);
    assert.is(notOurs.status, 404);
    assert.is(notOurs.body.code, 'not_found');
    assert.is((await getRun(other.url, String(theirs.body.execution_id), TOKEN)).body.status, 'completed');

    // Without a token: off by default, on with --expose-status.
    const off = await serve(t, 'runners.mts:desk');
    const offAnswer = await getRun(off.url, id);
    assert.is(offAnswer.status, 404);
    assert.match(String(offAnswer.body.detail), /--expose-status/);
    const exposed = await serve(t, 'runners.mts:desk', ['--expose-status']);
    assert.match(exposed.proc.stderr(), /GET \/runs\/\{execution_id\}/);
    assert.is((await getRun(exposed.url, id)).body.status, 'completed');
  },
);

area.scenario(
  "docs/serving.md's retry loop is examples/serving/retry-with-key.ts, and it runs as written: one run, its status read back",
  { rows: ['route:POST /run', 'route:GET /runs/{execution_id}'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    await writeRunners(t);
    const { url } = await serve(t, 'runners.mts:desk', ['--auth-token', TOKEN]);
    const example = path.join(root, 'examples/serving/retry-with-key.ts');
    const docs = await readFile(path.join(root, 'docs/serving.md'), 'utf8');
    const source = await readFile(example, 'utf8');
    const loop = source.slice(source.indexOf('/** POST /run until'), source.indexOf('\nif (process.argv[1]'));
    assert.ok(loop.length > 200 && docs.includes(loop), 'docs/serving.md shows the loop of examples/serving/retry-with-key.ts verbatim');
    const run = await runTsFile([example, 'hello from the example'], { cwd: root, env: { ...process.env, AGENT_URL: url, AGENTKIT_SERVE_TOKEN: TOKEN } });
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /^completed [0-9a-f-]{36}: echo: hello from the example\nnow completed; traces [0-9a-f]{32}\n$/);
    assert.equal(await runLog(t), ['hello from the example']);
  },
);

area.run();
