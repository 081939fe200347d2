/// <reference lib="dom" />
/**
 * The replay page on the quickstart's refund that paused for approval and was approved (issue 48, docs/adr/0059), in
 * a real Chromium: the pause's and the resume's traces read as one sequence with the decision where it was applied;
 * a fork at the model step with a new prompt (recorded mode) reaches the same decision without running the refund;
 * a fork with a new input, live, side effects allowed, pauses again and the page says so. Any uncaught page error or
 * unexpected console error fails the run; the traces list then shows the paused rerun as "paused". Screenshots:
 * ui-replay-paused.png, ui-traces-paused.png (see test-support/browser.ts).
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowserReady, launchChromium, login, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import type { Agent } from '../../src/index.js';
import { TraceStore } from '../../src/tracing/index.js';
import { newAuthFile } from '../../src/ui/auth-file.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';
import type { Checkpointer } from '../../src/durability/checkpointer.js';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  server: RunningUiServer;
  support: Agent;
  pause: string;
  saved: string | undefined;
}

const test = suite<State>('local UI replay of a paused run in Chromium', { timeoutMs: 90_000, state: {} as State });

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-replay-paused-'));
  const db = path.join(s.dir, '.agentkit', 'local.db');
  // The quickstart's checkpointer and traces follow AGENTKIT_LOCAL_DB, read when the module is imported.
  s.saved = process.env.AGENTKIT_LOCAL_DB;
  process.env.AGENTKIT_LOCAL_DB = db;
  delete process.env.OPENAI_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  s.support = (await import('../../examples/quickstart-agent.js')).support as unknown as Agent;
  const paused = await s.support.run('Please refund order 42 in full.');
  assert.is(paused.status, 'paused');
  s.pause = paused.trace_id!;
  const resumed = await s.support.resume(paused.execution_id, {
    resumeValue: { approved: true, metadata: { approver: 'alice' } },
    approver: 'alice',
    surface: 'ui',
  });
  assert.is(resumed.status, 'completed');
  s.server = await startUiServer({
    host: '127.0.0.1',
    port: 0,
    checkpointer: s.support.checkpointer as Checkpointer,
    traceStore: new TraceStore({ dbPath: db }),
    runners: [s.support],
    webDir,
    projectDir: s.dir,
    auth: { mode: 'password', file: await newAuthFile('admin', 'correct horse') },
  });
  s.browser = await launchChromium();
});

test.after(async (s) => {
  await s.browser?.close();
  await s.server?.close();
  await (s.support?.checkpointer as Checkpointer | null)?.close();
  if (s.saved === undefined) delete process.env.AGENTKIT_LOCAL_DB;
  else process.env.AGENTKIT_LOCAL_DB = s.saved;
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

test('one sequence with the decision; a recorded fork reaches it without the refund; a live fork pauses again', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { height: 1000, allow: /401/ });
  await login(page, s.server.url);
  await page.goto(`${s.server.url}/traces/${s.pause}/replay`);
  await page.getByRole('heading', { name: /^Replay: agent\.support/ }).waitFor();
  const execution = page.locator('.execution-note');
  assert.match((await execution.textContent()) ?? '', /its 2 traces/);
  const steps = page.getByRole('list', { name: 'Steps' }).first().getByRole('button');
  assert.is(await steps.count(), 9, 'the pause and the resume, one sequence');
  assert.match((await steps.nth(5).textContent()) ?? '', /tool\.refund.*paused: refund_approval/);
  assert.match((await steps.nth(7).textContent()) ?? '', /tool\.refund.*decision: approved by alice \(ui\)/);

  // Fork at the model step with a new prompt, recorded mode: the refund is answered from the trace.
  await steps.nth(2).click();
  await page.getByRole('button', { name: 'Fork at step 2' }).click();
  await page.waitForURL(/fork=/);
  const fork = page.getByRole('region', { name: 'Fork' });
  await fork.getByRole('textbox', { name: /System prompt/ }).fill('You are a polite support desk.');
  await fork.getByRole('button', { name: 'Rerun' }).click();
  const rerun = page.locator('.rerun');
  await rerun.getByText('diverged at step 2').waitFor();
  assert.match((await rerun.textContent()) ?? '', /Done: refunded 50 USD on order 42, approved by alice\./);
  assert.is(await rerun.locator('.rerun-paused').count(), 0);

  // A new fork: new input, live, side effects allowed: the refund runs, asks for approval, the rerun pauses.
  await page.goto(`${s.server.url}/traces/${s.pause}/replay?step=0`);
  await page.getByRole('button', { name: 'Fork at step 0' }).click();
  await page.waitForURL(/fork=/);
  const live = page.getByRole('region', { name: 'Fork' });
  await live.getByLabel('Input').fill('Please refund order 1001 in full.');
  await live.getByLabel('model answers').selectOption('live');
  await live.getByLabel(/allow side effects/).check();
  await live.getByRole('button', { name: 'Rerun' }).click();
  const notice = page.locator('.rerun-paused');
  await notice.waitFor();
  assert.match((await notice.textContent()) ?? '', /paused for a decision: refund_approval \{"order_id":"1001","amount":1200\}/);
  assert.match((await page.locator('.rerun h3').textContent()) ?? '', /paused/);
  await screenshot(page, 'replay-paused', true);

  // The traces list: the rerun that paused reads "paused"; the approved run's traces do not.
  await page.goto(`${s.server.url}/traces`);
  const rows = page.locator('.vrow');
  await rows.first().waitFor();
  const statuses = await rows.locator('.status').allTextContents();
  assert.is(statuses.filter((x) => x === 'paused').length, 1, JSON.stringify(statuses));
  await screenshot(page, 'traces-paused');
  assert.equal(errors, []);
  await context.close();
});

test.run();
