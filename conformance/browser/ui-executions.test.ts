/// <reference lib="dom" />
/**
 * The executions page and the overview's recovery figures in a real Chromium (docs/adr/0050, 0051). The store is
 * made by the real mechanics: a child process runs three payouts of the live agent and is SIGKILLed inside them;
 * this process's sweeps then continue one (its payout idempotent here: `resumed`, attempt 1, by this process) and
 * park one (side-effecting: `needs_attention`), and leave the third orphaned; a completed run sits beside them. The
 * overview counts orphaned and parked executions and lists the recovery; `/executions` lists each execution's
 * state, attempts and reason, filters by state from the query string, and shows which process recovered what, when,
 * which attempt. Any uncaught page error or unexpected console error fails the run.
 *
 * Screenshots: see test-support/browser.ts (`ui-executions.png`, `ui-overview-recovery.png`).
 */
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowserReady, launchChromium, login, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { liveAgent } from '../fixtures/durability/live-run.js';
import { spawnNode } from '../harness/processes.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { Recoverer } from '../../src/recovery/recoverer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { newAuthFile } from '../../src/ui/auth-file.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  checkpointer: SQLiteCheckpointer;
  server: RunningUiServer;
}

const test = suite<State>('local UI executions page in Chromium', { timeoutMs: 120_000, state: {} as State });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.before(async (s) => {
  try {
    await setUp(s);
  } catch (error) {
    console.error(error);
    throw error;
  }
});

async function setUp(s: State): Promise<void> {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-executions-'));
  const db = path.join(s.dir, '.agentkit', 'local.db');
  const log = path.join(s.dir, 'live.log');
  s.checkpointer = new SQLiteCheckpointer(db);
  await s.checkpointer.setup();
  const refs = ['pay-recovered', 'pay-parked', 'pay-orphaned'];
  const child = spawnNode('conformance/fixtures/durability/live-run.ts', [JSON.stringify({ kind: 'sqlite', dbPath: db }), refs.join(',')], {
    env: { LIVE_LOG: log, LIVE_TOOL_MS: '60000' },
  });
  const inPayout = () => existsSync(log) && refs.every((ref) => readFileSync(log, 'utf8').includes(`payout ${ref} `));
  for (let i = 0; !inPayout(); i++) {
    if (i > 600) throw new Error(`the child never reached its payouts: ${child.stderr()}`);
    await sleep(50);
  }
  child.process.kill('SIGKILL');
  await child.exited;
  // This process continues one (its payout is idempotent here), parks one (side-effecting), leaves the third.
  process.env.LIVE_TOOL_MS = '1';
  process.env.LIVE_REPLAY_CLASS = 'idempotent';
  const idempotent = liveAgent(s.checkpointer);
  const started = await new Recoverer([idempotent]).sweep(new Set(['pay-parked', 'pay-orphaned']));
  assert.equal(
    (await Promise.all(started.started)).map((o) => o.outcome),
    ['completed'],
    JSON.stringify(started.decided),
  );
  delete process.env.LIVE_REPLAY_CLASS;
  const parked = await new Recoverer([liveAgent(s.checkpointer)]).sweep(new Set(['pay-orphaned']));
  assert.equal(
    parked.decided.map((o) => o.outcome),
    ['parked'],
  );
  await liveAgent(s.checkpointer).run('pay direct', { executionId: 'pay-direct' });
  const auth = { mode: 'password' as const, file: await newAuthFile('admin', 'correct horse') };
  s.server = await startUiServer({ host: '127.0.0.1', port: 0, checkpointer: s.checkpointer, traceStore: new TraceStore({ dbPath: db }), webDir, auth });
  s.browser = await launchChromium();
}

test.after(async (s) => {
  await s.browser?.close();
  await s.server?.close();
  await s.checkpointer?.close();
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

test('overview: orphaned and parked counts, the latest recovery with its process and attempt', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { height: 900, allow: /401/ });
  await login(page, s.server.url);
  const count = (label: string) => page.locator('.counts > div').filter({ hasText: label }).locator('dd').textContent();
  assert.is(await count('Orphaned executions'), '1');
  assert.is(await count('Needs attention'), '1');
  const recoveries = page.locator('table.recoveries tbody tr');
  await recoveries.first().waitFor();
  assert.is(await recoveries.count(), 2);
  const text = await page.locator('table.recoveries').textContent();
  assert.match(text ?? '', new RegExp(`${hostname()} pid ${process.pid}`));
  assert.match(text ?? '', /resumed/);
  assert.match(text ?? '', /needs attention|parked/);
  await screenshot(page, 'overview-recovery', true);
  await page.getByRole('link', { name: 'Orphaned executions' }).click();
  await page.getByRole('heading', { name: 'Executions' }).waitFor();
  assert.is(new URL(page.url()).search, '?state=orphaned');
  // The unfiltered list may show first: wait until the filtered one has replaced it.
  await page.waitForFunction(() => document.querySelectorAll('table.executions tbody tr').length === 1);
  assert.is(await page.locator('table.executions tbody tr').count(), 1);
  assert.match((await page.locator('table.executions tbody tr').textContent()) ?? '', /orphaned/);
  assert.equal(errors, []);
  await context.close();
});

test('executions: every state with attempts and reasons; recoveries say which process recovered what, when, which attempt', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { height: 900, allow: /40[01]/ });
  await login(page, s.server.url);
  await page.getByRole('link', { name: 'Executions', exact: true }).click();
  await page.getByRole('heading', { name: 'Executions' }).waitFor();
  const rows = page.locator('table.executions tbody tr');
  await rows.first().waitFor();
  assert.is(await rows.count(), 4);
  const byId = async (id: string) => (await rows.filter({ has: page.locator(`a[title="${id}"]`) }).textContent()) ?? '';
  assert.match(await byId('pay-recovered'), /completed/);
  assert.match(await byId('pay-parked'), /needs attention/);
  assert.match(await byId('pay-parked'), /crashed inside tool 'payout'/);
  assert.match(await byId('pay-orphaned'), /orphaned/);
  assert.match(await byId('pay-direct'), /completed/);
  const recovery = page.locator('table.recoveries tbody tr').filter({ hasText: 'resumed' });
  assert.match((await recovery.textContent()) ?? '', new RegExp(`pay-reco.*1.*resumed.*${hostname()} pid ${process.pid}`));
  assert.ok(await recovery.locator('time, [title]').first().isVisible());
  await screenshot(page, 'executions', true);
  await page.getByLabel('State').selectOption('needs_attention');
  await page.waitForURL(/\?state=needs_attention$/);
  // The unfiltered list (which holds the parked run too) may still show: wait until the filtered one has replaced it.
  await page.waitForFunction(() => document.querySelectorAll('table.executions tbody tr').length === 1);
  assert.is(await page.locator('table.executions tbody tr').count(), 1);
  assert.match((await page.locator('table.executions tbody tr').textContent()) ?? '', /needs attention/);
  await page.locator('table.executions a[title="pay-parked"]').click();
  await page.waitForURL(/\/executions\/pay-parked$/);
  // The API behind it: the session's, a bad state refused by the contract, none without a session.
  const listed = await page.evaluate(async () => (await fetch('/api/executions?state=orphaned')).json());
  assert.equal(
    (listed as { items: Array<{ execution_id: string }> }).items.map((item) => item.execution_id),
    ['pay-orphaned'],
  );
  assert.is(await page.evaluate(async () => (await fetch('/api/executions?state=lost')).status), 400);
  assert.is((await fetch(`${s.server.url}/api/executions`)).status, 401);
  assert.equal(errors, []);
  await context.close();
});

test.run();
