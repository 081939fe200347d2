/// <reference lib="dom" />
/**
 * The web app in a real Chromium (Debian's /usr/bin/chromium driven by playwright-core; never a downloaded browser):
 * login, overview, traces (search, favorite), a trace's waterfall and export dialog, the approvals inbox with two
 * browsers approving the same run (one succeeds, the other is told it was already handled; the node after the pause
 * ran once), the execution page, and the same pages with --no-auth. Any uncaught page error or failed API call that
 * the test did not expect fails the run. One Chromium is launched for the whole file.
 *
 * Screenshots: see ./browser-harness.ts.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { assertBrowserReady, launchChromium, login, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { startCounterServer, type CounterServer } from '../../test-support/counter-server.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { newAuthFile } from '../../src/ui/auth-file.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  counter: CounterServer;
  checkpointer: SQLiteCheckpointer;
  server: RunningUiServer;
  open: RunningUiServer;
  paused: string[];
  osloTrace: string;
}

const test = suite<State>('local UI in Chromium', { timeoutMs: 60_000, state: {} as State });

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-browser-'));
  const db = path.join(s.dir, '.agentkit', 'local.db');
  s.counter = await startCounterServer();
  s.checkpointer = new SQLiteCheckpointer(db);
  const chain = approvalChain(s.checkpointer, { counterUrl: s.counter.url });
  s.paused = [];
  for (let i = 0; i < 3; i++) s.paused.push((await chain.run()).execution_id);
  const agent = weatherAgent({ traceDb: db });
  s.osloTrace = (await agent.run('What is the weather in Oslo?')).trace_id!;
  await agent.run('What is the weather in Lisbon?');
  await agent.run('hello there');
  await agent.run('explode').catch(() => undefined);
  const common = { host: '127.0.0.1', port: 0, checkpointer: s.checkpointer, traceStore: new TraceStore({ dbPath: db }), runners: [chain], webDir };
  s.server = await startUiServer({ ...common, auth: { mode: 'password', file: await newAuthFile('admin', 'correct horse') } });
  s.open = await startUiServer({ ...common, auth: { mode: 'none' } });
  s.browser = await launchChromium();
});

test.after(async (s) => {
  await s.browser?.close();
  await s.server?.close();
  await s.open?.close();
  await s.checkpointer?.close();
  await s.counter?.close();
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

test('login: a wrong password is refused on the page, the right one opens the overview with its counts', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { allow: /401/ });
  await page.goto(`${s.server.url}/traces`);
  await page.getByRole('heading', { name: 'Sign in to agentkit' }).waitFor();
  await screenshot(page, 'login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill('not it');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Invalid username or password.' }).waitFor();
  await page.getByLabel('Password').fill('correct horse');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Back where the user was going.
  await page.getByRole('heading', { name: 'Traces' }).waitFor();
  assert.is(new URL(page.url()).pathname, '/traces');
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'agentkit_session')!;
  assert.ok(session.httpOnly);
  assert.is(session.sameSite, 'Strict');

  await page.getByRole('link', { name: 'Overview' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  const pending = page.locator('.counts > div').filter({ hasText: 'Pending approvals' }).locator('dd');
  assert.is(await pending.textContent(), String(s.paused.length));
  assert.is(await page.locator('.counts > div').filter({ hasText: 'Failing traces' }).locator('dd').textContent(), '1');
  assert.is(await page.locator('table.table tbody tr').count(), 4);
  // A trace id starts with a millisecond clock: the table shows its tail, which tells runs apart (issue 49).
  assert.is(await page.locator(`a[href="/traces/${s.osloTrace}"]`).last().textContent(), s.osloTrace!.slice(-8));
  await screenshot(page, 'overview');
  assert.equal(errors, []);
  await context.close();
});

test('traces: list, search from the query string, favorite, then the waterfall, a span and the export dialog', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { allow: /401/ });
  await login(page, s.server.url);
  await page.goto(`${s.server.url}/traces`);
  const rows = page.locator('.vbody [role="row"]');
  await rows.first().waitFor();
  assert.is(await rows.count(), 4);
  await page.keyboard.press('/');
  assert.ok(await page.locator('[data-search]').evaluate((el) => el === document.activeElement), '/ focuses search');
  await page.locator('[data-search]').fill('oslo');
  await page.keyboard.press('Enter');
  await page.waitForURL(/q=oslo/);
  await page.waitForFunction(() => document.querySelectorAll('.vbody [role="row"]').length === 1);
  await page.getByRole('button', { name: 'Add to favorites' }).click();
  await page.getByRole('button', { name: 'Remove from favorites' }).waitFor();
  await page.goto(`${s.server.url}/traces?favorites=true`);
  await page.waitForFunction(() => document.querySelectorAll('.vbody [role="row"]').length === 1);
  await page.goto(`${s.server.url}/traces`);
  await page.waitForFunction(() => document.querySelectorAll('.vbody [role="row"]').length === 4);
  await screenshot(page, 'traces');

  await page.goto(`${s.server.url}/traces/${s.osloTrace}`);
  const spans = page.getByRole('treeitem');
  await spans.first().waitFor();
  assert.ok((await spans.count()) >= 3, 'agent, llm and tool spans');
  await spans.filter({ hasText: 'tool.get_weather' }).first().click();
  await page.waitForURL(/span=/);
  await page.locator('.detail h2').filter({ hasText: 'tool.get_weather' }).waitFor();
  assert.match((await page.locator('.detail').textContent()) ?? '', /Oslo/);
  await screenshot(page, 'trace');

  await page.getByRole('button', { name: 'Export…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export trace' });
  await dialog.getByText(/\d+ spans, \d+ checkpoints/).waitFor();
  const download = page.waitForEvent('download');
  await dialog.getByRole('link', { name: 'Download JSON' }).click();
  assert.is((await download).suggestedFilename(), `trace-${s.osloTrace}.json`);
  await dialog.getByRole('button', { name: 'Close' }).click();
  assert.equal(errors, []);
  await context.close();
});

test('approvals: two browsers approve the same run; one resumes it, the other is told it was already handled', async (s) => {
  const alice = await newPage(s.browser, { allow: /401|409/ });
  const bob = await newPage(s.browser, { allow: /401|409/ });
  await login(alice.page, s.server.url);
  await login(bob.page, s.server.url);
  for (const { page } of [alice, bob]) {
    await page.goto(`${s.server.url}/approvals`);
    await page.locator(`tr[data-execution="${s.paused[0]}"]`).waitFor();
  }
  assert.is(await alice.page.locator('tr[data-execution]').count(), s.paused.length);
  await screenshot(alice.page, 'approvals');

  const row = (page: Page) => page.locator(`tr[data-execution="${s.paused[0]}"]`);
  await row(alice.page).getByRole('button', { name: 'Approve' }).click();
  const dialog = alice.page.getByRole('dialog');
  await dialog.getByLabel(/Reason/).fill('within budget');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await alice.page.getByRole('status').filter({ hasText: 'the run is now completed' }).waitFor();

  // Bob's page still shows the row: his approval loses the claim.
  await row(bob.page).getByRole('button', { name: 'Approve' }).click();
  await bob.page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
  await bob.page.getByRole('status').filter({ hasText: 'Already handled by someone else' }).waitFor();
  await row(bob.page).waitFor({ state: 'detached' });
  await screenshot(bob.page, 'approvals-conflict');
  assert.is(s.counter.count('/finalize'), 1, 'the node after the pause ran once');

  // Reject the second from the execution page.
  await alice.page.goto(`${s.server.url}/executions/${s.paused[1]}`);
  await alice.page.getByRole('region', { name: 'Waiting for a decision' }).waitFor();
  await alice.page.getByRole('region', { name: 'Waiting for a decision' }).getByRole('button', { name: 'Reject' }).click();
  await alice.page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
  await alice.page.getByRole('status').filter({ hasText: 'Resumed: the run is now completed' }).waitFor();
  const last = await s.checkpointer.getLast(s.paused[1]!);
  assert.is(last?.step_type, 'run_end');
  assert.equal(alice.errors, []);
  assert.equal(bob.errors, []);
  await alice.context.close();
  await bob.context.close();
});

test('execution: the checkpoint timeline with statuses, the state diff of a selected checkpoint', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { allow: /401/ });
  await login(page, s.server.url);
  await page.goto(`${s.server.url}/executions/${s.paused[0]}`);
  const steps = page.getByRole('list', { name: 'Checkpoints' }).getByRole('button');
  await steps.first().waitFor();
  const labels = await steps.allTextContents();
  assert.ok(labels.length >= 4, `seed, approval (paused), approval, finalize, run end: ${JSON.stringify(labels)}`);
  // The exactly-once start row is bookkeeping: labelled and dimmed, before the first real step.
  assert.match((await steps.nth(0).textContent()) ?? '', /run started/);
  assert.match((await steps.nth(0).getAttribute('class')) ?? '', /tl-bookkeeping/);
  assert.match((await steps.nth(1).textContent()) ?? '', /seed/);
  await page.locator('h1 .status').filter({ hasText: 'completed' }).waitFor();
  // Who decided is the signed-in user (the approvals test above approved it as admin), not a name typed in the dialog.
  const decisions = page.getByRole('region', { name: 'Decisions' });
  assert.match((await decisions.textContent()) ?? '', /approved.*by admin \(ui\).*within budget/s);
  // The execution knows its traces: the run's and the resume's through the UI (a chain is traced like an agent).
  const traces = page.getByRole('region', { name: 'Runs and resumes' }).getByRole('link');
  assert.is(await traces.count(), 2);
  assert.match((await traces.first().getAttribute('href')) ?? '', /^\/traces\/[0-9a-f]{32}$/);
  await steps.nth(1).click();
  await page.locator('.detail').getByText('amount').first().waitFor();
  await screenshot(page, 'execution');
  const missing = await page.goto(`${s.server.url}/executions/no-such-run`);
  assert.is(missing?.status(), 200);
  await page.getByRole('alert').filter({ hasText: "Execution 'no-such-run' not found" }).waitFor();
  assert.equal(
    errors.filter((e) => !/404/.test(e)),
    [],
  );
  await context.close();
});

test('--no-auth: the pages open without a login and say so; narrow windows keep the table usable', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { width: 800 });
  await page.goto(`${s.open.url}/traces`);
  await page.locator('.vbody [role="row"]').first().waitFor();
  assert.is(await page.getByText('no login').count(), 1);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 800 px (overflow ${overflow})`);
  await page.goto(`${s.open.url}/approvals`);
  await page.getByRole('heading', { name: 'Approvals' }).waitFor();
  await page.goto(`${s.open.url}/nowhere`);
  await page.getByRole('heading', { name: 'Not found' }).waitFor();
  assert.equal(errors, []);
  await context.close();
});

test.run();
