/// <reference lib="dom" />
/**
 * The eval pages in a real Chromium (Debian's /usr/bin/chromium driven by playwright-core): two stored runs of the
 * same dataset (a good release and a worse one, gated), the runs list with gate outcomes and pass rates, one run's
 * cases with per-scorer verdicts and an errored case, a case's trace, the comparison of the two runs with the
 * regressed cases; the empty state, an unknown run, and an 800 px window. Any uncaught page error or unexpected
 * console error fails the run.
 *
 * Screenshots: see ./browser-harness.ts.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowserReady, launchChromium, login, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { support, supportV2 } from '../fixtures/evals/agents.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { newAuthFile } from '../../src/ui/auth-file.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  checkpointer: SQLiteCheckpointer;
  server: RunningUiServer;
  empty: RunningUiServer;
  emptyCheckpointer: SQLiteCheckpointer;
}

const QUESTIONS = [
  { input: 'What is 2+2?', expected_output: '4' },
  { input: 'What is 3+3?', expected_output: '6' },
  { input: 'Capital of France?', expected_output: 'Paris' },
  { input: 'Capital of Italy?', expected_output: 'Rome' },
  { input: 'Colour of the sky?', expected_output: 'Blue' },
  { input: 'boom once', expected_output: 'x' },
];

const test = suite<State>('local UI eval pages in Chromium', { timeoutMs: 60_000, state: {} as State });

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-evals-'));
  const db = path.join(s.dir, '.agentkit', 'local.db');
  s.checkpointer = new SQLiteCheckpointer(db);
  const gate = { failUnder: ['exact_match.pass_rate=0.8'] };
  await evaluate(support, QUESTIONS, ['exact_match'], { runName: 'release-1.4', datasetName: 'support-faq', dbPath: db, cwd: s.dir, gate });
  await evaluate(supportV2, QUESTIONS, ['exact_match'], { runName: 'release-1.5', datasetName: 'support-faq', dbPath: db, cwd: s.dir, gate });
  const auth = { mode: 'password' as const, file: await newAuthFile('admin', 'correct horse') };
  s.server = await startUiServer({ host: '127.0.0.1', port: 0, checkpointer: s.checkpointer, traceStore: new TraceStore({ dbPath: db }), webDir, auth });
  const emptyDb = path.join(s.dir, 'empty', 'local.db');
  s.emptyCheckpointer = new SQLiteCheckpointer(emptyDb);
  s.empty = await startUiServer({
    host: '127.0.0.1',
    port: 0,
    checkpointer: s.emptyCheckpointer,
    traceStore: new TraceStore({ dbPath: emptyDb }),
    webDir,
    auth: { mode: 'none' },
  });
  s.browser = await launchChromium();
});

test.after(async (s) => {
  await s.browser?.close();
  await s.server?.close();
  await s.empty?.close();
  await s.checkpointer?.close();
  await s.emptyCheckpointer?.close();
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

test('evals: the runs list, one run with its cases and a case trace, two runs compared', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { height: 900, allow: /401/ });
  await login(page, s.server.url);
  assert.is(await page.locator('.counts > div').filter({ hasText: 'Eval runs, last 7 d' }).locator('dd').textContent(), '2');
  assert.is(await page.locator('table.recent-evals tbody tr').count(), 2);
  await page.getByRole('link', { name: 'Evals', exact: true }).click();
  await page.getByRole('heading', { name: 'Eval runs' }).waitFor();
  const rows = page.locator('tr[data-run]');
  await rows.first().waitFor();
  assert.is(await rows.count(), 2);
  assert.match((await rows.nth(0).textContent()) ?? '', /release-1\.5.*support-faq.*failed.*exact_match 60\.0%/);
  assert.match((await rows.nth(1).textContent()) ?? '', /release-1\.4.*passed.*exact_match 100\.0%/);
  await screenshot(page, 'evals');

  await rows.nth(0).getByRole('link', { name: 'release-1.5' }).click();
  await page.getByRole('heading', { name: /release-1\.5/ }).waitFor();
  const cases = page.locator('tr[data-case]');
  await cases.first().waitFor();
  assert.is(await cases.count(), 6);
  assert.match((await cases.nth(0).textContent()) ?? '', /What is 2\+2\?.*4.*I am not sure.*failed.*exact_match/);
  assert.match((await cases.nth(2).textContent()) ?? '', /Capital of France\?.*Paris.*passed/);
  assert.match((await cases.nth(5).textContent()) ?? '', /error: .*provider unavailable/);
  assert.match((await page.locator('.checks').textContent()) ?? '', /exact_match\.pass_rate=0\.6 >= 0\.8: FAIL/);
  await screenshot(page, 'evals-run');
  await cases.nth(2).getByRole('link').click();
  await page.getByRole('treeitem').first().waitFor();
  assert.match(new URL(page.url()).pathname, /^\/traces\/[0-9a-f]{32}$/);

  await page.goto(`${s.server.url}/evals`);
  await page.getByRole('button', { name: 'Compare' }).click();
  await page.getByRole('heading', { name: /Compare eval runs/ }).waitFor();
  assert.match(new URL(page.url()).search, /baseline=[0-9a-f]+&candidate=[0-9a-f]+/);
  assert.match((await page.locator('h1').textContent()) ?? '', /regressed/);
  await page.getByRole('heading', { name: 'Regressed (2)' }).waitFor();
  assert.match((await page.locator('table.flipped-failed').textContent()) ?? '', /What is 2\+2\?.*What is 3\+3\?/);
  await page.getByRole('heading', { name: 'Improved (0)' }).waitFor();
  assert.match((await page.locator('.counts').textContent()) ?? '', /100\.0% → 60\.0%/);
  await screenshot(page, 'evals-compare', true);
  assert.equal(errors, []);
  await context.close();
});

test('evals: the empty state, an unknown run, and an 800 px window', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { height: 900, width: 800, allow: /401|404/ });
  await page.goto(`${s.empty.url}/evals`);
  await page.getByText('No eval runs yet.').waitFor();
  await page.goto(`${s.empty.url}/evals/no-such-run`);
  await page.getByRole('alert').filter({ hasText: "Eval run 'no-such-run' not found" }).waitFor();
  await login(page, s.server.url);
  await page.goto(`${s.server.url}/evals`);
  const first = page.locator('tr[data-run]').first();
  await first.waitFor();
  const runId = await first.getAttribute('data-run');
  await page.goto(`${s.server.url}/evals/${runId}`);
  await page.locator('tr[data-case]').first().waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal page scrolling at 800 px (overflow ${overflow})`);
  assert.equal(errors, []);
  await context.close();
});

test.run();
