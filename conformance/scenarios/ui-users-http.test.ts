/**
 * UI users and roles over HTTP (issue 50, docs/adr/0058), on SQLite and Postgres: decisions record the signed-in
 * user (never a name from the body; `anonymous` with --no-auth) where `inspect`, the execution route and the
 * approvals history read them; a viewer is refused every write (403 `forbidden`); removal, demotion and sign-out
 * everywhere end a session on the next request; login answers an unknown user and a wrong password alike (status,
 * body and time); throttling per user and per address; `ui users` refuses to remove or demote the last admin.
 */
import * as assert from 'uvu/assert';
import http from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkpointerFor, conformance, type ScenarioContext } from '../harness/index.js';
import { Browser } from '../harness/ui-client.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { storeFlags } from '../fixtures/durability/cli-variant.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { newAuthFile, readAuthFile, writeAuthFile } from '../../src/ui/auth-file.js';
import type { UiAuth } from '../../src/ui/guard.js';
import { LoginThrottle } from '../../src/ui/throttle.js';
import { addUser } from '../../src/ui/users.js';
import type { UiRole } from '../../src/ui/roles.js';

const area = conformance('local UI: users, roles, decisions by name, revocable sessions');
const PASSWORD = 'correct horse';

function localDb(t: ScenarioContext): string {
  return t.backend.kind === 'sqlite' ? t.backend.dbPath : path.join(t.cwd, '.agentkit', 'local.db');
}

/** An auth file on disk with `root` (admin) and the given users, all with PASSWORD. */
async function authFile(t: ScenarioContext, users: Array<[string, UiRole]>): Promise<string> {
  let content = await newAuthFile('root', PASSWORD);
  for (const [name, role] of users) content = await addUser(content, name, PASSWORD, role);
  const file = path.join(t.cwd, 'auth.json');
  await writeAuthFile(file, content);
  return file;
}

async function serveUi(
  t: ScenarioContext,
  options: { authPath?: string; noAuth?: boolean; runners?: unknown[]; checkpointer?: Checkpointer; throttle?: LoginThrottle } = {},
): Promise<string> {
  const checkpointer = options.checkpointer ?? (t.backend.kind === 'none' ? new SQLiteCheckpointer(localDb(t)) : checkpointerFor(t.backend));
  if (!options.checkpointer) t.defer(() => checkpointer.close());
  const auth: UiAuth = options.noAuth ? { mode: 'none' } : { mode: 'password', file: (await readAuthFile(options.authPath!))!, path: options.authPath! };
  const app = createUiApp({
    checkpointer,
    traceStore: new TraceStore({ dbPath: localDb(t) }),
    auth,
    runners: options.runners ?? [],
    projectDir: t.cwd,
    ...(options.throttle ? { throttle: options.throttle } : {}),
  });
  return (await t.serve(app)).url;
}

async function signedIn(url: string, username: string): Promise<Browser> {
  const browser = new Browser(url);
  const login = await browser.login(username, PASSWORD);
  assert.is(login.status, 200, login.text);
  return browser;
}

interface Decision {
  execution_id: string;
  decided_by: { principal: string; surface: string } | null;
  decided_at: string;
  reason: string | null;
  resume: { approved: boolean; metadata: Record<string, unknown> };
}

area.scenario(
  'two approvers approve two runs: inspect, the execution and the history show who, when and why; a body naming another approver changes nothing',
  {
    rows: ['route:POST /api/executions/{execution_id}/resume', 'route:GET /api/executions/{execution_id}', 'cli:inspect'],
    surfaces: ['http'],
    timeoutMs: 40_000,
  },
  async (t) => {
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const chain = approvalChain(store);
    const first = await chain.run({ amount: 10 });
    const second = await chain.run({ amount: 20 });
    const url = await serveUi(t, {
      authPath: await authFile(t, [
        ['alice', 'approver'],
        ['bob', 'approver'],
      ]),
      runners: [chain],
      checkpointer: store,
    });
    const alice = await signedIn(url, 'alice');
    const bob = await signedIn(url, 'bob');

    const pending = (await alice.get('/api/pending-interrupts')).json();
    assert.equal(
      pending.items.map((p: { runner: string; runner_registered: boolean }) => [p.runner, p.runner_registered]),
      [
        ['chain:refund', true],
        ['chain:refund', true],
      ],
    );

    // The body names mallory, as metadata and as an extra field: the record and the run see alice.
    const sneaky = await alice.request('POST', `/api/executions/${first.execution_id}/resume`, { approved: true, approver: 'mallory' });
    assert.is(sneaky.status, 400, 'no field of the body names who decides');
    const a = await alice.request('POST', `/api/executions/${first.execution_id}/resume`, {
      approved: true,
      metadata: { approver: 'mallory', note: 'kept' },
      reason: 'within budget',
    });
    assert.is(a.status, 200, a.text);
    assert.is(a.json().result.final_state.approver, 'alice', 'the run sees the signed-in user');
    assert.equal(a.json().result.final_state.resume_value.metadata, { approver: 'alice', note: 'kept' });
    const b = await bob.request('POST', `/api/executions/${second.execution_id}/resume`, { approved: false, reason: 'duplicate refund' });
    assert.is(b.status, 200, b.text);

    // The approvals history: newest first, who (surface ui), when, why, the value.
    const history = (await alice.get('/api/decisions')).json() as { count: number; items: Decision[] };
    const mine = history.items.filter((d) => [first.execution_id, second.execution_id].includes(d.execution_id));
    assert.equal(
      mine.map((d) => [d.execution_id, d.decided_by, d.reason, d.resume.approved]),
      [
        [second.execution_id, { principal: 'bob', surface: 'ui' }, 'duplicate refund', false],
        [first.execution_id, { principal: 'alice', surface: 'ui' }, 'within budget', true],
      ],
    );
    for (const d of mine) assert.match(d.decided_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

    // The execution route carries the decision row with the same record.
    const execution = (await alice.get(`/api/executions/${first.execution_id}`)).json();
    const row = execution.checkpoints.find((c: { step_type: string }) => c.step_type === 'resume');
    assert.equal(row.node_output.decided_by, { principal: 'alice', surface: 'ui' });
    assert.is(row.node_output.reason, 'within budget');
    assert.equal([execution.runner, execution.runner_registered], ['chain:refund', true]);

    // `agentkit inspect` reads the same record.
    const inspected = await t.cli(['inspect', first.execution_id, ...storeFlags(t)]);
    assert.is(inspected.code, 0, inspected.stderr);
    assert.match(inspected.stdout, /^Decision: {2}manager_approval: approved by alice \(ui\) at \S+, reason "within budget"$/m);
    const rejected = await t.cli(['inspect', second.execution_id, ...storeFlags(t)]);
    assert.match(rejected.stdout, /^Decision: {2}manager_approval: declined by bob \(ui\) at \S+, reason "duplicate refund"$/m);

    // With --no-auth nobody signs in: the record says anonymous, whatever the body says.
    const third = await chain.run({ amount: 30 });
    const open = new Browser(await serveUi(t, { noAuth: true, runners: [chain], checkpointer: store }));
    await open.get('/api/auth/status');
    const c = await open.request('POST', `/api/executions/${third.execution_id}/resume`, { approved: true, metadata: { approver: 'alice' } });
    assert.is(c.status, 200, c.text);
    const anonymous = ((await open.get('/api/decisions')).json() as { items: Decision[] }).items.find((d) => d.execution_id === third.execution_id)!;
    assert.equal(anonymous.decided_by, { principal: 'anonymous', surface: 'ui' });
  },
);

area.scenario(
  'a viewer gets 403 on resume, rerun, save-as-test, favorites and forks; an approver may resume but not rerun',
  { rows: ['route:POST /api/executions/{execution_id}/resume', 'route:POST /api/replay/forks/{fork_id}/rerun'], surfaces: ['http'] },
  async (t) => {
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const chain = approvalChain(store);
    const paused = await chain.run({ amount: 10 });
    const url = await serveUi(t, {
      authPath: await authFile(t, [
        ['vera', 'viewer'],
        ['alice', 'approver'],
      ]),
      runners: [chain],
      checkpointer: store,
    });
    const vera = await signedIn(url, 'vera');
    assert.equal((await vera.get('/api/auth/status')).json(), { authenticated: true, username: 'vera', role: 'viewer', no_auth: false });
    assert.is((await vera.get('/api/pending-interrupts')).status, 200, 'a viewer reads');
    assert.is((await vera.get('/api/decisions')).status, 200);

    const writes: Array<[string, string, unknown]> = [
      ['POST', `/api/executions/${paused.execution_id}/resume`, { approved: true }],
      ['POST', '/api/replay/forks/f-1/rerun', undefined],
      ['POST', '/api/replay/forks/f-1/save-as-test', {}],
      ['PUT', '/api/traces/t-1/favorite', { favorite: true }],
      ['POST', '/api/replay/t-1/fork', { step: 0 }],
      ['PATCH', '/api/replay/forks/f-1', { prompt: 'x' }],
    ];
    for (const [method, route, body] of writes) {
      const refused = await vera.request(method, route, body);
      assert.is(refused.status, 403, `${method} ${route}: ${refused.text}`);
      assert.is(refused.json().code, 'forbidden');
      assert.match(refused.json().detail, /^Forbidden: .* needs the (approver|admin) role; 'vera' is a viewer\.$/);
    }
    assert.is((await vera.get('/api/pending-interrupts')).json().count, 1, 'nothing was resumed');

    const alice = await signedIn(url, 'alice');
    for (const [method, route, body] of writes.slice(1)) {
      const refused = await alice.request(method, route, body);
      assert.is(refused.status, 403, `${method} ${route}: ${refused.text}`);
      assert.match(refused.json().detail, /needs the admin role; 'alice' is a approver\.$/);
    }
    assert.is((await alice.request('POST', `/api/executions/${paused.execution_id}/resume`, { approved: true })).status, 200);

    // An admin reaches the routes themselves (404 for the made-up fork and trace, not 403).
    const root = await signedIn(url, 'root');
    assert.is((await root.request('POST', '/api/replay/forks/f-1/save-as-test', {})).json().code, 'fork_not_found');
    assert.is((await root.request('PUT', '/api/traces/t-1/favorite', { favorite: true })).json().code, 'trace_not_found');
  },
);

area.scenario(
  'a user removed, demoted or signed out everywhere while signed in is refused on the next request',
  { rows: ['route:POST /api/executions/{execution_id}/resume', 'cli:ui'], surfaces: ['http'], timeoutMs: 40_000 },
  async (t) => {
    const store = checkpointerFor(t.backend);
    t.defer(() => store.close());
    const chain = approvalChain(store);
    const paused = await chain.run({ amount: 10 });
    const file = await authFile(t, [
      ['alice', 'approver'],
      ['bob', 'approver'],
      ['carol', 'viewer'],
    ]);
    const url = await serveUi(t, { authPath: file, runners: [chain], checkpointer: store });
    const alice = await signedIn(url, 'alice');
    const bob = await signedIn(url, 'bob');
    const carol = await signedIn(url, 'carol');
    const carolElsewhere = await signedIn(url, 'carol');

    // Removed (by the CLI, on the file the running UI reads): the next request is 401.
    const removed = await t.cli(['ui', 'users', 'remove', 'alice', '--auth-file', file]);
    assert.is(removed.code, 0, removed.stderr);
    const after = await alice.request('POST', `/api/executions/${paused.execution_id}/resume`, { approved: true });
    assert.is(after.status, 401, after.text);
    assert.is(after.json().code, 'not_authenticated');
    assert.is((await alice.login('alice', PASSWORD)).status, 401, 'a removed user cannot sign in');

    // Demoted: signed out on the next request; signed in again, the new role applies (403 on resume).
    assert.is((await bob.get('/api/overview')).status, 200);
    assert.is((await t.cli(['ui', 'users', 'set-role', 'bob', 'viewer', '--auth-file', file])).code, 0);
    assert.is((await bob.get('/api/overview')).status, 401);
    await bob.login('bob', PASSWORD);
    assert.is((await bob.get('/api/auth/status')).json().role, 'viewer');
    const demoted = await bob.request('POST', `/api/executions/${paused.execution_id}/resume`, { approved: true });
    assert.is(demoted.status, 403, demoted.text);
    assert.is((await bob.get('/api/pending-interrupts')).json().count, 1, 'nothing was resumed');

    // Sign out everywhere from one browser ends the other one too; the CLI does the same for any user.
    const everywhere = await carol.request('POST', '/api/auth/logout-everywhere');
    assert.is(everywhere.status, 200, everywhere.text);
    assert.is((await carolElsewhere.get('/api/overview')).status, 401);
    assert.is((await carol.get('/api/overview')).status, 401);
    const again = await signedIn(url, 'carol');
    assert.is((await t.cli(['ui', 'users', 'sign-out', 'carol', '--auth-file', file])).code, 0);
    assert.is((await again.get('/api/overview')).status, 401);
  },
);

/** POST a login from a given loopback source address (127.0.0.x), so the throttle sees different clients. */
function loginFrom(url: string, localAddress: string, username: string, password: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ username, password });
    const request = http.request(
      `${url}/api/auth/login`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

area.scenario(
  'login throttling per user and per address: 5 failures lock that user from every address, and that address for every user',
  { rows: ['cli:ui'], backends: 'none', surfaces: ['http'] },
  async (t) => {
    const url = await serveUi(t, {
      authPath: await authFile(t, [
        ['alice', 'approver'],
        ['bob', 'approver'],
      ]),
    });
    for (let i = 0; i < 5; i += 1) assert.is((await loginFrom(url, '127.0.0.2', 'alice', 'wrong password')).status, 401);
    // alice from another address, right password: locked per user.
    const alice = await loginFrom(url, '127.0.0.3', 'alice', PASSWORD);
    assert.is(alice.status, 429, alice.body);
    assert.is(JSON.parse(alice.body).code, 'too_many_attempts');
    // bob from the guessing address: locked per address.
    assert.is((await loginFrom(url, '127.0.0.2', 'bob', PASSWORD)).status, 429);
    // bob from elsewhere: fine.
    assert.is((await loginFrom(url, '127.0.0.3', 'bob', PASSWORD)).status, 200);
    // An unknown user is throttled like a known one.
    for (let i = 0; i < 5; i += 1) assert.is((await loginFrom(url, `127.0.0.${10 + i}`, 'nobody', 'wrong password')).status, 401);
    assert.is((await loginFrom(url, '127.0.0.20', 'nobody', 'wrong password')).status, 429);
  },
);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[24]! + sorted[25]!) / 2;
}

area.scenario(
  'unknown user and wrong password: identical status and body, and the same time within noise (median of 50 each)',
  { rows: ['cli:ui'], backends: 'none', surfaces: ['http'], timeoutMs: 120_000 },
  async (t) => {
    // The throttle would lock the address after 5 failures; this scenario measures the check itself.
    const url = await serveUi(t, { authPath: await authFile(t, [['alice', 'approver']]), throttle: new LoginThrottle({ maxFailures: 1_000_000 }) });
    const browser = new Browser(url);
    await browser.login('alice', PASSWORD); // warm: the dummy hash and the code paths
    const unknown: number[] = [];
    const wrong: number[] = [];
    const answers = new Set<string>();
    for (let i = 0; i < 50; i += 1) {
      // Interleaved, so a slow patch of the machine hits both kinds alike.
      for (const [username, times] of [
        ['nobody', unknown],
        ['alice', wrong],
      ] as const) {
        const started = performance.now();
        const response = await browser.request('POST', '/api/auth/login', { username, password: 'wrong password' });
        times.push(performance.now() - started);
        answers.add(`${response.status} ${response.text}`);
      }
    }
    assert.equal([...answers], ['401 {"detail":"Invalid username or password.","code":"invalid_credentials"}']);
    // Not a timed assertion that can flake: both paths do one scrypt with the same cost, so their medians differ by
    // noise only. The bound is generous (half the larger median plus 20 ms) so a loaded CI machine cannot trip it,
    // while skipping the hash for unknown users (a difference of the whole scrypt time, ~100%) still fails it.
    const [mu, mw] = [median(unknown), median(wrong)];
    assert.ok(Math.abs(mu - mw) < 0.5 * Math.max(mu, mw) + 20, `medians ${mu.toFixed(1)} ms (unknown user) vs ${mw.toFixed(1)} ms (wrong password)`);
    assert.ok(Math.min(mu, mw) > 0, 'measured');
  },
);

area.scenario(
  'agentkit ui users: add, list, set-role, remove; the last admin is neither removed nor demoted; a version 1 auth file keeps working as admin',
  { rows: ['cli:ui reset-password', 'cli:ui'], backends: 'none', surfaces: ['cli'] },
  async (t) => {
    const file = path.join(t.cwd, 'auth.json');
    const add = (name: string, ...flags: string[]) =>
      t.cli(['ui', 'users', 'add', name, '--auth-file', file, '--password-stdin', ...flags], { stdin: `${PASSWORD}\n` });
    assert.is((await add('root', '--role', 'admin')).code, 0);
    assert.is((await add('alice', '--role', 'approver')).code, 0);
    assert.is((await add('vera')).code, 0);
    const taken = await add('alice');
    assert.equal([taken.code, taken.stderr.trim().split('\n').length], [2, 1]);
    assert.match(taken.stderr, /UI user 'alice' already exists/);
    const badRole = await add('x', '--role', 'owner');
    assert.is(badRole.code, 2);

    const list = await t.cli(['ui', 'users', 'list', '--auth-file', file, '--json']);
    assert.equal(
      JSON.parse(list.stdout).map((u: { username: string; role: string }) => [u.username, u.role]),
      [
        ['root', 'admin'],
        ['alice', 'approver'],
        ['vera', 'viewer'],
      ],
    );
    assert.not.match(list.stdout, /scrypt/);

    const last = await t.cli(['ui', 'users', 'remove', 'root', '--auth-file', file]);
    assert.equal([last.code, last.stderr], [2, "error: refusing to remove 'root': it is the last admin; make another user admin first\n"]);
    const demote = await t.cli(['ui', 'users', 'set-role', 'root', 'viewer', '--auth-file', file]);
    assert.equal([demote.code, demote.stderr], [2, "error: refusing to demote 'root': it is the last admin; make another user admin first\n"]);
    assert.is((await t.cli(['ui', 'users', 'set-role', 'alice', 'admin', '--auth-file', file])).code, 0);
    assert.is((await t.cli(['ui', 'users', 'remove', 'root', '--auth-file', file])).code, 0, 'no longer the last admin');
    const unknown = await t.cli(['ui', 'users', 'remove', 'root', '--auth-file', file]);
    assert.equal([unknown.code, unknown.stderr], [2, "error: no UI user 'root' (users: alice, vera)\n"]);

    // reset-password keeps its meaning for a named user; another name is refused.
    const reset = await t.cli(['ui', 'reset-password', '--auth-file', file, '--username', 'vera', '--password-stdin'], { stdin: 'another password\n' });
    assert.is(reset.code, 0, reset.stderr);
    const noSuch = await t.cli(['ui', 'reset-password', '--auth-file', file, '--username', 'zed', '--password-stdin'], { stdin: 'another password\n' });
    assert.is(noSuch.code, 2);
    assert.match(noSuch.stderr, /no UI user 'zed'/);

    // A version 1 file (one shared login) still signs in, as an admin; a users change rewrites it as version 2.
    const v1 = await newAuthFile('ops', PASSWORD);
    const legacy = path.join(t.cwd, 'legacy.json');
    const user = v1.users[0]!;
    await writeFile(
      legacy,
      JSON.stringify({ version: 1, username: 'ops', password_hash: user.password_hash, session_secret: v1.session_secret, created_at: v1.created_at }),
      { mode: 0o600 },
    );
    const url = await serveUi(t, { authPath: legacy });
    const ops = await signedIn(url, 'ops');
    assert.is((await ops.get('/api/auth/status')).json().role, 'admin');
    assert.is((await t.cli(['ui', 'users', 'add', 'dana', '--auth-file', legacy, '--password-stdin'], { stdin: `${PASSWORD}\n` })).code, 0);
    const upgraded = (await readAuthFile(legacy))!;
    assert.equal(
      upgraded.users.map((u) => [u.username, u.role]),
      [
        ['ops', 'admin'],
        ['dana', 'viewer'],
      ],
    );
    assert.is((await ops.get('/api/overview')).status, 200, "the v1 user's session survives the rewrite");
  },
);

area.run();
