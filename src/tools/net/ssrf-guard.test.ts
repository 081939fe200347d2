/**
 * The guard with an injected resolver: the "network" answers private and metadata addresses, and no socket is ever
 * opened (the resolver is the only thing asked, and a refused host never gets to a connection).
 */
import * as assert from 'uvu/assert';
import { suite } from '../../../test-support/uvu.js';
import { ToolError } from '../tool-error.js';
import { SafeHttpClient } from './safe-client.js';
import { SsrfGuard, type Resolver } from './ssrf-guard.js';

const test = suite('ssrf guard');

function resolverOf(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string) => {
    asked.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { asked });
}

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ToolError);
    return error as ToolError;
  }
  throw new Error('expected a refusal');
}

test('a name resolving to a private address is refused, naming the host, the address and the reason', async () => {
  const guard = new SsrfGuard({ resolver: resolverOf({ 'internal.example': ['10.0.0.5'] }) });
  const error = await refusal(guard.vetHost('internal.example'));
  assert.is(error.code, 'ssrf_blocked');
  assert.is(
    error.message,
    "refused to connect to 'internal.example' (resolves to 10.0.0.5): it is a private address; add it to allowHosts if this tool is meant to reach it",
  );
});

test('one private answer among public ones refuses the name', async () => {
  const guard = new SsrfGuard({ resolver: resolverOf({ 'mixed.example': ['93.184.216.34', '192.168.0.7'] }) });
  const error = await refusal(guard.vetHost('mixed.example'));
  assert.match(error.message, /resolves to 192\.168\.0\.7/);
});

test('metadata: by address, by IPv6 address and by name (the resolver is not even asked)', async () => {
  const resolver = resolverOf({ 'rebind.example': ['169.254.169.254'], 'v6.example': ['fd00:ec2::254'] });
  const guard = new SsrfGuard({ resolver });
  assert.match((await refusal(guard.vetHost('rebind.example'))).message, /cloud metadata address/);
  assert.match((await refusal(guard.vetHost('v6.example'))).message, /cloud metadata address/);
  assert.match((await refusal(guard.vetHost('metadata.google.internal'))).message, /names a cloud metadata service/);
  assert.equal(resolver.asked, ['rebind.example', 'v6.example']);
});

test('public answers pass and are returned for the connection', async () => {
  const guard = new SsrfGuard({ resolver: resolverOf({ 'api.example': ['93.184.216.34', '2606:2800:220:1::1'] }) });
  assert.equal(await guard.vetHost('api.example'), [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1::1', family: 6 },
  ]);
});

test('allowHosts: a listed name passes its private addresses but never a metadata address', async () => {
  const guard = new SsrfGuard({ allowHosts: ['api.corp'], resolver: resolverOf({ 'api.corp': ['10.1.1.1'], 'evil.corp': ['10.1.1.1'] }) });
  assert.equal(await guard.vetHost('api.corp'), [{ address: '10.1.1.1', family: 4 }]);
  await refusal(guard.vetHost('evil.corp'));
  const tricked = new SsrfGuard({ allowHosts: ['api.corp'], resolver: resolverOf({ 'api.corp': ['169.254.169.254'] }) });
  assert.match((await refusal(tricked.vetHost('api.corp'))).message, /cloud metadata/);
});

test('allowHosts: a listed range passes addresses inside it for any name', async () => {
  const guard = new SsrfGuard({ allowHosts: ['10.20.0.0/16'], resolver: resolverOf({ 'a.corp': ['10.20.9.9'], 'b.corp': ['10.30.0.1'] }) });
  assert.equal(await guard.vetHost('a.corp'), [{ address: '10.20.9.9', family: 4 }]);
  await refusal(guard.vetHost('b.corp'));
});

test('an unresolvable name is a tool_execution_error naming it', async () => {
  const guard = new SsrfGuard({ resolver: resolverOf({}) });
  const error = await refusal(guard.vetHost('nowhere.example'));
  assert.is(error.code, 'tool_execution_error');
  assert.is(error.message, "cannot resolve host 'nowhere.example': ENOTFOUND");
});

test('the lookup given to the HTTP agents refuses through its callback and answers in both shapes', async () => {
  const guard = new SsrfGuard({ resolver: resolverOf({ 'private.example': ['172.16.5.5'], 'ok.example': ['93.184.216.34'] }) });
  const refused = await new Promise<unknown>((resolve) => guard.lookup('private.example', { all: true }, (error) => resolve(error)));
  assert.instance(refused, ToolError);
  const all = await new Promise<unknown>((resolve) => guard.lookup('ok.example', { all: true }, (_e, addresses) => resolve(addresses)));
  assert.equal(all, [{ address: '93.184.216.34', family: 4 }]);
  const one = await new Promise<unknown>((resolve) => guard.lookup('ok.example', {}, (_e, address, family) => resolve([address, family])));
  assert.equal(one, ['93.184.216.34', 4]);
});

test('the client refuses a private name before any connection: the request fails with ssrf_blocked', async () => {
  const resolver = resolverOf({ 'intranet.example': ['192.168.10.10'] });
  const client = new SafeHttpClient({ resolver });
  try {
    const error = await refusal(client.request({ method: 'GET', url: 'http://intranet.example:8080/admin' }));
    assert.is(error.code, 'ssrf_blocked');
    assert.match(error.message, /'intranet\.example' \(resolves to 192\.168\.10\.10\): it is a private address/);
    assert.equal(resolver.asked, ['intranet.example']);
  } finally {
    client.close();
  }
});

test('the client refuses literal private, metadata and obfuscated loopback URLs without resolving or connecting', async () => {
  const resolver = resolverOf({});
  const client = new SafeHttpClient({ resolver });
  try {
    for (const [url, reason] of [
      ['http://10.0.0.1/', /private/],
      ['http://169.254.169.254/latest/meta-data/', /cloud metadata/],
      ['http://[::ffff:a00:1]/', /private/],
      ['http://2130706433/', /loopback/],
      ['http://0x7f.1/', /loopback/],
      ['http://017700000001/', /loopback/],
      ['http://[::1]:1/', /loopback/],
      ['http://0.0.0.0:1/', /unspecified/],
    ] as const) {
      const error = await refusal(client.request({ method: 'GET', url }));
      assert.is(error.code, 'ssrf_blocked', url);
      assert.match(error.message, reason, url);
    }
    assert.equal(resolver.asked, []);
  } finally {
    client.close();
  }
});

test.run();
