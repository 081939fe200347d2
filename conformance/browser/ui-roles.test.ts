/// <reference lib="dom" />
/**
 * Users and roles in Chromium (issue 50): a viewer sees no Approve, Reject, favorite or fork buttons; approvers
 * decide as themselves (the dialog says who is recorded; no name field), and the approvals history and the
 * execution page show who, when and why; Approve and Reject are disabled, with the reason, on a run whose runner this
 * UI does not have; a user removed while signed in lands on the login page at the next load.
 *
 * Screenshots: see ./browser-harness.ts.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { assertBrowserReady, launchChromium, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { Chain } from '../../src/chain/chain.js';
import { interrupt } from '../../src/durability/interrupt.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { newAuthFile, readAuthFile, writeAuthFile } from '../../src/ui/auth-file.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';
import { addUser, removeUser } from '../../src/ui/users.js';

const PASSWORD = 'correct horse';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  authPath: string;
  checkpointer: SQLiteCheckpointer;
  server: RunningUiServer;
  paused: string[];
  orphan: string;
  trace: string;
}

const test = suite<State>('local UI roles in Chromium', { timeoutMs: 60_000, state: {} as State });

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-roles-'));
  const db = path.join(s.dir, '.agentkit', 'local.db');
  s.checkpointer = new SQLiteCheckpointer(db);
  const chain = approvalChain(s.checkpointer);
  s.paused = [];
  for (let i = 0; i < 2; i++) s.paused.push((await chain.run({ amount: 100 * (i + 1) })).execution_id);
  // A paused run of a chain this UI has no runner for.
  const payout = new Chain('payout', { checkpointer: s.checkpointer });
  payout.addNode('review', () => ({ approved: interrupt('payout_review', { vendor: 'ACME' }).approved }));
  s.orphan = (await payout.run()).execution_id;
  s.trace = (await weatherAgent({ traceDb: db }).run('What is the weather in Oslo?')).trace_id!;

  let auth = await newAuthFile('root', PASSWORD);
  for (const [name, role] of [
    ['alice', 'approver'],
    ['bob', 'approver'],
    ['vera', 'viewer'],
  ] as const) {
    auth = await addUser(auth, name, PASSWORD, role);
  }
  s.authPath = path.join(s.dir, '.agentkit', 'auth.json');
  await writeAuthFile(s.authPath, auth);
  s.server = await startUiServer({
    host: '127.0.0.1',
    port: 0,
    checkpointer: s.checkpointer,
    traceStore: new TraceStore({ dbPath: db }),
    runners: [chain],
    webDir,
    auth: { mode: 'password', file: auth, path: s.authPath },
  });
  s.browser = await launchChromium();
});

test.after(async (s) => {
  await s.browser?.close();
  await s.server?.close();
  await s.checkpointer?.close();
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

async function loginAs(page: Page, url: string, username: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.locator('.badge-role').waitFor();
}

test('a viewer reads every page but sees no Approve, Reject, favorite or fork buttons', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { allow: /401/ });
  await loginAs(page, s.server.url, 'vera');
  assert.is(await page.locator('.badge-role').textContent(), 'viewer');
  await page.goto(`${s.server.url}/approvals`);
  await page.locator(`tr[data-execution="${s.paused[0]}"]`).waitFor();
  assert.is(await page.locator('tr[data-execution]').count(), 3);
  assert.is(await page.getByRole('button', { name: 'Approve' }).count(), 0);
  assert.is(await page.getByRole('button', { name: 'Reject' }).count(), 0);
  assert.is(await page.getByText('Approvers decide').count(), 3);
  await screenshot(page, 'roles-viewer-approvals');

  await page.goto(`${s.server.url}/executions/${s.paused[0]}`);
  await page.getByRole('region', { name: 'Waiting for a decision' }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Approve' }).count(), 0);

  await page.goto(`${s.server.url}/traces`);
  await page.locator('.vbody [role="row"]').first().waitFor();
  assert.is(await page.getByRole('button', { name: /favorites/ }).count(), 0, 'no favorite star to click');
  await page.goto(`${s.server.url}/traces/${s.trace}`);
  await page.getByRole('treeitem').first().waitFor();
  assert.is(await page.getByRole('button', { name: /favorites/ }).count(), 0);
  await page.goto(`${s.server.url}/traces/${s.trace}/replay?step=0`);
  await page.getByText('Forking and rerunning need the admin role').waitFor();
  assert.is(await page.getByRole('button', { name: /^Fork at step/ }).count(), 0);
  assert.equal(errors, []);
  await context.close();
});

test('approvers decide as themselves; Approve is disabled with the reason where no runner is registered; the history shows who, when and why', async (s) => {
  const alice = await newPage(s.browser, { allow: /401/ });
  const bob = await newPage(s.browser, { allow: /401/ });
  await loginAs(alice.page, s.server.url, 'alice');
  await loginAs(bob.page, s.server.url, 'bob');
  const row = (page: Page, id: string) => page.locator(`tr[data-execution="${id}"]`);

  await alice.page.goto(`${s.server.url}/approvals`);
  await row(alice.page, s.orphan).waitFor();
  const orphanRow = row(alice.page, s.orphan);
  assert.ok(await orphanRow.getByRole('button', { name: 'Approve' }).isDisabled());
  assert.ok(await orphanRow.getByRole('button', { name: 'Reject' }).isDisabled());
  assert.match((await orphanRow.textContent()) ?? '', /No runner registered for chain:payout: start the UI with --agent <file>:<attr> naming it\./);
  assert.ok(await row(alice.page, s.paused[0]!).getByRole('button', { name: 'Approve' }).isEnabled());
  await screenshot(alice.page, 'approvals-no-runner');

  await row(alice.page, s.paused[0]!).getByRole('button', { name: 'Approve' }).click();
  const dialog = alice.page.getByRole('dialog');
  assert.is(await dialog.locator('.decider').textContent(), 'alice');
  assert.is(await dialog.getByLabel(/Approver/).count(), 0, 'no name to type: the signed-in user decides');
  await dialog.getByLabel(/Reason/).fill('within budget');
  await screenshot(alice.page, 'approvals-dialog');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await alice.page.getByRole('status').filter({ hasText: 'the run is now completed' }).waitFor();

  await bob.page.goto(`${s.server.url}/executions/${s.paused[1]}`);
  const pause = bob.page.getByRole('region', { name: 'Waiting for a decision' });
  await pause.getByRole('button', { name: 'Reject' }).click();
  await bob.page
    .getByRole('dialog')
    .getByLabel(/Reason/)
    .fill('duplicate refund');
  await bob.page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
  await bob.page.getByRole('status').filter({ hasText: 'Resumed: the run is now completed' }).waitFor();
  const decisions = bob.page.getByRole('region', { name: 'Decisions' });
  await decisions.waitFor();
  assert.match((await decisions.textContent()) ?? '', /rejected.*by bob \(ui\).*duplicate refund/s);

  await alice.page.getByRole('link', { name: 'History' }).click();
  await alice.page.getByRole('heading', { name: 'Approvals history' }).waitFor();
  await row(alice.page, s.paused[1]!).waitFor();
  const texts = await alice.page.locator('tr[data-execution]').allTextContents();
  assert.is(texts.length, 2);
  assert.match(texts[0]!, /rejected.*bob \(ui\).*duplicate refund.*manager_approval/s);
  assert.match(texts[1]!, /approved.*alice \(ui\).*within budget.*manager_approval/s);
  await screenshot(alice.page, 'approvals-history');
  await row(alice.page, s.paused[0]!).getByRole('link').first().click();
  await alice.page.getByRole('region', { name: 'Decisions' }).filter({ hasText: 'by alice (ui)' }).waitFor();
  assert.equal(alice.errors, []);
  assert.equal(bob.errors, []);
  await alice.context.close();
  await bob.context.close();
});

test('a user removed while signed in is sent to the login page on the next load', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { allow: /401/ });
  await loginAs(page, s.server.url, 'vera');
  await page.goto(`${s.server.url}/approvals`);
  await page.getByRole('heading', { name: 'Approvals' }).waitFor();
  await writeAuthFile(s.authPath, removeUser((await readAuthFile(s.authPath))!, 'vera'));
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in to agentkit' }).waitFor();
  assert.equal(errors, []);
  await context.close();
});

test.run();
