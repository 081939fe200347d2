/// <reference lib="dom" />
/**
 * The replay page in a real Chromium (Debian's /usr/bin/chromium driven by playwright-core): log in, open a trace,
 * open its replay, fork at the tool step, change the input and an LLM parameter, rerun while the tool is held (the
 * spans that ended already show up before the run finishes), see the side-by-side comparison with the diverging step
 * highlighted, save as test (the JSONL line is on disk under the UI's project directory); a fork the process does
 * not know shows an error; the page stays usable at 800 px. Any uncaught page error or unexpected console error
 * fails the run.
 *
 * Screenshots: see ./browser-harness.ts.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowserReady, launchChromium, login, newPage, screenshot, webDir } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { forecaster, Gate } from '../fixtures/ui/forecaster.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { newAuthFile } from '../../src/ui/auth-file.js';
import { startUiServer, type RunningUiServer } from '../../src/ui/server.js';

interface State extends Record<string, unknown> {
  browser: Browser;
  dir: string;
  checkpointer: SQLiteCheckpointer;
  server: RunningUiServer;
  gate: Gate;
  trace: string;
}

const test = suite<State>('local UI replay page in Chromium', { timeoutMs: 60_000, state: {} as State });

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-ui-replay-'));
  const db = path.join(s.dir, '.agentkit', 'local.db');
  s.checkpointer = new SQLiteCheckpointer(db);
  s.gate = new Gate();
  const agent = forecaster(s.gate, db);
  s.trace = (await agent.run('What is the weather in Oslo?')).trace_id!;
  s.server = await startUiServer({
    host: '127.0.0.1',
    port: 0,
    checkpointer: s.checkpointer,
    traceStore: new TraceStore({ dbPath: db }),
    runners: [agent],
    webDir,
    projectDir: s.dir,
    auth: { mode: 'password', file: await newAuthFile('admin', 'correct horse') },
  });
  s.browser = await launchChromium();
});

test.after(async (s) => {
  s.gate?.opened();
  await s.browser?.close();
  await s.server?.close();
  await s.checkpointer?.close();
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

test('replay: fork at the tool step, change input and temperature, rerun with spans arriving live, compare, save as test', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { height: 900, allow: /401/ });
  await login(page, s.server.url);
  await page.goto(`${s.server.url}/traces/${s.trace}`);
  await page.getByRole('link', { name: 'Replay…' }).click();
  await page.getByRole('heading', { name: /^Replay: / }).waitFor();
  assert.is(new URL(page.url()).pathname, `/traces/${s.trace}/replay`);
  const steps = page.getByRole('list', { name: 'Steps' }).getByRole('button');
  await steps.first().waitFor();
  assert.ok((await steps.count()) >= 3, 'agent, llm and tool steps');

  // Keyboard: the tool step is reachable with Tab and selected with Enter.
  const toolStep = steps.filter({ hasText: 'tool.get_weather' });
  await toolStep.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/step=\d+/);
  const stepIndex = Number(new URL(page.url()).searchParams.get('step'));
  await page.getByRole('button', { name: `Fork at step ${stepIndex}` }).click();
  await page.waitForURL(/fork=/);
  const fork = page.getByRole('region', { name: 'Fork' });
  await fork.getByRole('heading', { name: new RegExp(`Fork at step ${stepIndex}`) }).waitFor();
  assert.is(await fork.getByLabel('Input').inputValue(), 'What is the weather in Oslo?', 'the input starts as recorded');
  await fork.getByLabel('Input').fill('What is the weather in Bergen?');
  await fork.getByLabel('temperature').fill('0.2');

  // Hold the tool: the rerun's first spans must show before it can finish.
  s.gate.close();
  await fork.getByRole('button', { name: 'Rerun' }).click();
  const live = page.locator('.rerun');
  await live.locator('.status-running').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.rerun .steps li').length >= 1);
  assert.match((await live.textContent()) ?? '', /running/, 'still running while spans are shown');
  const early = await live.locator('.steps li').allTextContents();
  assert.ok(!early.some((t) => t.includes('agent.forecaster')), `the agent span ends last: ${JSON.stringify(early)}`);
  s.gate.opened();
  await live.getByText(/diverged at step \d+/).waitFor();
  const diverged = page.locator('.rerun .step.diverged');
  assert.is(await diverged.count(), 2, 'the diverging step is highlighted on both sides');
  assert.match((await page.locator('.rerun').textContent()) ?? '', /It is 16 degrees in Bergen\./);
  assert.match((await page.locator('.rerun').textContent()) ?? '', /It is 14 degrees in Oslo\./);
  assert.match((await fork.locator('legend').first().textContent()) ?? '', /"temperature":0.2/);

  await fork.getByRole('button', { name: 'Save as test' }).click();
  const saved = page.getByRole('status').filter({ hasText: 'Saved as a regression test to' });
  await saved.waitFor();
  const file = path.join(s.dir, '.agentkit', 'regression_tests.jsonl');
  assert.match((await saved.textContent()) ?? '', new RegExp(file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  assert.is(lines.length, 1);
  const record = JSON.parse(lines[0]!) as Record<string, string>;
  assert.equal(
    { ...record, created_at: null },
    { input: 'What is the weather in Bergen?', expected_output: 'It is 16 degrees in Bergen.', trace_id: s.trace, created_at: null },
  );
  await screenshot(page, 'replay', true);
  assert.equal(errors, []);
  await context.close();
});

test('replay: an unknown fork says so; the page has no horizontal scrolling at 800 px', async (s) => {
  const { context, page, errors } = await newPage(s.browser, { height: 900, width: 800, allow: /401|404/ });
  await login(page, s.server.url);
  await page.goto(`${s.server.url}/traces/${s.trace}/replay?fork=gone`);
  await page.getByRole('alert').filter({ hasText: "Fork 'gone' not found" }).waitFor();
  await page.getByRole('button', { name: 'Back to the steps' }).click();
  await page.getByRole('button', { name: /^Fork at step 0$/ }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 800 px (overflow ${overflow})`);
  await page.goto(`${s.server.url}/traces/0123456789abcdef0123456789abcdef/replay`);
  await page.getByRole('alert').filter({ hasText: 'not found' }).waitFor();
  assert.equal(errors, []);
  await context.close();
});

test.run();
