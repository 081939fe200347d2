/// <reference lib="dom" />
/**
 * The UI on one project of a Platform store (issue 42, ADR 0073) in a real Chromium: a SQLite Platform store holds
 * traces of two projects as OTLP ingestion stores them, and an exported eval run of each; the UI started on project
 * `support` lists that project's traces only, searches them, opens one as a waterfall with its spans, and lists that
 * project's eval run only; another project's trace id shows as not found. Any uncaught page error or unexpected
 * console error fails the run.
 *
 * Screenshots: see test-support/browser.ts.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowserReady, launchChromium, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { EvalStore } from '../../src/eval/store.js';
import { ProjectEvalRuns, ProjectTraceStore } from '../../src/platform/project-view/index.js';
import type { IngestedSpan } from '../../src/platform/server/ingested-span.js';
import { SQLitePlatformStore } from '../../src/platform/server/sqlite-platform-store.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  platform: SQLitePlatformStore;
  checkpointer: SQLiteCheckpointer;
  server: RunningUiServer;
}

const OSLO = '0af7651916cd43dd8448eb211c80319c';
const REFUND = '4bf92f3577b34da6a3ce929d0e0e4736';
const BILLING = 'c0ffee00c0ffee00c0ffee00c0ffee00';

/** One trace as OTLP ingestion stores it: an agent root, a model call and a tool call (failed when `failed`). */
function trace(traceId: string, minutesAgo: number, input: string, failed: boolean): IngestedSpan[] {
  const at = (ms: number) => new Date(Date.now() - minutesAgo * 60_000 + ms).toISOString();
  const span = (
    n: number,
    parent: number | null,
    name: string,
    start: number,
    end: number,
    attributes: IngestedSpan['attributes'],
    status: IngestedSpan['status'] = 'OK',
  ): IngestedSpan => ({
    trace_id: traceId,
    span_id: `${traceId.slice(0, 15)}${n}`,
    parent_span_id: parent === null ? null : `${traceId.slice(0, 15)}${parent}`,
    name,
    kind: 1,
    start_time: at(start),
    end_time: at(end),
    status,
    status_message: status === 'ERROR' ? 'order service timed out' : null,
    attributes,
    events: [],
    resource: { 'service.name': 'support' },
    scope: 'agentkit',
  });
  return [
    span(1, null, 'agent.support', 0, 1_400, { 'agent.name': 'support', 'agent.input': input }),
    span(2, 1, 'llm.chat_completion', 20, 820, { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 412 }),
    span(3, 1, 'tool.lookup_order', 840, 1_380, { 'tool.args': input }, failed ? 'ERROR' : 'OK'),
  ];
}

const exported = (runId: string, runName: string, passRate: number) => ({
  run_id: runId,
  run_name: runName,
  dataset_name: 'support-faq',
  agent_name: 'support',
  started_at: new Date(Date.now() - 3_600_000).toISOString(),
  finished_at: new Date(Date.now() - 3_590_000).toISOString(),
  scorers: ['exact_match'],
  metrics: [{ name: 'exact_match', avg_score: passRate, pass_rate: passRate, n: 4 }],
  overall_pass_rate: passRate,
  total_cases: 4,
  errored_count: 0,
  error_rate: 0,
  gate_outcome: passRate >= 0.75 ? 'passed' : 'failed',
  gate_checks: [`exact_match.pass_rate=${passRate} >= 0.75: ${passRate >= 0.75 ? 'PASS' : 'FAIL'}`],
  max_error_rate: null,
  thresholds: ['exact_match.pass_rate=0.75'],
  git_sha: 'abc1234',
  git_branch: 'main',
  sdk_version: '1.0.0',
  cases: [0, 1, 2, 3].map((ordinal) => ({
    case_id: `${runId}-${ordinal}`,
    ordinal,
    trace_id: null,
    errored: false,
    per_scorer: { exact_match: { passed: ordinal < passRate * 4, score: ordinal < passRate * 4 ? 1 : 0 } },
  })),
});

const test = suite<State>('local UI on a Platform project in Chromium', { timeoutMs: 60_000, state: {} as State });

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-project-'));
  const db = path.join(s.dir, 'platform.db');
  s.platform = new SQLitePlatformStore(db);
  await s.platform.putSpans('support', [...trace(OSLO, 30, 'Where is order 42 (Oslo)?', false), ...trace(REFUND, 10, 'Refund order 7', true)]);
  await s.platform.putSpans('billing', trace(BILLING, 5, 'Invoice for Oslo office', false));
  await s.platform.putEvalRuns('support', [exported('run-support', 'release-1.5', 0.75)], 'key-support');
  await s.platform.putEvalRuns('billing', [exported('run-billing', 'billing-nightly', 1)], 'key-billing');
  s.checkpointer = new SQLiteCheckpointer(path.join(s.dir, 'local.db'));
  s.server = await startUiServer({
    host: '127.0.0.1',
    port: 0,
    checkpointer: s.checkpointer,
    traceStore: new ProjectTraceStore(s.platform, 'support', { dbPath: path.join(s.dir, 'local.db') }),
    evalStore: new EvalStore({ runStore: new ProjectEvalRuns(s.platform, 'support') }),
    project: 'support',
    webDir,
    auth: { mode: 'none' },
  });
  s.browser = await launchChromium();
});

test.after(async (s) => {
  await s.browser?.close();
  await s.server?.close();
  await s.checkpointer?.close();
  await s.platform?.close();
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

test("traces: the project's traces only, a search, one trace's waterfall and span; another project's id is not found", async (s) => {
  const { context, page, errors } = await newPage(s.browser, { allow: /404/ });
  await page.goto(`${s.server.url}/traces`);
  const rows = page.locator('.vbody [role="row"]');
  await rows.first().waitFor();
  assert.is(await rows.count(), 2, "support's two traces, not billing's");
  const listed = (await page.locator('.vbody').textContent()) ?? '';
  assert.match(listed, /agent\.support/);
  assert.not.match(listed, /c0ffee/);
  assert.is(await page.locator('.badge-project').textContent(), 'project support', 'the header names the project');
  await screenshot(page, 'traces-project');

  await page.locator('[data-search]').fill('oslo');
  await page.keyboard.press('Enter');
  await page.waitForURL(/q=oslo/);
  await page.waitForFunction(() => document.querySelectorAll('.vbody [role="row"]').length === 1);

  await page.goto(`${s.server.url}/traces/${REFUND}`);
  const spans = page.getByRole('treeitem');
  await spans.first().waitFor();
  assert.is(await spans.count(), 3, 'agent, model and tool spans');
  await spans.filter({ hasText: 'tool.lookup_order' }).first().click();
  await page.waitForURL(/span=/);
  await page.locator('.detail h2').filter({ hasText: 'tool.lookup_order' }).waitFor();
  assert.match((await page.locator('.detail').textContent()) ?? '', /Refund order 7/);
  await screenshot(page, 'trace-project');

  await page.goto(`${s.server.url}/traces/${BILLING}`);
  await page
    .getByText(/not found/i)
    .first()
    .waitFor();
  assert.equal(
    errors.filter((e) => !/404/.test(e)),
    [],
  );
  await context.close();
});

test("evals: the project's exported run only, with its verdicts", async (s) => {
  const { context, page, errors } = await newPage(s.browser);
  await page.goto(`${s.server.url}/evals`);
  await page.getByText('release-1.5').first().waitFor();
  assert.not.match((await page.locator('main').textContent()) ?? '', /billing-nightly/);
  await screenshot(page, 'evals-project');
  assert.equal(errors, []);
  await context.close();
});

test.run();
