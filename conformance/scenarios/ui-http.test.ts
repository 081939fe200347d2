/**
 * The local UI's JSON API over HTTP: login, session and CSRF rules (401, 403, 429), the durability routes on SQLite
 * and Postgres (executions 404, pending interrupts with `limit`, overview counts, resume with an atomic claim: 409 for
 * the loser, 503 without a runner), the trace routes (list, search, status, favorites, one trace, export, 404), and
 * the `agentkit ui` command (refused bind, unresolvable --agent skipped, reset-password).
 */
import * as assert from 'uvu/assert';
import http from 'node:http';
import { stat, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { conformance, checkpointerFor, startCounterServer, startCli, backendConfig, type ScenarioContext, runTsFile } from '../harness/index.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { contentTeam, newProbe, planner } from '../fixtures/multi-agent/team.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { newAuthFile, readAuthFile, verifyPassword } from '../../src/ui/auth-file.js';
import { LoginThrottle } from '../../src/ui/throttle.js';
import type { UiAuth } from '../../src/ui/guard.js';
import { Browser } from '../harness/ui-client.js';

const area = conformance('local UI over HTTP');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The variant's local store (traces always live in SQLite). */
function localDb(t: ScenarioContext): string {
  return t.backend.kind === 'sqlite' ? t.backend.dbPath : path.join(t.cwd, '.agentkit', 'local.db');
}

interface UiSetup {
  url: string;
  checkpointer: Checkpointer;
}

async function serveUi(
  t: ScenarioContext,
  options: { auth?: UiAuth; runners?: unknown[]; checkpointer?: Checkpointer; throttle?: LoginThrottle } = {},
): Promise<UiSetup> {
  const checkpointer = options.checkpointer ?? (t.backend.kind === 'none' ? new SQLiteCheckpointer(localDb(t)) : checkpointerFor(t.backend));
  t.defer(() => checkpointer.close());
  const auth = options.auth ?? { mode: 'password', file: await newAuthFile('admin', 'correct horse') };
  const app = createUiApp({
    checkpointer,
    traceStore: new TraceStore({ dbPath: localDb(t) }),
    auth,
    runners: options.runners ?? [],
    ...(options.throttle ? { throttle: options.throttle } : {}),
  });
  const server = await t.serve(app);
  return { url: server.url, checkpointer };
}

area.scenario(
  'login, session and CSRF: 401 without a session, 403 without the token, logout signs out',
  { rows: ['cli:ui'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const { url } = await serveUi(t);
    const anonymous = new Browser(url);
    const status = await anonymous.get('/api/auth/status');
    assert.is(status.status, 200);
    assert.equal(status.json(), { authenticated: false, username: null, role: null, no_auth: false });
    assert.ok(anonymous.cookies.get('agentkit_csrf')?.match(/^[0-9a-f]{64}$/), 'status hands out the CSRF cookie');

    for (const route of ['/api/overview', '/api/traces', '/api/pending-interrupts', '/api/executions/x', '/api/nope']) {
      const denied = await anonymous.get(route);
      assert.is(denied.status, 401, `${route}: ${denied.text}`);
      assert.is(denied.json().code, 'not_authenticated');
    }

    const wrong = await anonymous.login('admin', 'wrong password');
    assert.is(wrong.status, 401);
    assert.equal(wrong.json(), { detail: 'Invalid username or password.', code: 'invalid_credentials' });
    const unknownField = await anonymous.request('POST', '/api/auth/login', { username: 'admin', password: 'x', extra: 1 });
    assert.is(unknownField.status, 400);
    assert.is(unknownField.json().code, 'validation_failed');

    const browser = new Browser(url);
    const login = await browser.login();
    assert.is(login.status, 200, login.text);
    assert.equal(login.json(), { status: 'ok', username: 'admin' });
    const setCookies = login.headers.getSetCookie();
    const session = setCookies.find((c) => c.startsWith('agentkit_session='))!;
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Strict/);
    assert.not.match(setCookies.find((c) => c.startsWith('agentkit_csrf='))!, /HttpOnly/);
    assert.equal((await browser.get('/api/auth/status')).json(), { authenticated: true, username: 'admin', role: 'admin', no_auth: false });

    const overview = await browser.get('/api/overview');
    assert.is(overview.status, 200, overview.text);
    assert.is(overview.headers.get('cache-control'), 'no-store');
    assert.match(overview.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.is(overview.headers.get('x-content-type-options'), 'nosniff');

    // Writes need the CSRF header echoing the cookie.
    const noToken = await browser.request('POST', '/api/executions/x/resume', { approved: true }, { csrf: false });
    assert.is(noToken.status, 403);
    assert.is(noToken.json().code, 'csrf_failed');
    const badToken = await browser.request('PUT', '/api/traces/t/favorite', { favorite: true }, { csrf: 'f'.repeat(64) });
    assert.is(badToken.status, 403);
    // Case-sensitive: a differently cased path is no route.
    for (const route of ['/api/Overview', '/API/overview', '/api/overview/']) {
      const none = await browser.get(route);
      assert.is(none.status, 404, route);
      assert.is(none.json().code, 'not_found');
    }

    // DNS rebinding: a request addressed to another name is refused before anything else.
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const target = new URL(url);
      const req = http.request({ host: target.hostname, port: target.port, path: '/api/auth/status', headers: { host: 'evil.example:80' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.is(rebound.status, 421);
    assert.match(rebound.body, /not a loopback name/);

    const logout = await browser.request('POST', '/api/auth/logout');
    assert.is(logout.status, 200, logout.text);
    assert.is((await browser.get('/api/overview')).status, 401);
  },
);

area.scenario(
  'login throttling: 429 with Retry-After after repeated failures, even with the right password',
  { rows: ['cli:ui'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    let now = 1_000_000;
    const { url } = await serveUi(t, { throttle: new LoginThrottle({ now: () => now }) });
    const browser = new Browser(url);
    for (let i = 0; i < 5; i++) assert.is((await browser.login('admin', `guess ${i}`)).status, 401);
    const blocked = await browser.login();
    assert.is(blocked.status, 429, blocked.text);
    assert.is(blocked.headers.get('retry-after'), '60');
    assert.is(blocked.json().code, 'too_many_attempts');
    now += 61_000;
    assert.is((await browser.login()).status, 200);
  },
);

area.scenario(
  '--no-auth: every route open, writes still need the CSRF token; login is refused',
  { rows: ['cli:ui'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const { url } = await serveUi(t, { auth: { mode: 'none' } });
    const browser = new Browser(url);
    assert.equal((await browser.get('/api/auth/status')).json(), { authenticated: true, username: null, role: null, no_auth: true });
    assert.is((await browser.get('/api/overview')).status, 200);
    assert.is((await browser.request('PUT', '/api/traces/nope/favorite', { favorite: true }, { csrf: false })).status, 403);
    const unknown = await browser.request('PUT', '/api/traces/nope/favorite', { favorite: true });
    assert.is(unknown.status, 404);
    assert.is(unknown.json().code, 'trace_not_found');
    assert.is((await browser.login()).status, 401);
  },
);

area.scenario(
  'executions, pending interrupts and overview; two approvers race: one 200, one 409, the node after the pause ran once',
  {
    rows: [
      'route:GET /api/executions/{execution_id}',
      'route:GET /api/pending-interrupts',
      'route:POST /api/executions/{execution_id}/resume',
      'route:GET /api/overview',
      'error:already-resumed',
    ],
    surfaces: ['http'],
  },
  async (t) => {
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const chain = approvalChain(store, { counterUrl: counter.url });
    const first = await chain.run();
    const second = await chain.run();
    assert.is(first.status, 'paused');
    const { url } = await serveUi(t, { runners: [chain] });
    const alice = new Browser(url);
    const bob = new Browser(url);
    await alice.login();
    await bob.login();

    const pending = (await alice.get('/api/pending-interrupts')).json();
    assert.is(pending.count, 2);
    assert.equal(
      pending.items.map((row: { execution_id: string }) => row.execution_id),
      [second.execution_id, first.execution_id],
    );
    assert.is(pending.items[0].reason, 'manager_approval');
    assert.equal(pending.items[0].context, { amount: 50000, policy: 'high-value' });
    assert.is((await alice.get('/api/pending-interrupts?limit=1')).json().count, 1);
    assert.is((await alice.get('/api/pending-interrupts?limit=0')).status, 400);

    const overview = (await alice.get('/api/overview')).json();
    assert.is(overview.pending_approvals_count, 2);
    assert.is(overview.failed_executions_count, 2, 'interrupted executions count as failed or interrupted');

    const history = (await alice.get(`/api/executions/${first.execution_id}`)).json();
    assert.is(history.state, 'paused');
    assert.is(history.chain_name, 'refund');
    assert.is(history.pending_interrupt.reason, 'manager_approval');
    // The full history, the exactly-once start row included.
    assert.equal(
      history.checkpoints.map((c: { node_id: string }) => c.node_id),
      ['__run_start__', 'seed', 'approval'],
    );
    assert.is(history.checkpoints[0].step_type, 'run_start');
    const missing = await alice.get('/api/executions/no-such-execution');
    assert.is(missing.status, 404);
    assert.is(missing.json().code, 'execution_not_found');

    const [a, b] = await Promise.all([
      alice.request('POST', `/api/executions/${first.execution_id}/resume`, { approved: true, metadata: { approver: 'alice' }, reason: 'ok by me' }),
      bob.request('POST', `/api/executions/${first.execution_id}/resume`, { approved: false, metadata: { approver: 'bob' } }),
    ]);
    const statuses = [a.status, b.status].sort();
    assert.equal(statuses, [200, 409], `${a.text} / ${b.text}`);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    // The loser either finds the decision already applied or the execution claimed by the winner right now.
    assert.ok(['already_resumed', 'execution_busy'].includes(loser.json().code as string), loser.text);
    assert.is(winner.json().result.status, 'completed');
    assert.is(winner.json().execution_id, first.execution_id);
    assert.is(counter.count('/finalize'), 1, 'the node after the pause ran once');

    const again = await alice.request('POST', `/api/executions/${first.execution_id}/resume`, { approved: true });
    assert.is(again.status, 409);
    const done = (await alice.get(`/api/executions/${first.execution_id}`)).json();
    assert.is(done.state, 'completed');
    assert.is(done.pending_interrupt, null);
    const after = (await alice.get('/api/overview')).json();
    assert.is(after.pending_approvals_count, 1);
    assert.is(after.failed_executions_count, 1);
    const unknownField = await alice.request('POST', `/api/executions/${second.execution_id}/resume`, { approved: true, runner: 'x.ts:y' });
    assert.is(unknownField.status, 400, 'no route accepts a runner from the body');
  },
);

area.scenario(
  'resume with no runner registered for the execution: 503',
  { rows: ['error:no-runner', 'route:POST /api/executions/{execution_id}/resume'], surfaces: ['http'] },
  async (t) => {
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const paused = await approvalChain(store).run({ amount: 5 });
    const { url } = await serveUi(t, { runners: [weatherAgent({ trace: false })] });
    const browser = new Browser(url);
    await browser.login();
    const response = await browser.request('POST', `/api/executions/${paused.execution_id}/resume`, { approved: true });
    assert.is(response.status, 503, response.text);
    assert.is(response.json().code, 'no_runner');
    assert.match(response.json().detail, /chain 'refund'/);
    assert.is((await browser.get('/api/pending-interrupts')).json().count, 1, 'nothing was claimed');
  },
);

area.scenario(
  'traces: list with window, search, status and favorites; one trace; export; 404',
  { rows: ['cli:ui'], backends: ['sqlite'], surfaces: ['http'] },
  async (t) => {
    const agent = weatherAgent({ traceDb: localDb(t) });
    const oslo = await agent.run('What is the weather in Oslo?');
    await agent.run('hello there');
    await agent.run('explode').catch(() => undefined);
    const { url } = await serveUi(t);
    const browser = new Browser(url);
    await browser.login();

    const list = (await browser.get('/api/traces')).json();
    assert.is(list.count, 3);
    assert.ok(list.items.every((item: { favorite: boolean }) => item.favorite === false));
    const search = (await browser.get('/api/traces?q=oslo')).json();
    assert.equal(
      search.items.map((i: { trace_id: string }) => i.trace_id),
      [oslo.trace_id],
    );
    const failed = (await browser.get('/api/traces?status=ERROR')).json();
    assert.is(failed.count, 1);
    assert.is((await browser.get('/api/traces?last_hours=abc')).status, 400);

    const fav = await browser.request('PUT', `/api/traces/${oslo.trace_id}/favorite`, { favorite: true });
    assert.equal(fav.json(), { trace_id: oslo.trace_id, favorite: true });
    assert.equal((await browser.get(`/api/traces/${oslo.trace_id}/favorite`)).json(), { trace_id: oslo.trace_id, favorite: true });
    const favorites = (await browser.get('/api/traces?favorites=true')).json();
    assert.equal(
      favorites.items.map((i: { trace_id: string }) => i.trace_id),
      [oslo.trace_id],
    );
    assert.is((await browser.request('PUT', `/api/traces/${oslo.trace_id}/favorite`, { favorite: false })).json().favorite, false);
    assert.is((await browser.get('/api/traces?favorites=true')).json().count, 0);

    const trace = (await browser.get(`/api/traces/${oslo.trace_id}`)).json();
    assert.is(trace.trace_id, oslo.trace_id);
    assert.ok(trace.spans.length >= 3, 'agent, llm and tool spans');
    const exported = (await browser.get(`/api/traces/${oslo.trace_id}/export`)).json();
    const cli = await t.cli(['export-trace', '--trace-id', oslo.trace_id!, '--output', 'trace.json']);
    assert.is(cli.code, 0, cli.stderr);
    const file = JSON.parse(await readFile(path.join(t.cwd, 'trace.json'), 'utf8')) as Record<string, unknown>;
    assert.equal({ ...exported, exported_at: null }, { ...file, exported_at: null }, 'the same document as export-trace');
    const missing = await browser.get('/api/traces/0123456789abcdef0123456789abcdef');
    assert.is(missing.status, 404);
    assert.is(missing.json().code, 'trace_not_found');
  },
);

area.scenario(
  'replay: a stored trace as steps, in start-time order; 404 for an unknown trace; 401 without a session',
  { rows: ['cli:ui'], backends: ['sqlite'], surfaces: ['http'] },
  async (t) => {
    const agent = weatherAgent({ traceDb: localDb(t) });
    const oslo = await agent.run('What is the weather in Oslo?');
    const { url } = await serveUi(t);
    const browser = new Browser(url);
    assert.is((await browser.get(`/api/replay/${oslo.trace_id}`)).status, 401);
    await browser.login();
    const view = await browser.get(`/api/replay/${oslo.trace_id}`);
    assert.is(view.status, 200, view.text);
    const body = view.json();
    const trace = (await browser.get(`/api/traces/${oslo.trace_id}`)).json();
    assert.is(body.trace_id, oslo.trace_id);
    assert.is(body.span_count, trace.spans.length);
    assert.is(body.steps.length, trace.spans.length, 'one step per span');
    assert.equal(
      body.steps.map((step: { step: number }) => step.step),
      body.steps.map((_: unknown, i: number) => i),
    );
    const times = body.steps.map((step: { timestamp: string }) => step.timestamp);
    assert.equal(times, [...times].sort(), 'start-time order');
    assert.ok(
      body.steps.some((step: { span_name: string }) => /get_weather|tool/.test(step.span_name)),
      JSON.stringify(body.steps.map((s: { span_name: string }) => s.span_name)),
    );
    const missing = await browser.get('/api/replay/0123456789abcdef0123456789abcdef');
    assert.is(missing.status, 404);
    assert.is(missing.json().code, 'trace_not_found');
  },
);

area.scenario(
  'agentkit ui: a non-loopback bind without --insecure-bind is refused with exit 2',
  { rows: ['error:ui-bind', 'cli:ui'], backends: 'none', surfaces: ['cli'] },
  async (t) => {
    const run = await t.cli(['ui', '--host', '0.0.0.0', '--no-auth', '--no-open']);
    assert.is(run.code, 2);
    assert.match(run.stderr, /refusing to bind the UI to non-loopback address '0\.0\.0\.0'.*--insecure-bind/);
    assert.is(run.stderr.trim().split('\n').length, 1);
  },
);

area.scenario(
  'agentkit ui: an unresolvable --agent is reported and skipped, the UI starts and resumes through the good one',
  { rows: ['error:ui-agent-unresolvable', 'cli:ui'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const config = backendConfig(t.backend);
    const runnerFile = path.join(t.cwd, 'runners.mts');
    const fixtures = pathToFileURL(path.join(root, 'conformance/fixtures/durability/chains.ts')).href;
    await writeFile(runnerFile, `import { approvalRunner } from '${fixtures}';\nexport const refund = approvalRunner(${JSON.stringify(config)});\n`);
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const paused = await approvalChain(store).run({ amount: 42 });
    await t.cli(['ui', 'reset-password', '--password-stdin'], { stdin: 'correct horse\n' });
    const storeFlags = t.backend.kind === 'postgres' ? ['--connection-string', t.backend.url, '--schema', t.backend.schema] : ['--db', localDb(t)];
    const ui = startCli(['ui', '--port', '0', '--no-open', '--agent', 'missing.ts:nothing', '--agent', 'runners.mts:refund', ...storeFlags], {
      cwd: t.cwd,
      env: t.env,
    });
    t.defer(() => ui.kill());
    const [, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)/, 30_000);
    assert.match(ui.stderr(), /skipped --agent missing\.ts:nothing: /);
    assert.match(ui.stderr(), /registered chain 'refund' from runners\.mts:refund/);
    const browser = new Browser(url!);
    assert.is((await browser.login()).status, 200);
    const resumed = await browser.request('POST', `/api/executions/${paused.execution_id}/resume`, { approved: true, metadata: { approver: 'cli' } });
    assert.is(resumed.status, 200, resumed.text);
    assert.is(resumed.json().result.status, 'completed');
    const page = await fetch(`${url}/approvals`, { headers: { accept: 'text/html' } });
    assert.is(page.status, 200);
    assert.match(await page.text(), /<div id="root">/);
    const unknownApi = await fetch(`${url}/api/nope`, { headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    assert.is(unknownApi.status, 404, 'the web app never answers /api/*');
    ui.child.kill('SIGTERM');
    const exit = await ui.exited;
    assert.is(exit.code, 0, ui.stderr());
    assert.match(ui.stderr(), /stopped/);
  },
);

area.scenario(
  'agentkit ui reset-password: a 0600 auth file with a scrypt hash, never the password',
  { rows: ['cli:ui reset-password'], backends: 'none', surfaces: ['cli'] },
  async (t) => {
    const file = path.join(t.cwd, 'secrets', 'auth.json');
    const first = await t.cli(['ui', 'reset-password', '--auth-file', file, '--username', 'ops', '--password-stdin'], { stdin: 'correct horse battery\n' });
    assert.is(first.code, 0, first.stderr);
    assert.match(first.stdout, /wrote .*auth\.json for user 'ops'/);
    assert.is((await stat(file)).mode & 0o777, 0o600);
    const text = await readFile(file, 'utf8');
    assert.not.match(text, /correct horse/);
    const content = (await readAuthFile(file))!;
    assert.equal(
      content.users.map((u) => [u.username, u.role]),
      [['ops', 'admin']],
    );
    const hash = content.users[0]!.password_hash;
    assert.match(hash, /^scrypt\$16384\$8\$1\$/);
    assert.ok(await verifyPassword('correct horse battery', hash));
    assert.not.ok(await verifyPassword('correct horse', hash));

    const again = await t.cli(['ui', 'reset-password', '--auth-file', file, '--password-stdin'], { stdin: 'another password\n' });
    assert.is(again.code, 0, again.stderr);
    const next = (await readAuthFile(file))!;
    assert.is(next.users[0]!.username, 'ops', 'the only user is the default');
    assert.is(next.users[0]!.generation, content.users[0]!.generation + 1, "a new generation signs the user's old sessions out");
    assert.ok(await verifyPassword('another password', next.users[0]!.password_hash));

    const short = await t.cli(['ui', 'reset-password', '--auth-file', file, '--password-stdin'], { stdin: 'short\n' });
    assert.is(short.code, 2);
    assert.match(short.stderr, /at least 8 characters/);
    const noTty = await t.cli(['ui', '--auth-file', path.join(t.cwd, 'none.json'), '--no-open', '--port', '0']);
    assert.is(noTty.code, 2);
    assert.match(noTty.stderr, /no credentials at .*none\.json: create them with `agentkit ui reset-password --password-stdin`/);
  },
);

area.scenario(
  'a paused Swarm and a paused Supervisor resume through their own runner, found by the root of the agent path',
  { rows: ['route:POST /api/executions/{execution_id}/resume', 'route:GET /api/executions/{execution_id}'], surfaces: ['http'], timeoutMs: 40_000 },
  async (t) => {
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const team = contentTeam(newProbe(), { checkpointer: store, analystTool: 'interrupt_analyze' });
    const boss = planner(newProbe(), { checkpointer: store, workerBTool: 'interrupt_step' });
    const swarmRun = await team.run('Write the Q3 report', { executionId: 'ui-swarm' });
    const supervisorRun = await boss.run('Plan the figures', { executionId: 'ui-supervisor' });
    assert.is(swarmRun.status, 'paused');
    assert.is(supervisorRun.status, 'paused');
    const { url } = await serveUi(t, { runners: [team, boss] });
    const browser = new Browser(url);
    await browser.login();
    const pending = (await browser.get('/api/pending-interrupts')).json();
    const swarmRow = pending.items.find((p: { execution_id: string }) => p.execution_id === 'ui-swarm');
    assert.is(swarmRow.chain_name, 'analyst', 'the latest row names the inner agent');
    const history = (await browser.get('/api/executions/ui-swarm')).json();
    assert.is(history.chain_name, 'content_team', 'the owner is the swarm');
    assert.is(history.state, 'paused');
    const swarmResumed = await browser.request('POST', '/api/executions/ui-swarm/resume', { approved: true, metadata: { approver: 'alice' } });
    assert.is(swarmResumed.status, 200, swarmResumed.text);
    assert.is(swarmResumed.json().chain_name, 'content_team');
    assert.is(swarmResumed.json().result.status, 'completed');
    assert.is(swarmResumed.json().result.output, 'Report complete.');
    const supervisorResumed = await browser.request('POST', '/api/executions/ui-supervisor/resume', { approved: true, metadata: { approver: 'bob' } });
    assert.is(supervisorResumed.status, 200, supervisorResumed.text);
    assert.is(supervisorResumed.json().result.status, 'completed');
    assert.is((await browser.get('/api/pending-interrupts')).json().count, 0);
  },
);

area.scenario(
  'docs/ui.md example: pause the refund chain, reset the password, approve it through the UI',
  { rows: ['cli:ui', 'cli:ui reset-password', 'route:POST /api/executions/{execution_id}/resume'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const example = path.join(root, 'examples/durability/refund-chain.ts');
    const paused = await runTsFile([example, 'refund order A-7 for $5,000'], { cwd: t.cwd, env: { ...process.env, ...t.env } });
    assert.is(paused.code, 0, paused.stderr);
    const executionId = /execution_id: (\S+)/.exec(paused.stdout)![1]!;
    const reset = await t.bin(['ui', 'reset-password', '--username', 'alice', '--password-stdin'], { stdin: 'a long passphrase\n' });
    assert.is(reset.code, 0, reset.stderr);
    const bob = await t.bin(['ui', 'users', 'add', 'bob', '--role', 'approver', '--password-stdin'], { stdin: 'another passphrase\n' });
    assert.is(bob.code, 0, bob.stderr);
    const ui = startCli(['ui', '--port', '0', '--no-open', '--agent', `${example}:refundChain`], { cwd: t.cwd, env: t.env });
    t.defer(() => ui.kill());
    const [, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)/, 30_000);
    const browser = new Browser(url!);
    assert.is((await browser.login('alice', 'a long passphrase')).status, 200);
    const pending = (await browser.get('/api/pending-interrupts')).json();
    assert.equal(
      pending.items.map((p: { execution_id: string }) => p.execution_id),
      [executionId],
    );
    const resumed = await browser.request('POST', `/api/executions/${executionId}/resume`, { approved: true, reason: 'within policy' });
    assert.is(resumed.status, 200, resumed.text);
    assert.is(resumed.json().result.output, 'refunded $5000 on order A-7 (approved by alice)');
    assert.is((await browser.get('/api/pending-interrupts')).json().count, 0);
    const [decision] = (await browser.get('/api/decisions')).json().items;
    assert.equal([decision.decided_by, decision.reason], [{ principal: 'alice', surface: 'ui' }, 'within policy']);
    const inspected = await t.bin(['inspect', executionId]);
    assert.match(inspected.stdout, /^Decision: {2}manager_approval: approved by alice \(ui\) at \S+, reason "within policy"$/m);
    ui.child.kill('SIGTERM');
    assert.is((await ui.exited).code, 0, ui.stderr());
  },
);

area.run();
