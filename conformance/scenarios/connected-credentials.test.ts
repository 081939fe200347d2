/**
 * Connected mode, credentials: `agentkit connect` verifies the key against the local Platform before writing a 0600
 * file in a 0700 folder; a refused key or an unreachable Platform writes nothing and exits 1; `auth status` shows the
 * source, target, project and the masked key; environment variables win over the file; `auth env` round-trips
 * through a real shell; `disconnect` removes the file. Plus the typed client's error per status and its retries.
 */
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parse } from 'smol-toml';
import { PlatformAuthError, PlatformClient, PlatformError, PlatformForbiddenError } from '../../src/platform/index.js';
import { BIN } from '../harness/cli.js';
import { conformance, startPlatform } from '../harness/index.js';

const area = conformance('connected: credentials and auth');
const KEY = 'ak_test_0123456789abcdef';

area.scenario(
  'connect writes a verified 0600 file; auth status masks the key; a bad key or a dead Platform writes nothing; disconnect removes it',
  { rows: ['cli:connect', 'cli:disconnect', 'cli:auth status', 'cli:auth env'], backends: 'none', surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    const env = { HOME: path.join(t.cwd, 'home') };
    const file = path.join(env.HOME, '.agentkit', 'credentials.toml');

    const bad = await t.cli(['connect', '--api-key-stdin', '--target', platform.url], { env, stdin: 'ak_wrong_key_999999\n' });
    assert.is(bad.code, 1, bad.stderr);
    assert.match(
      bad.stderr,
      /^error: connection failed: Invalid API key: the Platform at http:\/\/127\.0\.0\.1:\d+ refused it \(401\)\. Nothing was saved\.\n$/,
    );
    assert.not.ok(existsSync(file), 'a refused key writes nothing');

    const good = await t.cli(['connect', '--api-key-stdin', '--target', `${platform.url}/`, '--project', 'support'], { env, stdin: `${KEY}\n` });
    assert.is(good.code, 0, good.stderr);
    assert.is(good.stdout, `Connected to ${platform.url} (project: support). Credentials saved to ${file}\n`);
    assert.not.ok(good.stdout.includes(KEY) || good.stderr.includes(KEY));
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.is(statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.equal({ ...parse(readFileSync(file, 'utf8')) }, { api_key: KEY, target: platform.url, project: 'support' });
    assert.equal(await platform.read((s) => s.requests().map((r) => r.route)), ['GET /public/v1/auth/check'], 'verified first');

    const status = await t.cli(['auth', 'status'], { env });
    assert.is(status.code, 0);
    assert.is(status.stdout, `Connected (source: file, not verified)\nTarget: ${platform.url}\nProject: support\nAPI key: ak_tes…cdef\n`);
    const json = JSON.parse((await t.cli(['auth', 'status', '--json'], { env })).stdout);
    assert.equal(json, {
      connected: true,
      verified: null,
      source: 'file',
      target: platform.url,
      project: 'support',
      api_key: 'ak_tes…cdef',
      credentials_file: file,
    });

    // A failed reconnect leaves the saved file as it was.
    const before = readFileSync(file, 'utf8');
    await platform.stop();
    const dead = await t.cli(['connect', '--api-key', 'ak_other_key_1234567', '--target', platform.url, '--timeout', '2'], { env });
    assert.is(dead.code, 1);
    assert.match(
      dead.stderr,
      /^error: connection failed: Platform at http:\/\/127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\); could not check the API key\. Nothing was saved\.\n$/,
    );
    assert.is(readFileSync(file, 'utf8'), before);

    const gone = await t.cli(['disconnect'], { env });
    assert.is(gone.code, 0);
    assert.is(gone.stdout, `Disconnected: removed ${file}\n`);
    assert.not.ok(existsSync(file));
    const off = await t.cli(['auth', 'status'], { env });
    assert.is(off.code, 1);
    assert.is(off.stdout, 'Not connected\n');
    const noEnv = await t.cli(['auth', 'env'], { env });
    assert.is(noEnv.code, 1);
    assert.match(noEnv.stderr, /^error: not connected/);
  },
);

area.scenario(
  'environment variables win over the file field by field; auth env round-trips through a shell',
  { rows: ['cli:auth env', 'cli:auth status'], backends: 'none', surfaces: ['cli'], timeoutMs: 30_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    const home = path.join(t.cwd, 'home');
    assert.is((await t.cli(['connect', '--api-key', KEY, '--target', platform.url], { env: { HOME: home } })).code, 0);

    const fileOnly = await t.cli(['auth', 'env'], { env: { HOME: home } });
    assert.is(fileOnly.stdout, `export AGENTKIT_API_KEY='${KEY}'\nexport AGENTKIT_TARGET='${platform.url}'\n`);

    const tricky = `ak_env'key"$HOME\`x\`!`;
    const env = { HOME: home, AGENTKIT_API_KEY: tricky, AGENTKIT_PROJECT: 'from env' };
    const status = await t.cli(['auth', 'status'], { env });
    assert.is(
      status.stdout,
      `Connected (source: env, not verified)\nTarget: ${platform.url}\nProject: from env\nAPI key: ak_env…\`x\`!\n`,
      'env key and project, file target',
    );

    const exports = await t.cli(['auth', 'env'], { env });
    assert.is(exports.code, 0);
    const script = `${exports.stdout}\nprintf '%s\\n' "$AGENTKIT_API_KEY" "$AGENTKIT_TARGET" "$AGENTKIT_PROJECT"`;
    const echoed = execFileSync('/bin/sh', ['-c', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' }, encoding: 'utf8' });
    assert.is(echoed, `${tricky}\n${platform.url}\nfrom env\n`);

    const targetEnv = await t.cli(['auth', 'status', '--json'], { env: { HOME: home, AGENTKIT_TARGET: 'http://127.0.0.1:9/' } });
    assert.equal(JSON.parse(targetEnv.stdout).source, 'file');
    assert.equal(JSON.parse(targetEnv.stdout).target, 'http://127.0.0.1:9', 'env target wins over the file');
  },
);

area.scenario(
  'auth status --verify: a bogus key exits 1, a good one says verified; connect with no target given or configured exits 2',
  { rows: ['cli:auth status', 'cli:connect'], backends: 'none', surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    const home = path.join(t.cwd, 'home');

    const bogus = { HOME: home, AGENTKIT_API_KEY: 'bogus', AGENTKIT_TARGET: platform.url };
    const plain = await t.cli(['auth', 'status'], { env: bogus });
    assert.is(plain.code, 0, 'plain status only reads the credentials');
    assert.match(plain.stdout, /^Connected \(source: env, not verified\)\n/);
    const refused = await t.cli(['auth', 'status', '--verify'], { env: bogus });
    assert.is(refused.code, 1, refused.stderr);
    assert.match(refused.stdout, /^Not connected \(source: env\): the Platform did not accept the key\n/);
    assert.match(refused.stderr, /^error: Invalid API key: the Platform at http:\/\/127\.0\.0\.1:\d+ refused it \(401\)\n$/);
    const refusedJson = await t.cli(['auth', 'status', '--verify', '--json'], { env: bogus });
    assert.is(refusedJson.code, 1);
    assert.is(JSON.parse(refusedJson.stdout).verified, false);

    const good = await t.cli(['auth', 'status', '--verify'], { env: { ...bogus, AGENTKIT_API_KEY: KEY } });
    assert.is(good.code, 0, good.stderr);
    assert.match(good.stdout, /^Connected \(source: env, verified\)\n/);
    assert.equal(
      await platform.read((s) => s.requests().map((r) => r.route)),
      ['GET /public/v1/auth/check'],
      'the accepted --verify is logged (refused keys are not: their 401 above came from the Platform)',
    );

    const noTarget = await t.cli(['connect', '--api-key', KEY], { env: { HOME: home } });
    assert.is(noTarget.code, 2, noTarget.stderr);
    assert.match(noTarget.stderr, /^error: no Platform target given or configured: pass --target <url> \(or set AGENTKIT_TARGET\)/);
    assert.not.ok(existsSync(path.join(home, '.agentkit', 'credentials.toml')), 'nothing saved');
    assert.equal(await platform.read((s) => s.requests().length), 1, 'nothing dialled');

    // Once a target is saved, reconnecting without --target uses it.
    assert.is((await t.cli(['connect', '--api-key', KEY, '--target', platform.url], { env: { HOME: home } })).code, 0);
    const again = await t.cli(['connect', '--api-key', KEY, '--project', 'p2'], { env: { HOME: home } });
    assert.is(again.code, 0, again.stderr);
    assert.is(again.stdout.split(' (')[0], `Connected to ${platform.url}`);
  },
);

area.scenario(
  'the client: key only in X-API-Key, 401/403 errors, 5xx retried with backoff, a timeout, never the key in an error',
  { backends: 'none', timeoutMs: 30_000 },
  async (t) => {
    const seen: Array<{ url: string; key: string | undefined }> = [];
    let failuresLeft = 2;
    const server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', key: req.headers['x-api-key'] as string | undefined });
      const key = req.headers['x-api-key'];
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/slow/')) return; // never answers
      if (key === 'ak_forbidden_key_1') return void res.writeHead(403).end(JSON.stringify({ detail: 'no evals scope', code: 'forbidden' }));
      if (key !== KEY) return void res.writeHead(401).end(JSON.stringify({ detail: 'bad key', code: 'invalid_api_key' }));
      if (failuresLeft-- > 0) return void res.writeHead(503).end(JSON.stringify({ detail: 'warming up', code: 'internal_error' }));
      res.writeHead(200).end(JSON.stringify({ domain_id: 'd', project_id: null, scopes: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.defer(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    );
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const ok = await new PlatformClient({ apiKey: KEY, target, backoffMs: 10 }).authCheck();
    assert.equal(ok, { domain_id: 'd', project_id: null, scopes: [] });
    assert.is(seen.length, 3, 'two 503s retried, then the 200');
    assert.ok(seen.every((r) => r.key === KEY && !r.url.includes(KEY) && r.url === '/public/v1/auth/check'));

    const refused = await new PlatformClient({ apiKey: 'ak_wrong_key_123', target }).authCheck().catch((e: unknown) => e);
    assert.instance(refused, PlatformAuthError);
    assert.is((refused as PlatformAuthError).code, 'invalid_api_key');
    const forbidden = await new PlatformClient({ apiKey: 'ak_forbidden_key_1', target }).authCheck().catch((e: unknown) => e);
    assert.instance(forbidden, PlatformForbiddenError);
    assert.match((forbidden as Error).message, /no evals scope/);

    failuresLeft = 5;
    const down = await new PlatformClient({ apiKey: KEY, target, attempts: 3, backoffMs: 5 }).authCheck().catch((e: unknown) => e);
    assert.instance(down, PlatformError);
    assert.is((down as PlatformError).httpStatus, 503);
    assert.is((down as PlatformError).message, `Platform at ${target} could not check the API key: HTTP 503: warming up`);

    const slow = new PlatformClient({ apiKey: KEY, target: `${target}/slow`, timeoutMs: 200, attempts: 1 });
    const timedOut = await slow.authCheck().catch((e: unknown) => e);
    assert.instance(timedOut, PlatformError);
    assert.match((timedOut as Error).message, /unreachable \(no answer within 200 ms\)/);
    for (const error of [refused, forbidden, down, timedOut]) assert.not.ok(String((error as Error).message).includes(KEY));
  },
);

area.scenario(
  'on a terminal, connect prompts for the key without echoing it',
  { rows: ['cli:connect'], backends: 'none', surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    const home = path.join(t.cwd, 'home');
    // util-linux `script` gives the CLI a pseudo-terminal; the key is typed once the prompt is shown.
    const child = spawn('script', ['-qec', `${process.execPath} ${BIN} connect --target ${platform.url}`, '/dev/null'], {
      env: { ...process.env, HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Platform API key: ') && !child.stdin.writableEnded) child.stdin.end(`${KEY}\r`);
    });
    const [code] = (await once(child, 'close')) as [number];
    assert.is(code, 0, output);
    assert.match(
      output,
      /^Platform API key: \r?\nConnected to http:\/\/127\.0\.0\.1:\d+ \(project: \(default\)\)\. Credentials saved to /,
      JSON.stringify(output),
    );
    assert.not.ok(output.includes(KEY), 'the key typed at the prompt is not echoed');
    assert.is({ ...parse(readFileSync(path.join(home, '.agentkit', 'credentials.toml'), 'utf8')) }.api_key, KEY);
  },
);

area.run();
