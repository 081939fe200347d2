/**
 * Third-party tools against the served agent's contract (docs/adr/0056): Stoplight Prism's proxy, with `--errors`,
 * in front of a real `agentkit agent serve` finds no response off the document for the README's requests (anonymous
 * and with a token), for each error status a forwarded request can get (400, 401, 404, 409, 413, 415, 422, 500; Prism
 * answers a 405 itself and Node a 408/431 before any route, so those are checked directly in serve-wire), and for 20
 * malformed requests; the same 20
 * sent directly get the same contract answers, and a Prism proxy without `--errors` (which forwards even requests it
 * finds invalid) reports no response violation for them either. Spectral (`spectral:oas`) finds no error in any
 * generated document.
 */
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { errorCodes } from '../../generated/errors.js';
import { conformance, startCli, type ScenarioContext } from '../harness/index.js';
import { rawRequest, type RawRequest, type RawResponse } from '../harness/raw-http.js';

const area = conformance('served agent: third-party contract tools');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCUMENT = path.join(root, 'generated/openapi/served-agent.yaml');
const CAP = 4096;
const known = new Set<string>(errorCodes);

/** `agent serve` of the weather agent with a store (so keys work), on a free loopback port. */
async function serveAgent(t: ScenarioContext, args: string[], runner: 'weather' | 'gated' = 'weather'): Promise<string> {
  const fixture = JSON.stringify(pathToFileURL(path.join(root, 'conformance/fixtures/serving/runners.ts')).href);
  // The built package, the one copy the fixture's own `import 'agentkit'` resolves to.
  const sdk = JSON.stringify(pathToFileURL(path.join(root, 'dist/src/index.js')).href);
  await writeFile(
    path.join(t.cwd, 'runners.mts'),
    `import { SQLiteCheckpointer } from ${sdk};\nimport { gatedAgent, weatherAgent } from ${fixture};\n` +
      `const store = () => new SQLiteCheckpointer(${JSON.stringify(path.join(t.cwd, 'keys.db'))});\n` +
      `export const weather = () => weatherAgent({ checkpointer: store() });\nexport const gated = () => gatedAgent(${JSON.stringify(t.cwd)}, store());\n`,
  );
  const proc = startCli(
    ['agent', 'serve', `runners.mts:${runner}`, '--port', '0', '--host', '127.0.0.1', '--no-recover', '--max-body-bytes', String(CAP), ...args],
    {
      cwd: t.cwd,
      env: t.env,
    },
  );
  t.defer(() => proc.kill());
  const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/, 60_000);
  return url!;
}

/** Prism's proxy (the dev dependency's own CLI) in front of `upstream`; resolves with its URL once it listens. */
async function prism(t: ScenarioContext, upstream: string, errors: boolean): Promise<string> {
  const cli = realpathSync(path.join(root, 'node_modules/.bin/prism'));
  const child = spawn(process.execPath, [cli, 'proxy', ...(errors ? ['--errors'] : []), '-h', '127.0.0.1', '-p', '0', DOCUMENT, upstream], {
    cwd: t.cwd,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.defer(() => child.kill('SIGKILL'));
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Prism is listening on (http:\/\/[^\s]+)/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('close', (code) => reject(new Error(`prism exited ${code} before listening:\n${out}`)));
  });
}

/** The violations Prism found in our response (not in the request), from its `sl-violations` header. */
function responseViolations(answer: RawResponse): unknown[] {
  const header = answer.headers['sl-violations'];
  const all = header ? (JSON.parse(String(header)) as Array<{ location: string[] }>) : [];
  const found: unknown[] = all.filter((violation) => violation.location[0] === 'response');
  // With --errors Prism replaces an answer off the contract by its own 500 VIOLATIONS problem.
  if (answer.status === 500 && answer.text.includes('#VIOLATIONS')) found.push(JSON.parse(answer.text));
  return found;
}

const json = { 'content-type': 'application/json' };
const run = (body: string, headers: Record<string, string> = {}): RawRequest => ({ method: 'POST', target: '/run', headers: { ...json, ...headers }, body });

/** Twenty requests no client should send that Prism carries: each must get a contract error, through Prism as directly. */
const MALFORMED: Array<[string, RawRequest]> = [
  ['input is a number', run('{"input":42}')],
  ['input is null', run('{"input":null}')],
  ['input is an array', run('{"input":["x"]}')],
  ['input is a boolean', run('{"input":true}')],
  ['an unknown field', run('{"input":"x","temperature":2}')],
  ['no input', run('{}')],
  ['an array body', run('[]')],
  ['a null body', run('null')],
  ['a blank input', run('{"input":"   "}')],
  ['a text/plain body', { method: 'POST', target: '/run', headers: { 'content-type': 'text/plain' }, body: 'hello' }],
  ['no Content-Type', { method: 'POST', target: '/run', body: '{"input":"x"}' }],
  ['a form body', { method: 'POST', target: '/run', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'input=x' }],
  ['an unknown content coding', run('{"input":"x"}', { 'content-encoding': 'x-unknown' })],
  ['a key with a space', run('{"input":"x"}', { 'idempotency-key': '"a b"' })],
  ['an empty quoted key', run('{"input":"x"}', { 'idempotency-key': '""' })],
  ['a 300-character key', run('{"input":"x"}', { 'idempotency-key': 'k'.repeat(300) })],
  ['nesting 100 deep', run(`{"input":"x","a":${'['.repeat(100)}${']'.repeat(100)}}`)],
  ['a body over the cap', run(JSON.stringify({ input: 'x'.repeat(CAP) }))],
  ['a stream of a number', { method: 'POST', target: '/run/stream', headers: json, body: '{"input":1}' }],
  ['a stream with an unknown field', { method: 'POST', target: '/run/stream', headers: json, body: '{"input":"x","model":"gpt"}' }],
];

/**
 * Malformed requests Prism 5.16 cannot carry, sent directly only: a body its own JSON parser refuses hangs the
 * request in the proxy, a malformed percent-escape in the path ends the proxy's process, and an unknown charset gets
 * the proxy's own 400 before anything is forwarded.
 */
const DIRECT_ONLY: Array<[string, RawRequest]> = [
  ['truncated JSON', run('{"input": ')],
  ['a trailing comma', run('{"input":"x",}')],
  ['a bad escape in the path', { method: 'GET', target: '/runs/%E0%A4%A' }],
  ['an unknown charset', run('{"input":"x"}', { 'content-type': 'application/json; charset=klingon' })],
];

area.scenario(
  "Prism's proxy (--errors) finds no response off the contract: the README's requests anonymous and with a token, each error status",
  { backends: 'none', surfaces: ['cli'], timeoutMs: 180_000 },
  async (t) => {
    const anonymous = await prism(t, await serveAgent(t, ['--expose-status']), true);
    const guarded = await prism(t, await serveAgent(t, ['--auth-token', 'tok-prism']), true);
    const bearer = { authorization: 'Bearer tok-prism' };
    const cases: Array<[string, string, RawRequest, number]> = [
      // The README's curls.
      ['README /health', anonymous, { method: 'GET', target: '/health' }, 200],
      ['README /run', anonymous, run('{"input":"Where is order 42?"}'), 200],
      ['README /run/stream', anonymous, { method: 'POST', target: '/run/stream', headers: json, body: '{"input":"weather in Oslo"}' }, 200],
      ['README /run with a token', guarded, run('{"input":"Where is order 42?"}', bearer), 200],
      [
        'README /run/stream with a token',
        guarded,
        { method: 'POST', target: '/run/stream', headers: { ...json, ...bearer }, body: '{"input":"weather in Oslo"}' },
        200,
      ],
      ['a keyed run', guarded, run('{"input":"weather in Rome"}', { ...bearer, 'idempotency-key': 'prism-1' }), 200],
      ['its repeat', guarded, run('{"input":"weather in Rome"}', { ...bearer, 'idempotency-key': 'prism-1' }), 200],
      // Each error status a forwarded request can get.
      ['400 empty_input', anonymous, run('{"input":" "}'), 400],
      ['400 invalid_idempotency_key', anonymous, run('{"input":"x"}', { 'idempotency-key': '"a b"' }), 400],
      ['400 streaming error event path', anonymous, { method: 'POST', target: '/run/stream', headers: json, body: '{"input":"  "}' }, 400],
      ['401 without the token', guarded, run('{"input":"x"}'), 401],
      ['401 on /runs without the token', guarded, { method: 'GET', target: '/runs/nope' }, 401],
      ['404 an unknown execution', guarded, { method: 'GET', target: '/runs/nope', headers: bearer }, 404],
      ['413 over the cap', anonymous, run(JSON.stringify({ input: 'x'.repeat(CAP) })), 413],
      ['415 an unknown content coding', anonymous, run('{"input":"x"}', { 'content-encoding': 'x-unknown' }), 415],
      ['422 guardrail_blocked', anonymous, run('{"input":"a forbidden request"}'), 422],
      ['422 idempotency_key_mismatch', guarded, run('{"input":"weather in Lima"}', { ...bearer, 'idempotency-key': 'prism-1' }), 422],
      ['500 the run failed', anonymous, run('{"input":"explode"}'), 500],
    ];
    const check = (name: string, answer: RawResponse, status: number) => {
      assert.is(answer.status, status, `${name}: ${answer.text.slice(0, 300)}`);
      assert.equal(responseViolations(answer), [], `${name}: Prism found the response off the contract`);
      if (status >= 400) assert.ok(known.has(JSON.parse(answer.text).code), `${name}: a contract code: ${answer.text}`);
    };
    for (const [name, base, request, status] of cases) check(name, await rawRequest(base, request), status);

    // 409: a keyed run held mid-tool, and its repeat meanwhile.
    const gated = await prism(t, await serveAgent(t, [], 'gated'), true);
    const held = run('{"input":"hold"}', { 'idempotency-key': 'held-1' });
    const first = rawRequest(gated, held);
    while (!existsSync(path.join(t.cwd, 'entered'))) await new Promise((resolve) => setTimeout(resolve, 20));
    const busy = await rawRequest(gated, held);
    check('409 idempotency_key_in_use', busy, 409);
    assert.match(JSON.parse(busy.text).execution_id, /^[0-9a-f-]{36}$/);
    await writeFile(path.join(t.cwd, 'open'), '');
    check('the held run, once released', await first, 200);
  },
);

area.scenario(
  '20 malformed requests: the same contract answers directly and through Prism, no response violation either way',
  { backends: 'none', surfaces: ['cli'], timeoutMs: 180_000 },
  async (t) => {
    const upstream = await serveAgent(t, []);
    const strict = await prism(t, upstream, true);
    const forwarding = await prism(t, upstream, false);
    assert.is(MALFORMED.length, 20);
    for (const [name, request] of [...MALFORMED, ...DIRECT_ONLY]) {
      const direct = await rawRequest(upstream, request);
      assert.ok(direct.status >= 400 && direct.status < 500, `${name}: ${direct.status} ${direct.text}`);
      const body = JSON.parse(direct.text) as { detail: unknown; code: string };
      assert.ok(typeof body.detail === 'string' && known.has(body.code), `${name}: a contract body: ${direct.text}`);
    }
    for (const [name, request] of MALFORMED) {
      const direct = JSON.parse((await rawRequest(upstream, request)).text) as { code: string };
      // Without --errors Prism forwards even a request it finds invalid, and reports what it thinks of our answer.
      // With --errors it refuses what it finds invalid itself (problem+json), or forwards it. Either way: when the
      // answer is ours it is the direct one, and never a response violation.
      for (const [mode, base] of [
        ['forwarding', forwarding],
        ['--errors', strict],
      ] as const) {
        const via = await rawRequest(base, request);
        assert.ok(via.status >= 400 && via.status < 500, `${name} through ${mode}: ${via.status} ${via.text}`);
        assert.equal(responseViolations(via), [], `${name} through ${mode}: Prism found our answer off the contract`);
        const ours = !String(via.headers['content-type']).startsWith('application/problem+json');
        if (ours) assert.is((JSON.parse(via.text) as { code: string }).code, direct.code, `${name} through ${mode}`);
        if (mode === 'forwarding') assert.ok(ours, `${name}: the forwarding proxy carried it to the server`);
      }
    }
  },
);

area.scenario('Spectral (spectral:oas) finds no error in any generated document', { backends: 'none', surfaces: ['cli'], timeoutMs: 120_000 }, async (t) => {
  const ruleset = path.join(t.cwd, '.spectral.yaml');
  await writeFile(ruleset, 'extends: ["spectral:oas"]\n');
  const cli = realpathSync(path.join(root, 'node_modules/.bin/spectral'));
  const documents = ['served-agent', 'ui', 'platform', 'resources'].map((name) => path.join(root, 'generated/openapi', `${name}.yaml`));
  const result = spawnSync(process.execPath, [cli, 'lint', ...documents, '--ruleset', ruleset, '--format', 'json', '--quiet'], {
    cwd: t.cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const findings = JSON.parse(result.stdout || '[]') as Array<{ code: string; severity: number; source: string; path: string[] }>;
  const errors = findings.filter((finding) => finding.severity === 0);
  assert.equal(errors, [], `Spectral errors:\n${JSON.stringify(errors, null, 1)}`);
  assert.is(result.status, 0, result.stderr);
});

area.run();
