/**
 * The UI on the Platform's store, one project at a time (issue 42: `agentkit ui --db <platform store> --project <p>`),
 * the Platform on both engines: two projects send traces over OTLP and export eval runs; the UI started with
 * `--project alpha` lists, searches, opens and exports alpha's traces and lists and opens alpha's eval runs, and
 * nothing of beta's (a beta trace id is not found, not even by search); it refuses deletes; `--project` on a store
 * without the Platform's tables, empty, or with `--agent` is a usage error (exit 2).
 */
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../src/errors.js';
import { ProjectTraceStore } from '../../src/platform/project-view/index.js';
import { openPlatformStore } from '../../src/platform/server/open-platform-store.js';
import { conformance, startCli, startPlatform } from '../harness/index.js';

const area = conformance('platform: the UI on one project of the Platform store');

const ALPHA = 'ak_alpha_writer_000000000';
const BETA = 'ak_beta_writer_0000000000';
const SCOPES = ['traces:write' as const, 'evals:write' as const];

const hex = (n: number, length: number) => n.toString(16).padStart(length, '0');

/** An OTLP/JSON request of one trace: a root `name` and a child that failed when `failed`. */
function otlpTrace(traceId: string, name: string, attributes: Record<string, string>, failed: boolean) {
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const span = (id: string, parent: string | undefined, spanName: string, offsetMs: number, status: number) => ({
    traceId,
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name: spanName,
    kind: 1,
    startTimeUnixNano: String(start + BigInt(offsetMs) * 1_000_000n),
    endTimeUnixNano: String(start + BigInt(offsetMs + 5) * 1_000_000n),
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
    status: { code: status },
  });
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'support' } }] },
        scopeSpans: [
          {
            scope: { name: 'agentkit' },
            spans: [
              span(`${traceId.slice(0, 15)}1`, undefined, name, 0, 1),
              span(`${traceId.slice(0, 15)}2`, `${traceId.slice(0, 15)}1`, 'tool.lookup_order', 1, failed ? 2 : 1),
            ],
          },
        ],
      },
    ],
  };
}

const evalRun = (runId: string, passRate: number) => ({
  run_id: runId,
  run_name: 'nightly',
  dataset_name: 'orders',
  agent_name: 'support',
  started_at: new Date(Date.now() - 3_600_000).toISOString(),
  finished_at: new Date(Date.now() - 3_500_000).toISOString(),
  scorers: ['exact_match'],
  metrics: [{ name: 'exact_match', avg_score: passRate, pass_rate: passRate, n: 2 }],
  overall_pass_rate: passRate,
  total_cases: 2,
  errored_count: 0,
  error_rate: 0,
  gate_outcome: 'passed',
  gate_checks: ['exact_match.pass_rate=1 >= 0.5: PASS'],
  max_error_rate: null,
  thresholds: ['exact_match.pass_rate=0.5'],
  git_sha: 'abc1234',
  git_branch: 'main',
  sdk_version: '1.0.0',
  cases: [0, 1].map((ordinal) => ({
    case_id: `${runId}-${ordinal}`,
    ordinal,
    trace_id: null,
    errored: false,
    per_scorer: { exact_match: { passed: passRate === 1 || ordinal === 0, score: passRate === 1 || ordinal === 0 ? 1 : 0 } },
  })),
});

area.scenario(
  "ui --project shows that project's traces and eval runs of the Platform store, and nothing of another project's",
  { surfaces: ['http'], timeoutMs: 90_000, storeEnv: true },
  async (t) => {
    const platform = await startPlatform({
      dir: t.cwd,
      store: t.store!,
      apiKeys: [
        { key: ALPHA, project: 'alpha', scopes: SCOPES },
        { key: BETA, project: 'beta', scopes: SCOPES },
      ],
    });
    t.defer(() => platform.stop());
    const send = async (key: string, route: string, body: unknown) => {
      const response = await fetch(`${platform.url}${route}`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.is(response.status, 200, `${route}: ${await response.text()}`);
    };
    const alphaOk = hex(0xa1, 32);
    const alphaFailed = hex(0xa2, 32);
    const betaTrace = hex(0xb1, 32);
    await send(ALPHA, '/v1/traces', otlpTrace(alphaOk, 'agent.support', { 'agent.input': 'Where is order 42?' }, false));
    await send(ALPHA, '/v1/traces', otlpTrace(alphaFailed, 'agent.support', { 'agent.input': 'Refund order 7' }, true));
    await send(BETA, '/v1/traces', otlpTrace(betaTrace, 'agent.billing', { 'agent.input': 'Where is order 42?' }, false));
    await send(ALPHA, '/public/v1/eval/runs/ingest', { runs: [evalRun('run-alpha', 0.5)] });
    await send(BETA, '/public/v1/eval/runs/ingest', { runs: [evalRun('run-beta', 1)] });

    const ui = startCli(['ui', '--db', platform.db, '--project', 'alpha', '--no-auth', '--no-open', '--port', '0'], { cwd: t.cwd, env: t.env });
    t.defer(() => ui.kill());
    const [line, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)[^\n]*/, 30_000);
    assert.match(line!, /Platform project 'alpha' read-only/);
    const get = async (route: string, init?: RequestInit) => {
      const response = await fetch(`${url}${route}`, init);
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
    };

    const status = await get('/api/auth/status');
    assert.equal([status.body.project, status.body.no_auth], ['alpha', true], 'the page is told the project');
    const listed = await get('/api/traces');
    assert.is(listed.status, 200, `${JSON.stringify(listed.body)}\n${ui.stderr()}`);
    const items = listed.body.items as Array<{ trace_id: string; name: string; status: string; span_count: number; duration_ms: number }>;
    assert.equal(
      items.map((i) => [i.trace_id, i.name, i.status, i.span_count]).sort(),
      [
        [alphaOk, 'agent.support', 'OK', 2],
        [alphaFailed, 'agent.support', 'ERROR', 2],
      ].sort(),
      "alpha's two traces, beta's not",
    );
    assert.ok(items.every((i) => i.duration_ms === 6));
    const failing = await get('/api/traces?status=ERROR');
    assert.equal(
      (failing.body.items as Array<{ trace_id: string }>).map((i) => i.trace_id),
      [alphaFailed],
    );
    const searched = await get(`/api/traces?q=${encodeURIComponent('order 42')}`);
    assert.equal(
      (searched.body.items as Array<{ trace_id: string }>).map((i) => i.trace_id),
      [alphaOk],
      "the search finds alpha's trace, not beta's",
    );
    const overview = await get('/api/overview');
    assert.equal([overview.body.traces_last_24h, overview.body.failing_traces_last_24h], [2, 1]);

    const detail = await get(`/api/traces/${alphaFailed}`);
    assert.is(detail.status, 200);
    const spans = detail.body.spans as Array<{ name: string; parent_span_id: string | null; status: string; attributes: Record<string, unknown> }>;
    assert.equal(
      spans.map((s) => [s.name, s.parent_span_id, s.status]),
      [
        ['agent.support', null, 'OK'],
        ['tool.lookup_order', `${alphaFailed.slice(0, 15)}1`, 'ERROR'],
      ],
    );
    assert.is(spans[0]!.attributes['agent.input'], 'Refund order 7');
    const hidden = await get(`/api/traces/${betaTrace}`);
    assert.is(hidden.status, 404, "beta's trace is not found");
    assert.match(JSON.stringify(hidden.body), /not found in project 'alpha' of the Platform store/);
    const exported = await get(`/api/traces/${alphaOk}/export`);
    assert.is(exported.status, 200, JSON.stringify(exported.body));
    // Read-only: deleting or pruning the project's traces is refused.
    const view = new ProjectTraceStore(openPlatformStore(platform.db), 'alpha', { dbPath: platform.db });
    t.defer(() => view.close());
    for (const attempt of [() => view.deleteTrace(alphaOk), () => view.prune(1)]) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(error.message, /^the traces of project 'alpha' of the Platform store .* are read-only here$/);
    }
    assert.is((await view.getTrace(alphaOk)).spans.length, 2, 'the trace is still there');

    const runs = await get('/api/eval-runs');
    assert.is(runs.status, 200, JSON.stringify(runs.body));
    const runItems = runs.body.items as Array<{ run_id: string; scorecard: { overall_pass_rate: number }; gate: { outcome: string } | null }>;
    assert.equal(
      runItems.map((r) => [r.run_id, r.scorecard.overall_pass_rate, r.gate?.outcome]),
      [['run-alpha', 0.5, 'passed']],
      "alpha's eval run only",
    );
    const run = await get('/api/eval-runs/run-alpha');
    assert.is(run.status, 200, JSON.stringify(run.body));
    assert.equal(
      (run.body.cases as Array<{ ordinal: number; per_scorer: Record<string, { passed: boolean }> }>).map((c) => [c.ordinal, c.per_scorer.exact_match!.passed]),
      [
        [0, true],
        [1, false],
      ],
    );
    assert.is((await get('/api/eval-runs/run-beta')).status, 404, "beta's run is not found");
  },
);

area.scenario(
  'ui --project refuses a store without the Platform, an empty project and --agent (exit 2, one line)',
  { surfaces: ['cli'], timeoutMs: 60_000, storeEnv: true },
  async (t) => {
    const plain = await t.cli(['ui', '--db', t.store!, '--project', 'alpha', '--no-auth', '--no-open', '--port', '0']);
    assert.is(plain.code, 2, plain.stderr);
    assert.match(
      plain.stderr,
      /^error: --project reads a Platform store, and .* holds no Platform tables \(run `agentkit platform serve --db <store>` on it first\)\n$/,
    );
    assert.not.match(plain.stderr, /:[^@/]*@/, 'no password printed');
    // A path that is no database is named in one line, as every store open says it.
    await writeFile(path.join(t.cwd, 'notes.txt'), 'not a database\n');
    const notDb = await t.cli(['ui', '--db', 'notes.txt', '--project', 'alpha', '--no-auth', '--no-open', '--port', '0']);
    assert.equal(
      [notDb.code, notDb.stderr],
      [1, `error: store ${path.join(t.cwd, 'notes.txt')} is not a SQLite database; expected the agentkit SQLite store file (e.g. .agentkit/local.db)\n`],
    );
    const empty = await t.cli(['ui', '--project', '', '--no-auth', '--no-open']);
    assert.equal([empty.code, empty.stderr.split('\n')[0]], [2, 'error: --project must name a project, got an empty string; usage: agentkit ui [options]']);
    const withAgent = await t.cli(['ui', '--project', 'alpha', '--agent', 'x.ts:y', '--no-auth', '--no-open']);
    assert.equal(
      [withAgent.code, withAgent.stderr.split('\n')[0]],
      [2, 'error: --project shows a Platform project read-only: it cannot be combined with --agent (reruns and resumes); usage: agentkit ui [options]'],
    );
  },
);

area.run();
