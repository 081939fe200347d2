/// <reference lib="dom" />
/**
 * A browser app on another origin calls the served agent (docs/adr/0057): a page served from one loopback port, in
 * Debian's Chromium, calls `agent serve --cors-origin <that origin> --auth-token ...` on another with the token,
 * `POST /run` and `POST /run/stream`, the stream read with eventsource-parser (loaded into the page as the module it
 * ships) dispatching each event to named listeners: every event arrives under its name and `done` is last. The same
 * page calling an agent started without `--cors-origin` is refused by the browser.
 */
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { assertBrowserReady, launchChromium, newPage } from '../../test-support/browser.js';
import { suite } from '../../test-support/uvu.js';
import { startCli, type CliProcess } from '../harness/cli-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PARSER_DIR = path.join(root, 'node_modules/eventsource-parser/dist');
const TOKEN = 'tok-browser';

interface State extends Record<string, unknown> {
  dir: string;
  browser: Browser;
  page: Page;
  errors: string[];
  pageServer: http.Server;
  origin: string;
  withCors: string;
  withoutCors: string;
  processes: CliProcess[];
}

const test = suite<State>('served agent called from a page on another origin', { timeoutMs: 90_000, state: {} as State });

/** The page's origin: an HTML page and eventsource-parser's own ESM files, nothing else. */
async function startPageServer(): Promise<http.Server> {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><p>app</p>');
      return;
    }
    const file = /^\/eventsource-parser\/([a-z]+\.js)$/.exec(url.pathname)?.[1];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(path.join(PARSER_DIR, file)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function serveAgent(s: State, extra: string[]): Promise<string> {
  const fixture = JSON.stringify(pathToFileURL(path.join(root, 'conformance/fixtures/serving/runners.ts')).href);
  await writeFile(path.join(s.dir, 'runners.mts'), `import { weatherAgent } from ${fixture};\nexport const weather = () => weatherAgent();\n`);
  const proc = startCli(['agent', 'serve', 'runners.mts:weather', '--port', '0', '--host', '127.0.0.1', '--no-recover', '--auth-token', TOKEN, ...extra], {
    cwd: s.dir,
    env: { AGENTKIT_LOCAL_DB: path.join(s.dir, 'local.db') },
  });
  s.processes.push(proc);
  const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 60_000);
  return url!;
}

test.before(async (s) => {
  assertBrowserReady();
  s.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-serve-cors-'));
  s.processes = [];
  s.pageServer = await startPageServer();
  s.origin = `http://127.0.0.1:${(s.pageServer.address() as AddressInfo).port}`;
  s.withCors = await serveAgent(s, ['--cors-origin', s.origin]);
  s.withoutCors = await serveAgent(s, []);
  assert.match(s.processes[0]!.stderr(), new RegExp(`agentkit: CORS: pages on ${s.origin} may call this agent\\n`));
  s.browser = await launchChromium();
  // The refused calls log CORS errors in the console: expected here, and asserted on below.
  ({ page: s.page, errors: s.errors } = await newPage(s.browser, { allow: /CORS policy|Failed to load resource|ERR_FAILED/ }));
  await s.page.goto(`${s.origin}/`);
});

test.after(async (s) => {
  await s.browser?.close();
  for (const proc of s.processes ?? []) proc.kill();
  await new Promise((resolve) => s.pageServer?.close(resolve));
  if (s.dir) await rm(s.dir, { recursive: true, force: true });
});

/**
 * The page's script: fetch `/run` (with and without the token) and `/run/stream`, reading the stream with the page's
 * own copy of eventsource-parser and dispatching each event to the listener registered for its name, as an
 * EventSource does. Plain JavaScript in a string: the test runner's transform would add helpers the page lacks.
 */
const PAGE_SCRIPT = `async ({ agent, token }) => {
  const { createParser } = await import('/eventsource-parser/index.js');
  const headers = { 'content-type': 'application/json', authorization: 'Bearer ' + token };
  const outcome = { named: [], order: [] };
  try {
    const response = await fetch(agent + '/run', { method: 'POST', headers, body: JSON.stringify({ input: 'weather in Oslo' }) });
    outcome.run = { status: response.status, body: await response.json() };
    const refused = await fetch(agent + '/run', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":"x"}' });
    outcome.unauthorized = { status: refused.status, body: await refused.json() };
  } catch (error) {
    outcome.runError = String(error);
  }
  try {
    const response = await fetch(agent + '/run/stream', { method: 'POST', headers, body: JSON.stringify({ input: 'weather in Lima' }) });
    const target = new EventTarget();
    for (const name of ['delta', 'tool_call', 'paused', 'error', 'done']) {
      target.addEventListener(name, (event) => outcome.named.push(name + ':' + JSON.parse(event.data).type));
    }
    const parser = createParser({
      onEvent(message) {
        outcome.order.push(message.event ?? 'message');
        target.dispatchEvent(new MessageEvent(message.event ?? 'message', { data: message.data }));
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } catch (error) {
    outcome.streamError = String(error);
  }
  return outcome;
}`;

interface PageOutcome {
  run?: { status: number; body: { output: string; status: string } };
  unauthorized?: unknown;
  runError?: string;
  streamError?: string;
  named: string[];
  order: string[];
}

/** What the page sees of its calls of `agent`. */
function callFromPage(page: Page, agent: string, token: string): Promise<PageOutcome> {
  return page.evaluate(`(${PAGE_SCRIPT})(${JSON.stringify({ agent, token })})`) as Promise<PageOutcome>;
}

test('with --cors-origin the page calls /run and /run/stream with its token; named listeners fire, done last', async (s) => {
  const outcome = await callFromPage(s.page, s.withCors, TOKEN);
  assert.is(outcome.runError, undefined);
  const run = outcome.run!;
  assert.equal([run.status, run.body.output, run.body.status], [200, 'It is 14 degrees in Oslo.', 'completed']);
  assert.equal(
    outcome.unauthorized,
    { status: 401, body: { detail: 'Missing or invalid bearer token.', code: 'unauthorized' } },
    'the page reads the error body',
  );
  assert.is(outcome.streamError, undefined);
  assert.ok(outcome.named.length >= 3, JSON.stringify(outcome));
  for (const entry of outcome.named) {
    const [name, type] = entry.split(':');
    assert.is(name, type, 'each listener got the event of its name');
  }
  assert.ok(outcome.named.includes('tool_call:tool_call'));
  assert.is(outcome.order.at(-1), 'done');
  assert.is(outcome.order.filter((name) => name === 'done').length, 1);
  assert.not.ok(outcome.order.includes('message'), 'no unnamed event');
  assert.equal(s.errors, []);
});

test('without --cors-origin the browser refuses the same calls', async (s) => {
  const outcome = await callFromPage(s.page, s.withoutCors, TOKEN);
  assert.match(String(outcome.runError), /TypeError: Failed to fetch/);
  assert.match(String(outcome.streamError), /TypeError: Failed to fetch/);
  assert.equal(outcome.order, []);
});

test.run();
