/**
 * `agentkit platform serve` (issue 42) on both engines (the scenario's store is the Platform's: a SQLite file or a
 * Postgres schema): a key reads and writes its own project only (each route tried across projects), a revoked key
 * gets 401 on its next request, a key without a route's scope gets 403, a body naming another project gets 403, the
 * rate limit answers 429 with `Retry-After`, a non-loopback bind is refused without `--insecure-bind`, and the keys
 * commands show a key once and never again.
 */
import { statSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { conformance, startPlatform, type LocalPlatform } from '../harness/index.js';

const area = conformance('platform: the Platform server (platform serve, keys)');

const KEY_A = 'ak_project_a_0123456789abcdef';
const KEY_B = 'ak_project_b_0123456789abcdef';
const TRACE = '0af7651916cd43dd8448eb211c80319c';

async function call(platform: LocalPlatform, key: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${platform.url}/public/v1${route}`, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const row = (id: string, executionId: string, stepType = 'node') => ({
  checkpoint_id: id,
  execution_id: executionId,
  resource_type: 'chain',
  chain_name: 'c',
  node_id: 'n',
  step_index: 0,
  status: 'completed',
  step_type: stepType,
  run_status: null,
  parent_checkpoint_id: null,
  state_snapshot: { secret: `of ${executionId}` },
  metadata: { node_input: null, node_output: null, iteration: 0, iteration_counters: {}, interrupt_reason: null, interrupt_context: null, agent_path: null },
  created_at: '2026-01-01T00:00:00.000000Z',
});

const evalRun = (runId: string) => ({
  run_id: runId,
  run_name: 'nightly',
  dataset_name: 'd',
  agent_name: 'a',
  started_at: '2026-01-01T00:00:00.000000Z',
  finished_at: '2026-01-01T00:00:01.000000Z',
  scorers: ['exact_match'],
  metrics: [],
  overall_pass_rate: 1,
  total_cases: 0,
  errored_count: 0,
  error_rate: 0,
  gate_outcome: null,
  gate_checks: [],
  max_error_rate: null,
  thresholds: [],
  git_sha: null,
  git_branch: null,
  sdk_version: '1.0.0',
  cases: [],
});

const claim = (claimId: string) => ({
  claim_id: claimId,
  host: `host-${claimId}`,
  pending_created_at: '2026-01-01T00:00:00.000000Z',
  decision: { resume: { approved: true }, decided_by: { principal: claimId, surface: 'cli' } },
});

area.scenario(
  'a key of project A can neither read, claim, lease nor inject into project B (each route tried)',
  { surfaces: ['http'], timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({
      dir: t.cwd,
      store: t.store!,
      apiKeys: [
        { key: KEY_A, project: 'a' },
        { key: KEY_B, project: 'b' },
      ],
    });
    t.defer(() => platform.stop());
    // Project B's rows: a checkpoint, an eval run, a claim, a lease and a trace.
    assert.equal((await call(platform, KEY_B, 'POST', '/checkpoints/ingest', { checkpoints: [row('cp-b', 'exec-b')] })).body.accepted, ['cp-b']);
    assert.is((await call(platform, KEY_B, 'POST', '/eval/runs/ingest', { runs: [evalRun('run-b')] })).status, 200);
    assert.is((await call(platform, KEY_B, 'POST', '/executions/exec-b/claim', claim('b-claim'))).status, 200);
    assert.is(
      (await call(platform, KEY_B, 'POST', '/executions/exec-b/lease', { holder: 'b-run', host: 'hb', ttl_ms: 600_000 })).status,
      409,
      'B rows hold the lease',
    );
    await platform.putSpans(
      [
        {
          trace_id: TRACE,
          span_id: 'aaaaaaaaaaaaaaaa',
          parent_span_id: null,
          name: 'agent.b',
          kind: 1,
          start_time: '2026-01-01T00:00:00.000Z',
          end_time: null,
          status: 'OK',
          status_message: null,
          attributes: { 'agent.input': 'secret of b' },
          events: [],
          resource: {},
          scope: null,
        },
      ],
      'b',
    );
    assert.is((await call(platform, KEY_B, 'GET', `/traces/${TRACE}`)).status, 200);

    // Reads by A find nothing of B.
    assert.equal((await call(platform, KEY_A, 'GET', '/checkpoints/exec-b/latest')).body.code, 'checkpoint_not_found');
    assert.equal((await call(platform, KEY_A, 'GET', '/checkpoints/exec-b/history')).body.code, 'checkpoint_not_found');
    assert.equal((await call(platform, KEY_A, 'GET', `/traces/${TRACE}`)).body.code, 'trace_not_found');
    assert.equal((await call(platform, KEY_A, 'GET', '/eval/runs')).body, { runs: [] });
    assert.equal((await call(platform, KEY_A, 'GET', '/eval/runs/run-b')).status, 404);
    // A claim or lease by A is of A's own execution of that id: B's claim and lease stay in force.
    assert.is((await call(platform, KEY_A, 'POST', '/executions/exec-b/claim', claim('a-claim'))).status, 200);
    assert.is((await call(platform, KEY_A, 'POST', '/executions/exec-b/lease', { holder: 'a-run', host: 'ha', ttl_ms: 1000 })).status, 200);
    const bAgain = await call(platform, KEY_B, 'POST', '/executions/exec-b/claim', claim('b-other'));
    assert.equal([bAgain.status, (bAgain.body.claim as { claim_id: string }).claim_id], [409, 'b-claim'], "B's claim in force");
    // Injection: a body naming B is refused; the same ids written by A stay A's.
    const inject = await call(platform, KEY_A, 'POST', '/checkpoints/ingest', { project: 'b', checkpoints: [row('cp-evil', 'exec-b')] });
    assert.equal([inject.status, inject.body.code], [403, 'forbidden']);
    assert.match(String(inject.body.detail), /belongs to project 'a'; the body names project 'b'/);
    assert.is((await call(platform, KEY_A, 'POST', '/eval/runs/ingest', { project: 'b', runs: [evalRun('run-evil')] })).status, 403);
    assert.is((await call(platform, KEY_A, 'POST', '/checkpoints/ingest', { project: 'a', checkpoints: [row('cp-b', 'exec-b')] })).status, 200);
    const history = await call(platform, KEY_B, 'GET', '/checkpoints/exec-b/history');
    assert.equal(
      (history.body.checkpoints as Array<{ checkpoint_id: string }>).map((r) => r.checkpoint_id),
      ['cp-b'],
      "B's history unchanged",
    );
    assert.equal(await platform.read((s) => s.checkpoints().map((r) => [r.project, r.body.checkpoint_id])), [
      ['b', 'cp-b'],
      ['a', 'cp-b'],
    ]);
    assert.equal(await platform.read((s) => s.evalRuns().map((r) => [r.project, r.body.run_id])), [['b', 'run-b']]);
    // auth/check names the key's project and scopes.
    const check = await call(platform, KEY_A, 'GET', '/auth/check');
    assert.equal([check.body.project_id, (check.body.scopes as string[]).includes('checkpoints:read')], ['a', true]);
  },
);

area.scenario(
  'eval runs are listed newest first and read back; getTrace carries parent links and attributes',
  { surfaces: ['http'], timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, store: t.store!, apiKeys: [{ key: KEY_A, project: 'a' }] });
    t.defer(() => platform.stop());
    await call(platform, KEY_A, 'POST', '/eval/runs/ingest', { runs: [evalRun('run-1'), evalRun('run-2')] });
    const listed = await call(platform, KEY_A, 'GET', '/eval/runs?limit=1');
    assert.equal(
      (listed.body.runs as Array<{ run_id: string }>).map((r) => r.run_id),
      ['run-2'],
    );
    assert.equal((await call(platform, KEY_A, 'GET', '/eval/runs/run-1')).body, evalRun('run-1'));
    const base = { kind: 1, end_time: null, status: 'OK' as const, status_message: null, events: [], resource: {}, scope: null, trace_id: TRACE };
    await platform.putSpans(
      [
        {
          ...base,
          span_id: 'bbbbbbbbbbbbbbbb',
          parent_span_id: 'aaaaaaaaaaaaaaaa',
          name: 'tool.x',
          start_time: '2026-01-01T00:00:01.000Z',
          attributes: { 'tool.input': '{}', n: 3 },
        },
        {
          ...base,
          span_id: 'aaaaaaaaaaaaaaaa',
          parent_span_id: null,
          name: 'agent.a',
          start_time: '2026-01-01T00:00:00.000Z',
          attributes: { 'agent.output': 'ok' },
        },
      ],
      'a',
    );
    const trace = await call(platform, KEY_A, 'GET', `/traces/${TRACE}`);
    assert.is(trace.body.name, 'agent.a');
    assert.equal(
      (trace.body.spans as Array<Record<string, unknown>>).map((s) => [s.id, s.parent_span_id, s.attributes, s.input, s.output]),
      [
        ['aaaaaaaaaaaaaaaa', null, { 'agent.output': 'ok' }, {}, { 'agent.output': 'ok' }],
        ['bbbbbbbbbbbbbbbb', 'aaaaaaaaaaaaaaaa', { 'tool.input': '{}', n: 3 }, { 'tool.input': '{}' }, {}],
      ],
    );
    // SIGTERM closes it cleanly.
    platform.child.process.kill('SIGTERM');
    assert.equal(await platform.child.exit(), { code: 0, signal: null });
  },
);

area.scenario(
  'scopes: a traces:write key cannot read checkpoints or claim (403); a revoked key gets 401 on its next request',
  { surfaces: ['http', 'cli'], timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({
      dir: t.cwd,
      store: t.store!,
      apiKeys: [
        { key: KEY_A, project: 'a', scopes: ['traces:write'] },
        { key: KEY_B, project: 'a' },
      ],
    });
    t.defer(() => platform.stop());
    for (const [method, route, body] of [
      ['GET', '/checkpoints/e/latest'],
      ['GET', '/checkpoints/e/history'],
      ['POST', '/checkpoints/ingest', { checkpoints: [] }],
      ['POST', '/executions/e/claim', claim('c')],
      ['POST', '/executions/e/lease', { holder: 'h', host: 'h', ttl_ms: 1000 }],
      ['GET', '/eval/runs'],
      ['POST', '/eval/runs/ingest', { runs: [] }],
      ['GET', `/traces/${TRACE}`],
    ] as const) {
      const answer = await call(platform, KEY_A, method, route, body);
      assert.equal([answer.status, answer.body.code], [403, 'forbidden'], `${method} ${route}`);
      assert.match(String(answer.body.detail), /scopes \(traces:write\) do not allow/);
    }
    assert.equal((await call(platform, KEY_A, 'GET', '/auth/check')).body.scopes, ['traces:write']);

    assert.is((await call(platform, KEY_B, 'GET', '/eval/runs')).status, 200);
    const revoke = await t.bin(['platform', 'keys', 'revoke', platform.keyId(KEY_B), '--db', platform.db]);
    assert.is(revoke.code, 0, revoke.stderr);
    assert.match(revoke.stdout, new RegExp(`^revoked key ${platform.keyId(KEY_B)} \\(prefix ak_project_b\\) of project 'a'\\n$`));
    const after = await call(platform, KEY_B, 'GET', '/eval/runs');
    assert.equal([after.status, after.body.code], [401, 'invalid_api_key'], 'the next request after revocation');
    assert.equal((await call(platform, 'ak_unknown_key_0123456789', 'GET', '/auth/check')).body.code, 'invalid_api_key');
  },
);

area.scenario(
  'the rate limit answers 429 with Retry-After once a key spent its burst, on every replica of the store; other keys are not affected',
  { surfaces: ['http'], timeoutMs: 60_000 },
  async (t) => {
    const platform = await startPlatform({
      dir: t.cwd,
      store: t.store!,
      rate: 0.1,
      burst: 3,
      apiKeys: [
        { key: KEY_A, project: 'a' },
        { key: KEY_B, project: 'a' },
      ],
    });
    t.defer(() => platform.stop());
    // A second replica on the same store shares each key's bucket (ADR 0068).
    const replica = await startPlatform({ dir: t.cwd, store: t.store!, rate: 0.1, burst: 3, apiKeys: [{ key: KEY_A, project: 'a' }] });
    t.defer(() => replica.stop());
    for (const [i, server] of [platform, replica, platform].entries()) {
      assert.is((await call(server, KEY_A, 'GET', '/auth/check')).status, 200, `request ${i} within the burst`);
    }
    assert.is((await call(replica, KEY_A, 'GET', '/auth/check')).status, 429, 'the burst is spent across replicas');
    const limited = await call(platform, KEY_A, 'GET', '/auth/check');
    assert.equal([limited.status, limited.body.code], [429, 'rate_limited']);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 10, `Retry-After ${limited.headers.get('retry-after')}`);
    assert.is((await call(platform, KEY_B, 'GET', '/auth/check')).status, 200, 'another key has its own bucket');
  },
);

area.scenario('platform serve refuses a non-loopback bind without --insecure-bind (exit 2, one line)', { surfaces: ['cli'], timeoutMs: 30_000 }, async (t) => {
  const run = await t.bin(['platform', 'serve', '--db', t.store!, '--host', '0.0.0.0', '--port', '0']);
  assert.is(run.code, 2);
  assert.is(run.stdout, '');
  assert.is(
    run.stderr,
    "error: refusing to bind the Platform to non-loopback address '0.0.0.0': API keys travel in clear over plain HTTP; pass --insecure-bind to acknowledge (and put a TLS proxy in front), or use --host 127.0.0.1\n",
  );
});

area.scenario(
  'platform keys: a key is printed once, listed without it, revoked by prefix; bad scopes exit 2',
  { surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const db = t.store!;
    const created = await t.bin([
      'platform',
      'keys',
      'create',
      '--db',
      db,
      '--project',
      'support',
      '--scope',
      'claims',
      '--scope',
      'checkpoints:read',
      '--json',
    ]);
    assert.is(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout) as { key: string; id: string; prefix: string; project: string; scopes: string[]; revoked_at: null };
    assert.match(key.key, /^akp_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    assert.equal([key.prefix, key.project, key.scopes], [key.key.slice(0, 12), 'support', ['claims', 'checkpoints:read']]);
    if (!db.startsWith('postgres')) assert.is(statSync(`${db}.secret`).mode & 0o777, 0o600, 'the secret file is 0600');

    const listed = await t.bin(['platform', 'keys', 'list', '--db', db, '--json']);
    assert.is(listed.code, 0, listed.stderr);
    assert.not.ok(listed.stdout.includes(key.key.slice(12)), 'the key is never listed');
    assert.equal(
      (JSON.parse(listed.stdout) as { items: Array<Record<string, unknown>> }).items.map((k) => Object.keys(k).sort()),
      [['created_at', 'id', 'prefix', 'project', 'revoked_at', 'scopes']],
    );
    const table = await t.bin(['platform', 'keys', 'list', '--db', db]);
    assert.match(table.stdout, new RegExp(`${key.id}\\s+${key.prefix}\\s+support\\s+claims,checkpoints:read`));

    const bad = await t.bin(['platform', 'keys', 'create', '--db', db, '--project', 'support', '--scope', 'everything']);
    assert.is(bad.code, 2);
    assert.is(
      bad.stderr,
      "error: unknown scope 'everything': expected one of traces:write, checkpoints:read, checkpoints:write, claims, evals:write, evals:read, admin\n",
    );

    const revoked = await t.bin(['platform', 'keys', 'revoke', key.prefix, '--db', db]);
    assert.is(revoked.code, 0, revoked.stderr);
    assert.is(revoked.stdout, `revoked key ${key.id} (prefix ${key.prefix}) of project 'support'\n`);
    const again = await t.bin(['platform', 'keys', 'revoke', key.prefix, '--db', db]);
    assert.is(again.code, 2, 'no live key has that prefix any more');
    assert.match(again.stderr, /^error: no live key with id or prefix/);
    const json = JSON.parse((await t.bin(['platform', 'keys', 'list', '--db', db, '--json'])).stdout) as {
      items: Array<{ revoked_at: string | null }>;
      more_available: boolean;
    };
    assert.ok(json.items[0]!.revoked_at, 'listed as revoked');
    assert.is(json.more_available, false);
    assert.is((await t.bin(['platform', 'keys', 'create', '--db', db, '--project', 'other', '--scope', 'admin'])).code, 0);
    const cut = await t.bin(['platform', 'keys', 'list', '--db', db, '--limit', '1', '--json']);
    const page = JSON.parse(cut.stdout) as { items: unknown[]; count: number; more_available: boolean };
    assert.equal([page.items.length, page.count, page.more_available], [1, 1, true], '--limit cuts the list');
    const cutTable = await t.bin(['platform', 'keys', 'list', '--db', db, '--limit', '1']);
    assert.is(cutTable.stderr, 'showing 1, more available (raise --limit to see more)\n');
  },
);

area.run();
