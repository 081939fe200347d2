/**
 * The local UI's replay routes over HTTP: fork a stored trace at a step (201; 400 out of range; 404 unknown trace),
 * modify it (prompt, input, tool response, LLM params; 422 for state; 404 unknown fork), rerun it with its spans
 * streaming over SSE while the agent still runs (503 without a runner, 422 when the agent cannot be rebuilt), compare
 * (409 before a rerun), and save it as a test (appended to ./.agentkit/regression_tests.jsonl of the UI's project
 * directory, never a path from the request). 401 without a session and 403 without the CSRF token on every route.
 */
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'agentkit';
import { FunctionModel } from 'agentkit/testing';
import { checkpointerFor, conformance, startCli, type ScenarioContext, runTsFile } from '../harness/index.js';
import { forecaster, Gate } from '../fixtures/ui/forecaster.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { newAuthFile } from '../../src/ui/auth-file.js';

const area = conformance('local UI replay over HTTP');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function localDb(t: ScenarioContext): string {
  return t.backend.kind === 'sqlite' ? t.backend.dbPath : path.join(t.cwd, '.agentkit', 'local.db');
}

class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly url: string) {}

  headers(body: boolean, csrf: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (csrf && this.cookies.has('agentkit_csrf')) headers['x-csrf-token'] = this.cookies.get('agentkit_csrf')!;
    return headers;
  }

  async request(method: string, route: string, body?: unknown, options: { csrf?: boolean } = {}) {
    const response = await fetch(`${this.url}${route}`, {
      method,
      headers: this.headers(body !== undefined, options.csrf ?? true),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      this.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, any> };
  }

  async login() {
    await this.request('GET', '/api/auth/status');
    const login = await this.request('POST', '/api/auth/login', { username: 'admin', password: 'correct horse' });
    assert.is(login.status, 200, login.text);
  }

  /** POST the rerun and read its events one at a time. */
  async rerun(forkId: string): Promise<{ status: number; type: string; next(): Promise<Record<string, any> | null>; text(): Promise<string> }> {
    const response = await fetch(`${this.url}/api/replay/forks/${forkId}/rerun`, { method: 'POST', headers: this.headers(false, true) });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      async next() {
        for (;;) {
          const end = buffer.indexOf('\n\n');
          if (end >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame
              .split('\n')
              .filter((l) => l.startsWith('data: '))
              .map((l) => l.slice(6))
              .join('\n');
            if (data) return JSON.parse(data) as Record<string, any>;
            continue;
          }
          const chunk = await reader.read();
          if (chunk.done) return null;
          buffer += decoder.decode(chunk.value, { stream: true });
        }
      },
      async text() {
        let all = buffer;
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) return all;
          all += decoder.decode(chunk.value, { stream: true });
        }
      },
    };
  }
}

async function setup(t: ScenarioContext, runners: unknown[]) {
  // Executions come from the variant's checkpointer (Postgres too); traces and forks' reruns live in the local store.
  const checkpointer = t.backend.kind === 'postgres' ? checkpointerFor(t.backend) : new SQLiteCheckpointer(localDb(t));
  t.defer(() => checkpointer.close());
  const app = createUiApp({
    checkpointer,
    traceStore: new TraceStore({ dbPath: localDb(t) }),
    auth: { mode: 'password', file: await newAuthFile('admin', 'correct horse') },
    runners,
    projectDir: t.cwd,
  });
  const server = await t.serve(app);
  const browser = new Browser(server.url);
  await browser.login();
  return browser;
}

area.scenario(
  'fork, modify, rerun with spans streaming while the agent runs, compare, save as test',
  {
    rows: [
      'route:POST /api/replay/{trace_id}/fork',
      'route:PATCH /api/replay/forks/{fork_id}',
      'route:POST /api/replay/forks/{fork_id}/rerun',
      'route:POST /api/replay/forks/{fork_id}/save-as-test',
    ],
    backends: ['sqlite', 'postgres'],
    surfaces: ['http'],
    timeoutMs: 40_000,
  },
  async (t) => {
    const gate = new Gate();
    const agent = forecaster(gate, localDb(t));
    const original = await agent.run('What is the weather in Oslo?');
    assert.is(original.output, 'It is 14 degrees in Oslo.');
    const browser = await setup(t, [agent]);

    const view = (await browser.request('GET', `/api/replay/${original.trace_id}`)).json();
    const toolStep = view.steps.findIndex((s: { span_name: string }) => s.span_name === 'tool.get_weather');
    assert.ok(toolStep > 0, JSON.stringify(view.steps.map((s: { span_name: string }) => s.span_name)));

    const created = await browser.request('POST', `/api/replay/${original.trace_id}/fork`, { step: toolStep });
    assert.is(created.status, 201, created.text);
    const fork = created.json();
    assert.match(fork.fork_id, /^[0-9a-f-]{36}$/);
    assert.equal(
      { ...fork, fork_id: null },
      {
        fork_id: null,
        trace_id: original.trace_id,
        step: toolStep,
        modifications: { prompt: null, input: null, tool_responses: [], llm_params: null, mode: 'recorded', allow_side_effects: false },
        rerun: null,
      },
    );
    assert.equal((await browser.request('GET', `/api/replay/forks/${fork.fork_id}`)).json(), fork);

    // Compare and save need a rerun (or an explicit expected output).
    const early = await browser.request('GET', `/api/replay/forks/${fork.fork_id}/compare`);
    assert.is(early.status, 409, early.text);
    assert.is(early.json().code, 'fork_not_rerun');
    const earlySave = await browser.request('POST', `/api/replay/forks/${fork.fork_id}/save-as-test`, {});
    assert.is(earlySave.status, 409);
    assert.is(earlySave.json().code, 'fork_not_rerun');

    // Modifications: each field replaces the stored one; a tool response per tool name; LLM params merge.
    let patched = await browser.request('PATCH', `/api/replay/forks/${fork.fork_id}`, {
      input: 'What is the weather in Bergen?',
      llm_params: { temperature: 0.2 },
    });
    assert.is(patched.status, 200, patched.text);
    patched = await browser.request('PATCH', `/api/replay/forks/${fork.fork_id}`, {
      tool_response: { tool_name: 'other_tool', response: 'x' },
      llm_params: { seed: 7 },
    });
    assert.equal(patched.json().modifications, {
      prompt: null,
      input: 'What is the weather in Bergen?',
      tool_responses: [{ tool_name: 'other_tool', response: 'x' }],
      llm_params: { temperature: 0.2, seed: 7 },
      mode: 'recorded',
      allow_side_effects: false,
    });
    patched = await browser.request('PATCH', `/api/replay/forks/${fork.fork_id}`, {
      prompt: 'Be brief.',
      tool_response: { tool_name: 'other_tool', response: { ok: true } },
    });
    assert.equal(patched.json().modifications.tool_responses, [{ tool_name: 'other_tool', response: { ok: true } }]);
    assert.is(patched.json().modifications.prompt, 'Be brief.');
    const state = await browser.request('PATCH', `/api/replay/forks/${fork.fork_id}`, { state: { x: 1 } });
    assert.is(state.status, 422, state.text);
    assert.is(state.json().code, 'not_implemented');
    assert.match(state.json().detail, /not supported by replay/);
    const unknownField = await browser.request('PATCH', `/api/replay/forks/${fork.fork_id}`, { agent: 'x.ts:y' });
    assert.is(unknownField.status, 400, 'no route accepts code to run from the body');

    // Rerun with the tool held: the spans that ended already arrive while the agent is still running.
    gate.close();
    const stream = await browser.rerun(fork.fork_id);
    assert.is(stream.status, 200);
    assert.match(stream.type, /^text\/event-stream/);
    const first = await stream.next();
    assert.is(first?.type, 'span', JSON.stringify(first));
    assert.ok(first!.step.span_name.startsWith('llm.') || first!.step.span_name.startsWith('guardrail.'), first!.step.span_name);
    const seen = [first!.step.span_name as string];
    gate.opened();
    let done: Record<string, any> | null = null;
    for (let event = await stream.next(); event; event = await stream.next()) {
      if (event.type === 'span') seen.push(event.step.span_name);
      else done = event;
    }
    assert.is(done?.type, 'done', JSON.stringify(done));
    assert.is(done!.result.new_output, 'It is 16 degrees in Bergen.');
    assert.equal([done!.status, done!.pending_interrupt], ['completed', null]);
    assert.is(done!.result.original_output, 'It is 14 degrees in Oslo.');
    assert.ok(seen.includes('tool.get_weather') && seen.includes('agent.forecaster'), seen.join(', '));
    assert.is(seen.length, done!.result.steps_executed, 'every span of the rerun streamed once');
    assert.is.not(done!.result.trace_id, original.trace_id);
    const at = done!.comparison.diverged_at as number;
    assert.ok(Number.isInteger(at), 'the input changed: the runs diverge');
    const [before, after] = [done!.comparison.original_steps[at], done!.comparison.new_steps[at]];
    assert.ok(before.span_name !== after.span_name || JSON.stringify(before.output) !== JSON.stringify(after.output), 'the divergence step differs');

    const compared = await browser.request('GET', `/api/replay/forks/${fork.fork_id}/compare`);
    assert.is(compared.status, 200, compared.text);
    assert.equal(compared.json(), done!.comparison);
    assert.is((await browser.request('GET', `/api/replay/forks/${fork.fork_id}`)).json().rerun.trace_id, done!.result.trace_id);

    // Save as test: the fixed file under the project directory, whatever the body says.
    const saved = await browser.request('POST', `/api/replay/forks/${fork.fork_id}/save-as-test`, {});
    assert.is(saved.status, 200, saved.text);
    const file = path.join(t.cwd, '.agentkit', 'regression_tests.jsonl');
    assert.is(saved.json().path, file);
    assert.equal(
      { ...saved.json().record, created_at: null },
      { input: 'What is the weather in Bergen?', expected_output: 'It is 16 degrees in Bergen.', trace_id: original.trace_id, created_at: null },
    );
    const explicit = await browser.request('POST', `/api/replay/forks/${fork.fork_id}/save-as-test`, { input: 'weather in Oslo', expected_output: 'cold' });
    assert.is(explicit.status, 200);
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines, [saved.json().record, explicit.json().record]);
    const pathField = await browser.request('POST', `/api/replay/forks/${fork.fork_id}/save-as-test`, { path: '/tmp/evil.jsonl' });
    assert.is(pathField.status, 400, 'the file is never taken from the request');
  },
);

area.scenario(
  'replay route errors: 404 unknown trace or fork, 400 step out of range, 503 without a runner, 422 when the agent cannot be rebuilt',
  { rows: ['error:no-runner', 'error:modify-state'], backends: ['sqlite'], surfaces: ['http'] },
  async (t) => {
    const gate = new Gate();
    const agent = forecaster(gate, localDb(t));
    const original = await agent.run('What is the weather in Oslo?');
    const browser = await setup(t, []);

    const unknownTrace = await browser.request('POST', '/api/replay/0123456789abcdef0123456789abcdef/fork', { step: 0 });
    assert.is(unknownTrace.status, 404);
    assert.is(unknownTrace.json().code, 'trace_not_found');
    const outOfRange = await browser.request('POST', `/api/replay/${original.trace_id}/fork`, { step: 99 });
    assert.is(outOfRange.status, 400, outOfRange.text);
    assert.is(outOfRange.json().code, 'replay_error');
    assert.match(outOfRange.json().detail, /^Step 99 out of range \(0-\d+\)$/);
    assert.is((await browser.request('POST', `/api/replay/${original.trace_id}/fork`, { step: 'one' })).status, 400);

    for (const [method, route, body] of [
      ['GET', '/api/replay/forks/nope', undefined],
      ['PATCH', '/api/replay/forks/nope', { prompt: 'x' }],
      ['POST', '/api/replay/forks/nope/rerun', undefined],
      ['GET', '/api/replay/forks/nope/compare', undefined],
      ['POST', '/api/replay/forks/nope/save-as-test', {}],
    ] as const) {
      const response = await browser.request(method, route, body);
      assert.is(response.status, 404, `${method} ${route}: ${response.text}`);
      assert.is(response.json().code, 'fork_not_found');
    }

    const fork = (await browser.request('POST', `/api/replay/${original.trace_id}/fork`, { step: 0 })).json();
    const noRunner = await browser.request('POST', `/api/replay/forks/${fork.fork_id}/rerun`);
    assert.is(noRunner.status, 503, noRunner.text);
    assert.is(noRunner.json().code, 'no_runner');
    assert.match(noRunner.json().detail, /agent 'forecaster'.*--agent/);

    // A registered agent of that name whose tool is gone and unanswered: the rerun cannot rebuild it (422).
    const stripped = new Agent({ name: 'forecaster', systemPrompt: 'x', llm: new FunctionModel(() => 'x') });
    const other = await setup(t, [stripped]);
    const fork2 = (await other.request('POST', `/api/replay/${original.trace_id}/fork`, { step: 0 })).json();
    await other.request('PATCH', `/api/replay/forks/${fork2.fork_id}`, { input: 'What is the weather in Paris?' });
    const broken = await other.request('POST', `/api/replay/forks/${fork2.fork_id}/rerun`);
    assert.is(broken.status, 422, broken.text);
    assert.is(broken.json().code, 'reconstruction_failed');
    assert.match(broken.json().detail, /tool 'get_weather' cannot be rebound/);

    // A rerun stopped before its first turn by an input guardrail: the stream's error event, nothing half-saved.
    const weather = weatherAgent({ traceDb: localDb(t) });
    const sunny = await weather.run('What is the weather in Oslo?');
    const guarded = await setup(t, [weather]);
    const fork3 = (await guarded.request('POST', `/api/replay/${sunny.trace_id}/fork`, { step: 0 })).json();
    await guarded.request('PATCH', `/api/replay/forks/${fork3.fork_id}`, { input: 'a forbidden question' });
    const stream = await guarded.rerun(fork3.fork_id);
    assert.is(stream.status, 200);
    const events: Array<Record<string, any>> = [];
    for (let event = await stream.next(); event; event = await stream.next()) events.push(event);
    const last = events.at(-1)!;
    assert.is(last.type, 'error', JSON.stringify(events));
    assert.is(last.code, 'guardrail_blocked');
    assert.match(last.detail, /forbidden/);
    const notRerun = await guarded.request('GET', `/api/replay/forks/${fork3.fork_id}/compare`);
    assert.is(notRerun.status, 409, 'a failed rerun leaves the fork without a rerun');
  },
);

area.scenario(
  'replay routes need a session (401) and writes need the CSRF token (403)',
  { rows: ['route:POST /api/replay/{trace_id}/fork'], backends: ['sqlite', 'postgres'], surfaces: ['http'] },
  async (t) => {
    const agent = forecaster(new Gate(), localDb(t));
    const original = await agent.run('What is the weather in Oslo?');
    const browser = await setup(t, [agent]);
    const fork = (await browser.request('POST', `/api/replay/${original.trace_id}/fork`, { step: 0 })).json();
    const anonymous = new Browser(browser.url);
    await anonymous.request('GET', '/api/auth/status');
    const routes = [
      ['POST', `/api/replay/${original.trace_id}/fork`, { step: 0 }],
      ['GET', `/api/replay/forks/${fork.fork_id}`, undefined],
      ['PATCH', `/api/replay/forks/${fork.fork_id}`, { prompt: 'x' }],
      ['POST', `/api/replay/forks/${fork.fork_id}/rerun`, undefined],
      ['GET', `/api/replay/forks/${fork.fork_id}/compare`, undefined],
      ['POST', `/api/replay/forks/${fork.fork_id}/save-as-test`, {}],
    ] as const;
    for (const [method, route, body] of routes) {
      const response = await anonymous.request(method, route, body);
      assert.is(response.status, 401, `${method} ${route}: ${response.text}`);
      assert.is(response.json().code, 'not_authenticated');
      if (method === 'GET') continue;
      const noToken = await browser.request(method, route, body, { csrf: false });
      assert.is(noToken.status, 403, `${method} ${route}: ${noToken.text}`);
      assert.is(noToken.json().code, 'csrf_failed');
    }
    assert.equal((await browser.request('GET', `/api/replay/forks/${fork.fork_id}`)).json().modifications.prompt, null, 'nothing was changed');
  },
);

area.scenario(
  'docs/ui.md replay example: run the desk once, fork its trace in the UI, change the prompt, rerun, save as test',
  {
    rows: ['route:POST /api/replay/forks/{fork_id}/rerun', 'route:POST /api/replay/forks/{fork_id}/save-as-test'],
    backends: ['sqlite'],
    surfaces: ['cli'],
    timeoutMs: 60_000,
  },
  async (t) => {
    const example = path.join(root, 'examples/replay/ui-desk.ts');
    const once = await runTsFile([example], { cwd: t.cwd, env: { ...process.env, ...t.env } });
    assert.is(once.code, 0, once.stderr);
    assert.match(once.stdout, /^Order 42 is delivered\.\ntrace_id: [0-9a-f]{32}\n$/);
    const traceId = /trace_id: (\S+)/.exec(once.stdout)![1]!;
    const reset = await t.bin(['ui', 'reset-password', '--username', 'alice', '--password-stdin'], { stdin: 'a long passphrase\n' });
    assert.is(reset.code, 0, reset.stderr);
    const ui = startCli(['ui', '--port', '0', '--no-open', '--agent', `${example}:desk`], { cwd: t.cwd, env: t.env });
    t.defer(() => ui.kill());
    const [, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)/, 30_000);
    assert.match(ui.stderr(), /registered agent 'desk'/);
    const browser = new Browser(url!);
    await browser.request('GET', '/api/auth/status');
    assert.is((await browser.request('POST', '/api/auth/login', { username: 'alice', password: 'a long passphrase' })).status, 200);

    const fork = await browser.request('POST', `/api/replay/${traceId}/fork`, { step: 0 });
    assert.is(fork.status, 201, fork.text);
    const forkId = fork.json().fork_id as string;
    assert.is((await browser.request('PATCH', `/api/replay/forks/${forkId}`, { prompt: 'Be polite.' })).status, 200);
    const stream = await browser.rerun(forkId);
    assert.is(stream.status, 200);
    const events: Array<Record<string, any>> = [];
    for (let event = await stream.next(); event; event = await stream.next()) events.push(event);
    const done = events.at(-1)!;
    assert.is(done.type, 'done', JSON.stringify(done));
    assert.is(done.result.new_output, 'Certainly! Order 42 is delivered.');
    assert.is(done.result.original_output, 'Order 42 is delivered.');
    assert.is(events.filter((e) => e.type === 'span').length, done.result.steps_executed);
    const saved = await browser.request('POST', `/api/replay/forks/${forkId}/save-as-test`, {});
    assert.is(saved.status, 200, saved.text);
    const lines = (await readFile(path.join(t.cwd, '.agentkit', 'regression_tests.jsonl'), 'utf8')).trim().split('\n');
    assert.equal(
      { ...JSON.parse(lines[0]!), created_at: null },
      { input: 'Where is order 42?', expected_output: 'Certainly! Order 42 is delivered.', trace_id: traceId, created_at: null },
    );
    ui.child.kill('SIGTERM');
    assert.is((await ui.exited).code, 0, ui.stderr());
  },
);

area.run();
