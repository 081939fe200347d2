import * as assert from 'uvu/assert';
import { suite } from '../../test-support/uvu.js';
import { AgentClient } from '../client/agent-client.js';
import { AgentkitError } from '../errors.js';
import { startAgentServer } from './server.js';
import type { ServeTarget } from './target.js';
import type { RunResponse } from '../../generated/types/served-agent.js';

const test = suite('served agent lifecycle');

function response(output: string): RunResponse {
  return { output, latency_ms: 1, tokens_used: 2, trace_id: 'a'.repeat(32), status: 'completed', execution_id: 'e1', pending_interrupt: null };
}

test('close waits for the in-flight run, then runs the shutdown hook; new requests are refused', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const events: string[] = [];
  const target: ServeTarget = {
    kind: 'agent',
    name: 'slow',
    async run(input) {
      events.push('run started');
      await gate;
      events.push('run finished');
      return response(input);
    },
  };
  const lines: string[] = [];
  const server = await startAgentServer(target, { host: '127.0.0.1', port: 0, log: (l) => lines.push(l), onShutdown: async () => void events.push('flushed') });
  assert.match(lines[0] ?? '', /^agentkit: serving agent 'slow' on http:\/\/127\.0\.0\.1:\d+ \(GET \/health, POST \/run\)$/);
  const client = new AgentClient({ baseUrl: server.url });
  const pending = client.run('hello');
  while (server.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
  const closing = server.close();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(events, ['run started'], 'close has not cut the run');
  release();
  const result = await pending;
  assert.is(result.data?.output, 'hello');
  await closing;
  assert.equal(events, ['run started', 'run finished', 'flushed']);
  await fetch(`${server.url}/health`).then(
    () => assert.unreachable('the port must be closed'),
    (error: Error) => assert.instance(error, Error),
  );
});

test('a non-loopback bind without a token logs the warning', async () => {
  const lines: string[] = [];
  const server = await startAgentServer({ kind: 'chain', name: 'c', run: async () => response('x') }, { host: '0.0.0.0', port: 0, log: (l) => lines.push(l) });
  try {
    assert.ok(lines.some((l) => l.startsWith('WARNING: serving on a non-loopback address (0.0.0.0) with NO authentication')));
  } finally {
    await server.close();
  }
});

test('stream: events in order, a failure mid-stream becomes an error event before done', async () => {
  const target: ServeTarget = {
    kind: 'agent',
    name: 'streamer',
    run: async () => response('x'),
    async *stream(input) {
      yield { type: 'delta', text: 'Hel' };
      yield { type: 'delta', text: 'lo' };
      if (input === 'fail') throw new AgentkitError('llm_provider_error', 'openai answered 503');
      yield { type: 'paused', reason: 'approval', execution_id: 'e9', context: { amount: 5 } };
    },
  };
  const server = await startAgentServer(target, { host: '127.0.0.1', port: 0, token: 't0k', log: () => undefined });
  try {
    const client = new AgentClient({ baseUrl: server.url, token: 't0k' });
    const ok = await client.stream('go');
    const seen: string[] = [];
    for await (const event of ok.data!) seen.push(event.type);
    assert.equal(seen, ['delta', 'delta', 'paused', 'done']);

    const failing = await client.stream('fail');
    const events = [];
    for await (const event of failing.data!) events.push(event);
    const done = events.at(-1);
    assert.equal(events.slice(2), [
      { type: 'error', detail: 'the run failed: AgentkitError: openai answered 503', code: 'internal_error' },
      { type: 'done', execution_id: done?.type === 'done' ? done.execution_id : '', trace_id: null, status: 'failed' },
    ]);
    assert.match(done?.type === 'done' ? done.execution_id : '', /^[0-9a-f-]{36}$/, 'the server chose the execution id');

    const anonymous = await new AgentClient({ baseUrl: server.url }).stream('go');
    assert.is(anonymous.error?.status, 401);
    assert.is(anonymous.error?.body.code, 'unauthorized');
    assert.is((await new AgentClient({ baseUrl: server.url }).health()).data?.status, 'ok');
  } finally {
    await server.close();
  }
});

test.run();
