import * as assert from 'uvu/assert';
import { suite } from '../../../test-support/uvu.js';
import { fixtureStdio, startHttpFixture } from '../../../test-support/mcp-fixture.js';
import { knownSecrets } from '../../config/secrets.js';
import { ConfigError } from '../../errors.js';
import { ToolRegistry } from '../registry.js';
import { ToolError } from '../tool-error.js';
import { mcpTools } from './mcp-tools.js';

const test = suite('mcp client tools', { timeoutMs: 30_000 });

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

test('stdio: the server tools become agentkit tools with schema, description and replay class, and run', async () => {
  const registry = new ToolRegistry();
  const tools = await mcpTools({ ...fixtureStdio(), env: { FIXTURE_GREETING: 'hello', FIXTURE_API_TOKEN: 'mcp-env-secret-5150' }, registry });
  try {
    assert.equal(
      tools.map((t) => t.name),
      ['add', 'shout_loud', 'fail', 'structured', 'whoami'],
    );
    assert.equal(registry.names(), ['add', 'fail', 'shout_loud', 'structured', 'whoami']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    const add = byName.add!;
    assert.is(add.description, 'Add two numbers');
    assert.equal(add.parameters.required, ['a', 'b']);
    assert.equal(Object.keys(add.parameters.properties as object), ['a', 'b']);
    assert.is(add.replayClass, 'read_only', 'from readOnlyHint');
    assert.is(byName.shout_loud!.replayClass, 'side_effecting');
    assert.is(add.origin, 'mcp');
    assert.is(await add.execute({ a: 2, b: 3 }), '5');
    assert.is(await byName.shout_loud!.execute({ text: 'hi' }), 'HI\n[image: image/png]');
    assert.equal(await byName.structured!.execute({ city: 'Oslo' }), { city: 'Oslo', temperature: 21 });
    assert.equal(JSON.parse((await byName.whoami!.execute({})) as string), { authorization: null, greeting: 'hello' });
    const failed = await failure(byName.fail!.execute({}));
    assert.instance(failed, ToolError);
    assert.is(failed.message, "tool 'fail': the MCP server reported an error: the fixture failed on purpose");
    const invalid = await failure(add.execute({ a: 'two' } as never));
    assert.is((invalid as ToolError).code, 'validation_failed');
    assert.match(invalid.message, /\/a/);
    const dict = add.toDict();
    assert.is(dict.tool_type, 'mcp');
    assert.equal(dict.config.env, { FIXTURE_GREETING: '***', FIXTURE_API_TOKEN: '***' });
    assert.is(dict.config.mcp_name, 'add');
    assert.equal(byName.shout_loud!.toDict().config.mcp_name, 'shout.loud');
    assert.not.ok(JSON.stringify(dict).includes('mcp-env-secret'));
    assert.ok(knownSecrets().includes('mcp-env-secret-5150'), 'credential-like env values are registered secrets');
    assert.not.ok(knownSecrets().includes('hello'));
  } finally {
    await tools.close();
  }
  const closed = await failure(tools[0]!.execute({ a: 1, b: 1 }));
  assert.match(closed.message, /^tool 'add': the connection to the MCP server '.*' is closed/);
});

test('include, prefix and per-tool replay classes; an unknown include is a ConfigError listing what exists', async () => {
  const tools = await mcpTools({
    ...fixtureStdio(),
    include: ['add', 'shout.loud'],
    prefix: 'calc_',
    replayClass: { 'shout.loud': 'idempotent' },
    registry: false,
  });
  try {
    assert.equal(
      tools.map((t) => [t.name, t.replayClass]),
      [
        ['calc_add', 'read_only'],
        ['calc_shout_loud', 'idempotent'],
      ],
    );
    assert.is(await tools[0]!.execute({ a: 1, b: 2 }), '3');
  } finally {
    await tools.close();
  }
  const error = await failure(mcpTools({ ...fixtureStdio(), include: ['nope'], registry: false }));
  assert.instance(error, ConfigError);
  assert.match(error.message, /has no tool 'nope'; it has 'add', 'shout.loud', 'fail', 'structured', 'whoami'$/);
});

test('a server that cannot start is a ConfigError naming the command', async () => {
  const error = await failure(mcpTools({ command: process.execPath, args: ['-e', 'console.error("boom: missing config"); process.exit(3)'], registry: false }));
  assert.instance(error, ConfigError);
  assert.match(error.message, /^cannot connect to the MCP server '.*node -e .*'/);
});

test('Streamable HTTP: loopback refused by default; with allowHosts the tools run and the header reaches the server', async () => {
  const fixture = await startHttpFixture();
  try {
    const refused = await failure(mcpTools({ url: fixture.url, registry: false }));
    assert.instance(refused, ConfigError);
    assert.match(refused.message, /refused to connect to '127\.0\.0\.1': it is a loopback address/);
    const tools = await mcpTools({ url: fixture.url, headers: { Authorization: 'Bearer mcp-http-secret-77' }, allowHosts: ['127.0.0.1'], registry: false });
    try {
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      assert.is(await byName.add!.execute({ a: 20, b: 22 }), '42');
      assert.equal(JSON.parse((await byName.whoami!.execute({})) as string), { authorization: 'Bearer mcp-http-secret-77', greeting: null });
      assert.equal(byName.add!.toDict().config, {
        transport: 'streamable_http',
        url: `http://127.0.0.1:${fixture.port}/mcp`,
        headers: { Authorization: '***' },
        mcp_name: 'add',
        timeout_ms: 60000,
      });
      assert.ok(knownSecrets().includes('Bearer mcp-http-secret-77'));
    } finally {
      await tools.close();
    }
  } finally {
    await fixture.stop();
  }
});

test.run();
