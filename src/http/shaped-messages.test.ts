import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import { suite } from '../../conformance/harness/uvu.js';
import { contractApp } from '../../conformance/fixtures/serving/contract-app.js';
import { listen } from './validated-app.js';
import { shapedMessageClasses } from './shaped-messages.js';

const test = suite('http: requests and responses born with the Express prototypes');

test("listen(): a request and its response have the app's prototypes before Express sees them, and are served as before", async () => {
  const app = contractApp((input) => `got ${input}`);
  const served = await listen(app, 0, '127.0.0.1');
  const seen: boolean[] = [];
  // Runs before Express's own listener: what the server built, untouched by Express.
  served.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push(Object.getPrototypeOf(req) === (app as unknown as { request: object }).request, Object.getPrototypeOf(res) === (app as unknown as { response: object }).response);
    seen.push(req instanceof IncomingMessage, res instanceof ServerResponse);
  });
  try {
    const run = await fetch(`${served.url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi' }) });
    assert.is(run.status, 200);
    assert.is(((await run.json()) as { output: string }).output, 'got hi');
    assert.equal(seen, [true, true, true, true]);
    // Validation, the 404 body and the health route behave as on Node's default server.
    const invalid = await fetch(`${served.url}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 5 }) });
    assert.is(invalid.status, 400);
    assert.match(await invalid.text(), /"code":"validation_failed"/);
    assert.is((await fetch(`${served.url}/health`)).status, 200);
    const missing = await fetch(`${served.url}/nope`);
    assert.is(missing.status, 404);
    assert.match(await missing.text(), /"code":"not_found"/);
  } finally {
    await new Promise((resolve) => served.server.close(resolve));
  }
});

test("an app whose prototypes do not inherit from Node's gets no shaped classes (Node's default server); an app is shaped once", () => {
  const app = express();
  const classes = shapedMessageClasses(app);
  assert.ok(classes, 'an Express app is shaped');
  assert.is((app as unknown as { request: object }).request, classes!.IncomingMessage.prototype);
  assert.is((app as unknown as { response: object }).response, classes!.ServerResponse.prototype);
  assert.is(shapedMessageClasses(app), classes, 'the same classes for a second server on the same app');
  const other = express();
  (other as unknown as { request: object }).request = {};
  assert.is(shapedMessageClasses(other), null);
});

/**
 * Two requests held in the same route at the same time, in a process that can ask V8 whether two objects share a hidden
 * class: on the shaped server they do; on Node's default server (Express re-parenting each request) they never do,
 * which is what made every inline cache over requests miss. Also whether the request and response still have fast
 * (not dictionary) properties, which objects built by a constructor of another prototype had lost.
 */
function sameShapes(shaped: boolean): Promise<boolean[]> {
  const script = `
    import http from 'node:http';
    import express from 'express';
    import { createShapedServer } from ${JSON.stringify(path.resolve('src/http/shaped-messages.ts'))};
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
    const fast = new Function('a', 'return %HasFastProperties(a)');
    const app = express();
    app.use(express.json());
    let held = null;
    app.post('/run', (req, res) => {
      if (!req.body.pair) return res.json({});
      if (!held) { held = { req, res }; return; }
      process.stdout.write(JSON.stringify([sameMap(req, held.req), sameMap(res, held.res), fast(req) && fast(res)]));
      held.res.json({});
      res.json({});
    });
    const server = ${shaped ? 'createShapedServer(app)' : 'http.createServer(app)'};
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = 'http://127.0.0.1:' + server.address().port + '/run';
    const post = (pair) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pair }) }).then((r) => r.text());
    for (let i = 0; i < 20; i++) await post(false);
    await Promise.all([post(true), post(true)]);
    server.close();
    server.closeAllConnections();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as boolean[]) : reject(new Error(err))));
  });
}

test('requests and responses share their hidden classes on the shaped server, and never on the default one', async () => {
  assert.equal(await sameShapes(true), [true, true, true], 'shaped server: the two requests and the two responses share maps, with fast properties');
  assert.equal(await sameShapes(false), [false, false, true], "Node's default server under Express: no two requests share a map");
}, 30_000);

test.run();
