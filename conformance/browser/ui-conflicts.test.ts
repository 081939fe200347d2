/// <reference lib="dom" />
/**
 * Offline decisions the Platform refused (docs/adr/0054, issue 37) in the local UI: the approvals inbox and the
 * execution page show each conflict with the Platform's reason, and the JSON routes carry them as `conflicts`. The
 * quarantine itself is produced end to end by conformance/scenarios/connected-arbitration.test.ts; here the store is
 * given one (a decided run whose decision row is marked refused), as the drain would leave it.
 *
 * Screenshots: see ./browser-harness.ts.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowserReady, launchChromium, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { isDecisionRow } from '../../src/durability/decision.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';

const REASON = 'conflict: decided by alice (sdk) on host-b at 2026-11-28T16:19:40.003Z';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  checkpointer: SQLiteCheckpointer;
  server: RunningUiServer;
  decided: string;
  pending: string;
}

const test = suite<State>('local UI: decision conflicts in Chromium', { timeoutMs: 60_000, state: {} as State });

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-conflicts-'));
  const db = path.join(s.dir, '.agentkit', 'local.db');
  s.checkpointer = new SQLiteCheckpointer(db);
  const chain = approvalChain(s.checkpointer);
  s.decided = (await chain.run({ amount: 120 }, { executionId: 'refund-42' })).execution_id;
  await chain.resume(s.decided, { resumeValue: { approved: false, metadata: {} }, approver: 'bob', offlineDecision: true });
  const decision = (await s.checkpointer.list(s.decided, { limit: 100 })).find(isDecisionRow)!;
  assert.is(await s.checkpointer.markQuarantined({ [decision.checkpoint_id]: REASON }), 1);
  s.pending = (await chain.run({ amount: 300 })).execution_id;
  s.server = await startUiServer({
    host: '127.0.0.1',
    port: 0,
    checkpointer: s.checkpointer,
    traceStore: new TraceStore({ dbPath: db }),
    runners: [chain],
    webDir,
    auth: { mode: 'none' },
  });
  s.browser = await launchChromium();
});

test.after(async (s) => {
  await s.browser?.close();
  await s.server?.close();
  await s.checkpointer?.close();
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

test("the routes carry the conflicts: the inbox lists the store's, the execution its own", async (s) => {
  const inbox = (await (await fetch(`${s.server.url}/api/pending-interrupts`)).json()) as { count: number; conflicts: Array<Record<string, unknown>> };
  assert.is(inbox.count, 1);
  assert.equal(
    inbox.conflicts.map((c) => [c.execution_id, c.node_id, c.step_type, c.reason]),
    [['refund-42', 'approval', 'resume', REASON]],
  );
  const execution = (await (await fetch(`${s.server.url}/api/executions/refund-42`)).json()) as { conflicts: unknown[] };
  assert.is(execution.conflicts.length, 1);
  const other = (await (await fetch(`${s.server.url}/api/executions/${s.pending}`)).json()) as { conflicts: unknown[] };
  assert.equal(other.conflicts, [], 'another execution has none');
});

test("the approvals inbox and the execution page show the conflict with the Platform's reason", async (s) => {
  const { context, page, errors } = await newPage(s.browser);
  await page.goto(`${s.server.url}/approvals`);
  const notice = page.getByRole('region', { name: 'Decision conflicts' });
  await notice.waitFor();
  const text = ((await notice.textContent()) ?? '').replace(/\s+/g, ' ');
  assert.ok(text.includes('1 offline decision refused by the Platform'), text);
  assert.ok(text.includes(`refund-42 at approval: ${REASON}`), text);
  assert.is(await page.locator('tr[data-execution]').count(), 1, 'the pending run is still offered');
  await screenshot(page, 'approvals-decision-conflict');

  await notice.getByRole('link', { name: 'refund-42' }).click();
  await page.getByRole('heading', { name: /Execution refund-42/ }).waitFor();
  const onPage = ((await page.getByRole('region', { name: 'Decision conflicts' }).textContent()) ?? '').replace(/\s+/g, ' ');
  assert.ok(onPage.includes(REASON), onPage);
  await screenshot(page, 'execution-decision-conflict');
  assert.equal(errors, [], 'no page or console errors');
  await context.close();
});

test.run();
