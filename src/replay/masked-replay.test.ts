/**
 * Replay of a run whose recorded calls the trace writer masked (docs/adr/0010): a credential in a tool's output, and
 * passed on by the model as another tool's argument, never reaches the store, yet a rerun in recorded mode matches
 * every recorded call through the keyed hash stored beside the masked text, and only when the unmasked values are the
 * same ones.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Type from 'typebox';
import { suite } from '../../test-support/uvu.js';
import { Agent } from '../agent/agent.js';
import type { Message } from '../llm/messages.js';
import { openLocalStore } from '../store/open.js';
import { FunctionModel } from '../testing/index.js';
import { tool } from '../tools/function-tool.js';
import { flushTraces, shutdownTracing } from '../tracing/setup.js';
import { TraceStore } from '../tracing/trace-store.js';
import { ReplayError } from './errors.js';
import { Replay } from './replay.js';

const test = suite<{ dir: string }>('replay: masked recorded calls', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-masked-replay-'));
});
test.afterEach(async (ctx) => {
  await flushTraces();
  await rm(ctx.dir, { recursive: true, force: true });
});
test.after(async () => {
  await shutdownTracing();
});

const TOKEN = 'ghp_R4nd0mL00k1ngT0k3nF0rT3st1ngOnly00001';
const OTHER = 'ghp_An0th3rT0k3nTh4tIsN0tTh3S4m3One00002';

/** A vault whose token the model hands to a side-effecting deploy tool; `issued` says which token the vault returns. */
function deskFor(dbPath: string, issued: { token: string }, deployed: string[]): Agent {
  const fetchToken = tool({
    name: 'fetch_token',
    parameters: Type.Object({}),
    replayClass: 'read_only',
    registry: false,
    execute: () => `token: ${issued.token} (valid 1h)`,
  });
  const deploy = tool({
    name: 'deploy',
    parameters: Type.Object({ token: Type.String() }),
    replayClass: 'side_effecting',
    registry: false,
    execute: ({ token }) => {
      deployed.push(token);
      return 'deployed';
    },
  });
  const llm = new FunctionModel((messages: readonly Message[]) => {
    const last = messages.at(-1)!;
    if (last.role === 'user') return { toolCalls: [{ name: 'fetch_token', arguments: {} }] };
    if (last.role === 'tool' && last.name === 'fetch_token')
      return { toolCalls: [{ name: 'deploy', arguments: { token: /token: (\S+)/.exec(last.content)![1]! } }] };
    return 'Deployed.';
  });
  return new Agent({ name: 'deployer', systemPrompt: 'Deploy with the vault token.', llm, tools: [fetchToken, deploy], traceDb: dbPath });
}

test('the credential is masked in the store; a recorded rerun matches every call by the keyed hash', async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const deployed: string[] = [];
  const issued = { token: TOKEN };
  const original = await deskFor(db, issued, deployed).run('Deploy now.');
  assert.equal(deployed, [TOKEN]);
  await flushTraces();
  const raw = openLocalStore(db, { readonly: true });
  const rows = raw.prepare('SELECT name, attributes FROM spans WHERE trace_id = ?').all(original.trace_id) as Array<{ name: string; attributes: string }>;
  raw.close();
  assert.not.ok(
    rows.some((r) => r.attributes.includes(TOKEN)),
    'the token is in no stored span',
  );
  const deploySpan = JSON.parse(rows.find((r) => r.name === 'tool.deploy')!.attributes) as Record<string, string>;
  assert.is(deploySpan['tool.args'], '{"token":"[REDACTED]"}');
  assert.match(deploySpan['agentkit.redaction.hmac']!, /^\{"tool.args":"[0-9a-f]{32}"\}$/);

  // Recorded mode with onMiss 'error': every model call must be answered from the trace, or the rerun stops.
  const replay = await Replay.load(original.trace_id!, { dbPath: db });
  const rerun = await replay
    .forkAt(0)
    .withDeterminism('recorded', { onMiss: 'error' })
    .rerun({ agent: deskFor(db, issued, deployed) });
  assert.equal(rerun.counts, { recordedModelCalls: 3, liveModelCalls: 0, liveToolCalls: 1, recordedToolCalls: 1, overriddenToolCalls: 0 });
  assert.is(rerun.new_output, 'Deployed.');
  assert.equal(deployed, [TOKEN], 'the deploy was answered from the trace, not run again');
  const stored = await new TraceStore({ dbPath: db }).getTrace(rerun.trace_id!);
  assert.not.ok(JSON.stringify(stored).includes(TOKEN), 'the rerun stores no token either');
});

test('a different secret behind the same mask does not match (the hash is of the unmasked value)', async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const issued = { token: TOKEN };
  const original = await deskFor(db, issued, []).run('Deploy now.');
  const replay = await Replay.load(original.trace_id!, { dbPath: db });
  issued.token = OTHER;
  const error = await replay
    .forkAt(0)
    .withDeterminism('recorded', { onMiss: 'error' })
    .rerun({ agent: deskFor(db, issued, []) })
    .then(
      () => assert.unreachable('the second model call saw another token: it must not match'),
      (e: unknown) => e,
    );
  assert.instance(error, ReplayError);
  assert.match((error as Error).message, /model call 2 of agent 'deployer' does not match the recorded request/);
  assert.not.ok((error as Error).message.includes(OTHER));
});

test('without the store (a trace object, no key), masked calls match only their masked text', async ({ dir }) => {
  const db = path.join(dir, 'local.db');
  const issued = { token: TOKEN };
  const deployed: string[] = [];
  const original = await deskFor(db, issued, deployed).run('Deploy now.');
  const trace = await new TraceStore({ dbPath: db }).getTrace(original.trace_id!);
  const error = await new Replay(trace, { store: new TraceStore({ dbPath: path.join(dir, 'other.db') }) })
    .forkAt(0)
    .rerun({ agent: deskFor(db, issued, deployed) })
    .then(
      () => assert.unreachable('the deploy cannot be matched without the key'),
      (e: unknown) => e,
    );
  // The second model call (holding the live tool's unmasked token) went live, and its deploy call, with the real
  // token, matches no recorded call: the side effect is refused, never repeated.
  assert.instance(error, ReplayError);
  assert.match((error as Error).message, /rerun stopped: tool 'deploy' is side_effecting and the trace has no recorded call with these arguments/);
  assert.equal(deployed, [TOKEN]);
});

test.run();
