import * as assert from 'uvu/assert';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../../test-support/uvu.js';
import { recordingServer } from '../../../test-support/recording-server.js';
import { knownSecrets } from '../../config/secrets.js';
import { ConfigError } from '../../errors.js';
import { ToolRegistry } from '../registry.js';
import { ToolError } from '../tool-error.js';
import { loadRestTools } from './config.js';
import { RESTTool, type RESTToolOptions } from './rest-tool.js';

const test = suite('rest tool');
const TOKEN = 'Bearer tok-rest-7f3a9c1e';
const LOOPBACK = ['127.0.0.1'];

function restTool(options: Partial<RESTToolOptions> & { url: string }): RESTTool {
  return new RESTTool({ name: 'call_api', registry: false, allowHosts: LOOPBACK, retryDelayMs: 1, ...options });
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ToolError);
    return error as ToolError;
  }
  throw new Error('expected the call to fail');
}

test('query_params: arguments arrive as the query string, arrays repeated, with the configured headers', async () => {
  const server = await recordingServer();
  try {
    const tool = restTool({
      url: `${server.url}/search?lang=en`,
      headers: { Authorization: TOKEN, 'X-Team': 'ops' },
      parameters: {
        type: 'object',
        properties: { q: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, n: { type: 'integer' } },
        required: ['q'],
      },
    });
    assert.is(tool.bodyMapping, 'query_params', 'GET defaults to query_params');
    const result = await tool.execute({ q: 'a b&c', tags: ['x', 'y'], n: 3 });
    assert.equal(result, { method: 'GET', path: '/search?lang=en&q=a+b%26c&tags=x&tags=y&n=3' });
    const [seen] = server.requests;
    assert.is(seen!.headers.authorization, TOKEN);
    assert.is(seen!.headers['x-team'], 'ops');
    assert.is(seen!.body, '', 'a GET carries no body');
    assert.is(seen!.headers['content-type'], undefined);
    await tool.close();
  } finally {
    await server.close();
  }
});

test('json_body: arguments arrive as the JSON body (the default for POST)', async () => {
  const server = await recordingServer();
  try {
    const tool = restTool({ url: `${server.url}/orders`, method: 'post', headers: { Authorization: TOKEN } });
    assert.is(tool.bodyMapping, 'json_body');
    await tool.execute({});
    const withArgs = restTool({
      url: `${server.url}/orders`,
      method: 'POST',
      parameters: { type: 'object', properties: { item: { type: 'string' }, qty: { type: 'integer' }, meta: { type: 'object' } } },
    });
    await withArgs.execute({ item: 'book', qty: 2, meta: { gift: true } });
    assert.is(server.requests[1]!.method, 'POST');
    assert.is(server.requests[1]!.path, '/orders');
    assert.is(server.requests[1]!.headers['content-type'], 'application/json');
    assert.equal(JSON.parse(server.requests[1]!.body), { item: 'book', qty: 2, meta: { gift: true } });
  } finally {
    await server.close();
  }
});

test('path_params: values fill their segments percent-encoded, so "/", "?" and ".." stay data', async () => {
  const server = await recordingServer();
  try {
    const tool = restTool({ url: `${server.url}/repos/{owner}/files/{name}`, bodyMapping: 'path_params', method: 'GET' });
    assert.equal(tool.parameters, { type: 'object', properties: { owner: { type: 'string' }, name: { type: 'string' } }, required: ['owner', 'name'] });
    await tool.execute({ owner: 'a/b?c=1#x', name: '..' });
    await tool.execute({ owner: '.', name: 'x y.txt' });
    assert.is(server.requests[0]!.path, '/repos/a%2Fb%3Fc%3D1%23x/files/%2E%2E');
    assert.is(server.requests[1]!.path, '/repos/%2E/files/x%20y.txt');
    assert.equal(server.requests[0]!.path.split('/').map(decodeURIComponent), ['', 'repos', 'a/b?c=1#x', 'files', '..']);
    const extra = restTool({
      url: `${server.url}/users/{id}`,
      bodyMapping: 'path_params',
      parameters: { type: 'object', properties: { id: { type: 'integer' }, expand: { type: 'boolean' } }, required: ['id'] },
    });
    await extra.execute({ id: 42, expand: true });
    assert.is(server.requests[2]!.path, '/users/42?expand=true', 'arguments without a placeholder go to the query string');
    const update = restTool({
      url: `${server.url}/users/{id}`,
      method: 'PATCH',
      parameters: { type: 'object', properties: { id: { type: 'string' }, email: { type: 'string' } }, required: ['id'] },
    });
    await update.execute({ id: 'u/9', email: 'a@b.c' });
    assert.equal(
      [server.requests[3]!.method, server.requests[3]!.path, JSON.parse(server.requests[3]!.body)],
      ['PATCH', '/users/u%2F9', { email: 'a@b.c' }],
      'json_body fills placeholders too; the rest is the body',
    );
  } finally {
    await server.close();
  }
});

test('arguments are validated first: the error names the argument and nothing is sent', async () => {
  const server = await recordingServer();
  try {
    const tool = restTool({
      url: `${server.url}/weather`,
      parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
    });
    const missing = await failure(tool.execute({ days: 2 }));
    assert.is(missing.code, 'validation_failed');
    assert.match(missing.message, /^tool 'call_api': invalid arguments: .*city/);
    const wrong = await failure(tool.execute({ city: 'Oslo', days: 'two' }));
    assert.match(wrong.message, /\/days/);
    assert.is(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

test('configuration errors name the tool and the problem', () => {
  const bad = (options: Partial<RESTToolOptions>, pattern: RegExp) =>
    assert.throws(
      () => new RESTTool({ name: 't', url: 'http://127.0.0.1/x', registry: false, ...options }),
      (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
    );
  bad({ bodyMapping: 'json_body' }, /tool 't': a GET request carries no body; use body_mapping query_params or path_params/);
  bad({ method: 'TRACE' as never }, /method must be one of GET, POST, PUT, PATCH, DELETE, HEAD/);
  bad({ url: 'ftp://x/y' }, /url must be http or https/);
  bad(
    { url: 'http://127.0.0.1/{id}', bodyMapping: 'path_params', parameters: { type: 'object', properties: {} } },
    /placeholder \{id\} is not among the parameters/,
  );
  bad({ url: 'http://user:pw@127.0.0.1/' }, /must not carry credentials/);
  bad({ headers: { 'X-Key': 'a\r\nInjected: 1' } }, /header 'X-Key' contains a line break/);
  bad({ allowHosts: ['10.0.0.0/77'] }, /allowHosts entry "10.0.0.0\/77"/);
  assert.is(new RESTTool({ name: 'd', url: 'http://127.0.0.1/x', method: 'DELETE', registry: false }).bodyMapping, 'query_params');
  assert.is(new RESTTool({ name: 'p', url: 'http://127.0.0.1/x', method: 'PUT', registry: false }).bodyMapping, 'json_body');
});

test('toDict() and toConfig() carry *** for every header value; the values are registered secrets', () => {
  const tool = restTool({ url: 'http://127.0.0.1:9/x', headers: { Authorization: TOKEN, 'X-Api-Key': 'key-${API_SECRET_NAME}-suffix' } });
  const dict = tool.toDict();
  assert.equal(dict.config.headers, { Authorization: '***', 'X-Api-Key': '***' });
  assert.is(dict.tool_type, 'rest_api');
  assert.is(dict.origin, 'rest');
  assert.not.ok(JSON.stringify(dict).includes('tok-rest'));
  assert.not.ok(JSON.stringify(tool.toConfig()).includes('tok-rest'));
  assert.equal(tool.toConfig().headers, { Authorization: '***', 'X-Api-Key': '***' });
  assert.ok(knownSecrets().includes(TOKEN));
  restTool({ url: 'http://127.0.0.1:9/x', headers: { Accept: 'application/vnd.example+json' } });
  assert.not.ok(knownSecrets().includes('application/vnd.example+json'), 'descriptive headers are not registered secrets');
  assert.not.ok(knownSecrets().includes('-suffix'), 'the literal parts of a template are not secrets on their own');
});

test('${NAME} header references are read at each request; a missing one is named, never its value', async () => {
  const server = await recordingServer();
  try {
    const env: Record<string, string | undefined> = { SERVICE_TOKEN: 'first-value-123' };
    assert.not.ok(knownSecrets().includes('Bearer'), 'a scheme is never registered as a secret');
    const tool = restTool({ url: `${server.url}/x`, headers: { Authorization: 'Bearer ${SERVICE_TOKEN}' }, env });
    await tool.execute({});
    env.SERVICE_TOKEN = 'rotated-value-456';
    await tool.execute({});
    assert.equal(
      server.requests.map((r) => r.headers.authorization),
      ['Bearer first-value-123', 'Bearer rotated-value-456'],
    );
    assert.ok(knownSecrets().includes('rotated-value-456'));
    delete env.SERVICE_TOKEN;
    const error = await failure(tool.execute({}));
    assert.is(error.message, "tool 'call_api': header 'Authorization' references ${SERVICE_TOKEN}, which is not set");
    assert.equal(tool.toDict().config.headers, { Authorization: '***' });
  } finally {
    await server.close();
  }
});

test('loopback is refused by default (literal and by name) and allowed through allowHosts', async () => {
  const server = await recordingServer();
  try {
    const refused = new RESTTool({ name: 'guarded', url: `${server.url}/x`, registry: false });
    const error = await failure(refused.execute({}));
    assert.is(error.code, 'ssrf_blocked');
    assert.is(
      error.message,
      "tool 'guarded': refused to connect to '127.0.0.1': it is a loopback address; add it to allowHosts if this tool is meant to reach it",
    );
    const byName = new RESTTool({ name: 'guarded', url: `http://localhost:${server.port}/x`, registry: false });
    const named = await failure(byName.execute({}));
    assert.is(named.code, 'ssrf_blocked');
    assert.match(named.message, /refused to connect to 'localhost' \(resolves to (127\.0\.0\.1|::1)\): it is a loopback address/);
    assert.is(server.requests.length, 0, 'nothing reached the server');
    const allowed = new RESTTool({ name: 'guarded', url: `http://localhost:${server.port}/x`, allowHosts: ['localhost'], registry: false });
    assert.equal(await allowed.execute({}), { method: 'GET', path: '/x' });
  } finally {
    await server.close();
  }
});

test('a redirect from an allowed host to a refused one is refused; the refused host is never contacted', async () => {
  const target = await recordingServer();
  const redirecting = await recordingServer((_req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${target.port}/internal` });
    res.end();
  });
  try {
    const tool = new RESTTool({ name: 'hop', url: `http://localhost:${redirecting.port}/start`, allowHosts: ['localhost'], registry: false });
    const error = await failure(tool.execute({}));
    assert.is(error.code, 'ssrf_blocked');
    assert.match(error.message, /refused to connect to '127\.0\.0\.1': it is a loopback address/);
    assert.is(redirecting.requests.length, 1);
    assert.is(target.requests.length, 0);
  } finally {
    await redirecting.close();
    await target.close();
  }
});

test('a cross-origin redirect between two allowed servers arrives without the configured headers; same-origin keeps them', async () => {
  const other = await recordingServer();
  const first = await recordingServer((req, res) => {
    if (req.path === '/same') res.writeHead(307, { location: '/final' }).end();
    else if (req.path === '/cross') res.writeHead(307, { location: `http://127.0.0.1:${other.port}/landing` }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('final');
  });
  try {
    const cross = restTool({ url: `${first.url}/cross`, method: 'POST', headers: { Authorization: TOKEN, 'X-Api-Key': 'k-9d8e7f6a' } });
    assert.equal(await cross.execute({}), { method: 'POST', path: '/landing' });
    assert.is(first.requests[0]!.headers.authorization, TOKEN);
    assert.is(other.requests[0]!.headers.authorization, undefined);
    assert.is(other.requests[0]!.headers['x-api-key'], undefined);
    assert.is(other.requests[0]!.body, '{}', 'a 307 keeps the method and the body');
    const same = restTool({ url: `${first.url}/same`, headers: { Authorization: TOKEN } });
    assert.is(await same.execute({}), 'final');
    assert.is(first.requests.at(-1)!.path, '/final');
    assert.is(first.requests.at(-1)!.headers.authorization, TOKEN);
  } finally {
    await first.close();
    await other.close();
  }
});

test('redirects are capped', async () => {
  const server = await recordingServer((req, res) => res.writeHead(302, { location: `/loop${req.path.length}` }).end());
  try {
    const error = await failure(restTool({ url: `${server.url}/loop` }).execute({}));
    assert.match(error.message, /redirected more than 5 times/);
    assert.is(server.requests.length, 6);
  } finally {
    await server.close();
  }
});

test('a non-2xx status fails the call with the status and the start of the body, never a header value', async () => {
  const server = await recordingServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"no such order"}'));
  try {
    const error = await failure(restTool({ url: `${server.url}/orders?key=abc`, headers: { Authorization: TOKEN } }).execute({}));
    assert.is(error.code, 'tool_execution_error');
    assert.is(error.message, `tool 'call_api': GET ${server.url}/orders returned 404 Not Found: {"detail":"no such order"}`);
  } finally {
    await server.close();
  }
});

test('retries: an idempotent method is retried on 503, a side-effecting POST is not unless declared safe', async () => {
  let failures = 2;
  const server = await recordingServer((_req, res) => {
    if (failures-- > 0) res.writeHead(503).end('busy');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  try {
    assert.equal(await restTool({ url: `${server.url}/get` }).execute({}), { ok: true });
    assert.is(server.requests.length, 3);
    failures = 5;
    await failure(restTool({ url: `${server.url}/post`, method: 'POST' }).execute({}));
    assert.is(server.requests.length, 4, 'one attempt for a side-effecting POST');
    failures = 1;
    assert.equal(await restTool({ url: `${server.url}/post`, method: 'POST', replayClass: 'idempotent' }).execute({}), { ok: true });
    assert.is(server.requests.length, 6);
  } finally {
    await server.close();
  }
});

test('responses over the size cap and attempts over the time limit fail the call', async () => {
  const server = await recordingServer((req, res) => {
    if (req.path === '/big') res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
    // '/slow' never answers.
  });
  try {
    const big = await failure(restTool({ url: `${server.url}/big`, maxResponseBytes: 1000 }).execute({}));
    assert.is(big.message, `tool 'call_api': the response of ${server.url}/big is larger than 1000 bytes`);
    const slow = await failure(restTool({ url: `${server.url}/slow`, timeoutMs: 150, maxRetries: 0 }).execute({}));
    assert.is(slow.message, `tool 'call_api': GET ${server.url}/slow timed out after 150 ms`);
  } finally {
    await server.close();
  }
});

test('responses: JSON parsed, text kept, empty is null', async () => {
  const server = await recordingServer((req, res) => {
    if (req.path === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('plain words');
    else if (req.path === '/empty') res.writeHead(204).end();
    else res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('[1,2]');
  });
  try {
    assert.equal(await restTool({ url: `${server.url}/json` }).execute({}), [1, 2]);
    assert.is(await restTool({ url: `${server.url}/text` }).execute({}), 'plain words');
    assert.is(await restTool({ url: `${server.url}/empty` }).execute({}), null);
  } finally {
    await server.close();
  }
});

test('loadRestTools reads YAML and JSON files; an invalid entry names the file, the tool and the field, and registers nothing', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'rest-tools-'));
  const yamlPath = path.join(dir, 'tools.yaml');
  await writeFile(
    yamlPath,
    [
      'tools:',
      '  - name: get_weather',
      '    description: Current weather',
      '    url: http://127.0.0.1:9/weather',
      '    headers: { Authorization: "Bearer ${WEATHER_TOKEN}" }',
      '    parameters: { type: object, properties: { city: { type: string } }, required: [city] }',
      '    replay_class: read_only',
      '    allow_hosts: [127.0.0.1]',
      '  - name: create_ticket',
      '    url: http://127.0.0.1:9/tickets',
      '    method: POST',
      '',
    ].join('\n'),
  );
  const registry = new ToolRegistry();
  const tools = await loadRestTools(yamlPath, { registry });
  assert.equal(
    tools.map((t) => [t.name, t.method, t.bodyMapping, t.replayClass]),
    [
      ['get_weather', 'GET', 'query_params', 'read_only'],
      ['create_ticket', 'POST', 'json_body', 'side_effecting'],
    ],
  );
  assert.equal(registry.names(), ['create_ticket', 'get_weather']);
  const jsonPath = path.join(dir, 'tools.json');
  await writeFile(
    jsonPath,
    JSON.stringify([
      { name: 'ok_tool', url: 'http://127.0.0.1:9/' },
      { name: 'bad_tool', url: 'http://127.0.0.1:9/', verb: 'GET', body_mapping: 'form' },
    ]),
  );
  const empty = new ToolRegistry();
  const error = await loadRestTools(jsonPath, { registry: empty }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(error, ConfigError);
  assert.match((error as Error).message, new RegExp(`^'${jsonPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' entry 2 'bad_tool' is invalid: `));
  assert.match((error as Error).message, /body_mapping/);
  assert.match((error as Error).message, /verb|additional/i);
  assert.equal(empty.names(), []);
  const missing = await loadRestTools(path.join(dir, 'nope.yaml')).then(
    () => null,
    (e: unknown) => e,
  );
  assert.match((missing as Error).message, /cannot read REST tool file '.*nope\.yaml': ENOENT/);
});

test('fromDict rebuilds a tool from its redacted definition with the headers supplied now', async () => {
  const server = await recordingServer();
  try {
    const original = restTool({ url: `${server.url}/v1/{id}`, bodyMapping: 'path_params', headers: { Authorization: TOKEN, Accept: 'application/json' } });
    const rebuilt = RESTTool.fromDict(JSON.parse(JSON.stringify(original.toDict())), {
      headers: { authorization: 'Bearer replay-time-token' },
      registry: false,
    });
    const { headers: _, ...config } = original.toDict().config;
    assert.equal(rebuilt.toDict(), { ...original.toDict(), config: { ...config, headers: { Authorization: '***' } } });
    await rebuilt.execute({ id: 'a b' });
    assert.is(server.requests[0]!.path, '/v1/a%20b');
    assert.is(server.requests[0]!.headers.authorization, 'Bearer replay-time-token');
    assert.is(server.requests[0]!.headers.accept, undefined, 'a redacted header with no value supplied is left out');
  } finally {
    await server.close();
  }
});

test.run();
