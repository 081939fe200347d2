/**
 * `agentkit agent serve` as a real process of the built binary: startup lines, auth from the flag or
 * AGENTKIT_SERVE_TOKEN, the exposure warning, graceful SIGTERM with traces flushed, target errors. `mcp serve` has its
 * own file (mcp-serve.test.ts).
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { conformance, startCli, type ScenarioContext } from '../harness/index.js';
import { backendConfig } from '../harness/checkpointers.js';
import { AgentClient } from '../../src/client/index.js';
import { TraceStore } from '../../src/tracing/index.js';

const area = conformance('serving from the CLI');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const moduleUrl = (file: string) => JSON.stringify(pathToFileURL(path.join(root, file)).href);

/** A runner file in the variant's directory: the weather agent and the approval chain bound to the variant's store. */
async function writeRunners(t: ScenarioContext): Promise<void> {
  const chain = t.backend.kind === 'none' ? '' : `export const refund = () => approvalRunner(${JSON.stringify(backendConfig(t.backend))});\n`;
  await writeFile(
    path.join(t.cwd, 'runners.mts'),
    `import { weatherAgent } from ${moduleUrl('conformance/fixtures/serving/runners.ts')};
import { approvalRunner } from ${moduleUrl('conformance/fixtures/durability/chains.ts')};
export const weather = weatherAgent();
export const makeWeather = () => weatherAgent();
export const notARunner = { hello: 'world' };
${chain}`,
  );
}

async function serveProcess(t: ScenarioContext, args: string[], env: Record<string, string> = {}) {
  const proc = startCli(['agent', 'serve', ...args], { cwd: t.cwd, env: { ...t.env, ...env } });
  t.defer(() => proc.kill());
  const [, url] = await proc.waitForStderr(/serving \w+ '[^']+' on (http:\/\/[^ ]+)/);
  return { proc, url: url!.replace('0.0.0.0', '127.0.0.1') };
}

area.scenario(
  'agent serve: serves a factory target, answers runs, and stops gracefully on SIGTERM with traces flushed',
  { rows: ['cli:agent serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    await writeRunners(t);
    const { proc, url } = await serveProcess(t, ['runners.mts:makeWeather', '--port', '0', '--host', '127.0.0.1']);
    assert.match(proc.stderr(), /agentkit: serving agent 'weather' on http:\/\/127\.0\.0\.1:\d+ \(GET \/health, POST \/run, POST \/run\/stream\)\n/);
    const client = new AgentClient({ baseUrl: url });
    assert.equal((await client.health()).data, { status: 'ok' });
    const run = await client.run('weather in Paris');
    assert.not.match(proc.stderr(), /WARNING/, 'a loopback bind does not warn');
    assert.is(run.data?.output, 'It is 15 degrees in Paris.');
    proc.child.kill('SIGTERM');
    const exit = await proc.exited;
    assert.equal(exit, { code: 0, signal: null });
    assert.match(
      proc.stderr(),
      /agentkit: stopping: in-flight runs stop at their next step boundary \(grace 25000 ms\); another replica continues them\nagentkit: stopped\n$/,
    );
    assert.is(proc.stdout(), '');
    const trace = await new TraceStore({ dbPath: t.env.AGENTKIT_LOCAL_DB }).getTrace(run.data!.trace_id!);
    assert.is(trace.name, 'agent.weather', 'the trace was flushed before exit');
  },
);

/** An agent file whose model always answers `reply`: rewriting it is the change `--reload` must pick up. */
async function writeEchoAgent(t: ScenarioContext, reply: string): Promise<void> {
  await writeFile(
    path.join(t.cwd, 'echo.mts'),
    `import { Agent } from ${moduleUrl('src/index.ts')};
import { FunctionModel } from ${moduleUrl('src/testing/index.ts')};
export const echo = new Agent({ name: 'echo', llm: new FunctionModel(() => ${JSON.stringify(reply)}), trace: false });
`,
  );
}

area.scenario(
  'agent serve --reload: a changed source file restarts the server with the new code; the server never outlives its supervisor',
  { rows: ['cli:agent serve'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    await writeEchoAgent(t, 'version one');
    const proc = startCli(['agent', 'serve', 'echo.mts:echo', '--reload', '--port', '0', '--host', '127.0.0.1'], { cwd: t.cwd, env: t.env });
    t.defer(() => proc.kill());
    await proc.waitForStderr(/agentkit: watching \S+ for changes/);
    const [, first] = await proc.waitForStderr(/serving agent 'echo' on (http:\/\/[^ ]+)/, 40_000);
    assert.is((await new AgentClient({ baseUrl: first! }).run('hi')).data?.output, 'version one');

    await writeEchoAgent(t, 'version two');
    const [, second] = await proc.waitForStderr(/echo\.mts changed; restarting[\s\S]*serving agent 'echo' on (http:\/\/[^ ]+)/, 40_000);
    assert.is((await new AgentClient({ baseUrl: second! }).run('hi')).data?.output, 'version two');
    assert.match(
      proc.stderr(),
      /agentkit: stopping: in-flight runs stop at their next step boundary \(grace 25000 ms\); another replica continues them\nagentkit: stopped\n/,
      'the old server was stopped gracefully',
    );

    // SIGKILL the supervisor: it cannot forward anything, yet its server must stop (it watches the supervisor's pipe).
    proc.child.kill('SIGKILL');
    await proc.exited;
    const deadline = Date.now() + 20_000;
    let refused = false;
    while (!refused && Date.now() < deadline) {
      refused = await fetch(`${second}/health`).then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(refused, 'the server stopped once its supervisor was gone');
  },
);

area.scenario(
  'agent serve: a Chain target pauses over HTTP and is resumed with agentkit resume',
  { rows: ['cli:agent serve', 'cli:resume'], surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    await writeRunners(t);
    const { proc, url } = await serveProcess(t, ['runners.mts:refund', '--port', '0', '--host', '127.0.0.1']);
    assert.match(proc.stderr(), /serving chain 'refund' on http:\/\/127\.0\.0\.1:\d+ \(GET \/health, POST \/run\)\n/);
    const paused = await new AgentClient({ baseUrl: url }).run('refund order 7');
    assert.is(paused.data?.status, 'paused');
    const resumed = await t.bin(['resume', paused.data!.execution_id, '--runner', 'runners.mts:refund']);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /status: completed/);
    proc.child.kill('SIGTERM');
    assert.is((await proc.exited).code, 0);
  },
);

area.scenario(
  'agent serve: token from the flag or AGENTKIT_SERVE_TOKEN (the flag wins); a non-loopback bind without one warns',
  { rows: ['cli:agent serve'], backends: 'none', surfaces: ['cli'], timeoutMs: 40_000 },
  async (t) => {
    await writeRunners(t);
    const fromEnv = await serveProcess(t, ['runners.mts:weather', '--port', '0', '--host', '127.0.0.1'], { AGENTKIT_SERVE_TOKEN: 'env-token' });
    assert.match(fromEnv.proc.stderr(), /with bearer auth/);
    assert.is((await new AgentClient({ baseUrl: fromEnv.url }).run('hi')).error?.status, 401);
    assert.is((await new AgentClient({ baseUrl: fromEnv.url, token: 'env-token' }).run('hi')).data?.output, 'You said: hi');
    fromEnv.proc.child.kill('SIGTERM');
    await fromEnv.proc.exited;

    const flagWins = await serveProcess(t, ['runners.mts:weather', '--port', '0', '--host', '127.0.0.1', '--auth-token', 'flag-token'], {
      AGENTKIT_SERVE_TOKEN: 'env-token',
    });
    assert.is((await new AgentClient({ baseUrl: flagWins.url, token: 'env-token' }).run('hi')).error?.status, 401);
    assert.is((await new AgentClient({ baseUrl: flagWins.url, token: 'flag-token' }).run('hi')).data?.status, 'completed');
    flagWins.proc.child.kill('SIGTERM');
    await flagWins.proc.exited;

    const exposed = await serveProcess(t, ['runners.mts:weather', '--port', '0']);
    await exposed.proc.waitForStderr(/WARNING: serving on a non-loopback address \(0\.0\.0\.0\) with NO authentication/);
    assert.equal((await new AgentClient({ baseUrl: exposed.url }).health()).data, { status: 'ok' });
    exposed.proc.child.kill('SIGINT');
    assert.is((await exposed.proc.exited).code, 0);
  },
);

area.scenario(
  'agent serve: targets that do not resolve fail with a message naming the file, attribute and what was found',
  { rows: ['cli:agent serve'], backends: 'none', surfaces: ['cli'] },
  async (t) => {
    await writeRunners(t);
    const missingFile = await t.cli(['agent', 'serve', 'nope.ts:agent', '--port', '0']);
    assert.is(missingFile.code, 2);
    assert.match(missingFile.stderr, /nope\.ts/);
    const missingAttr = await t.cli(['agent', 'serve', 'runners.mts:agnet', '--port', '0']);
    assert.is(missingAttr.code, 2);
    assert.match(missingAttr.stderr, /has no attribute 'agnet'; it exports: makeWeather, notARunner, weather/);
    const notRunner = await t.cli(['agent', 'serve', 'runners.mts:notARunner', '--port', '0']);
    assert.is(notRunner.code, 2);
    assert.match(notRunner.stderr, /cannot serve an object with keys hello: expected an Agent, Chain, Swarm or Supervisor/);
    const badPort = await t.cli(['agent', 'serve', 'runners.mts:weather', '--port', '99999']);
    assert.is(badPort.code, 2);
    assert.is(badPort.stdout, '');
  },
);

area.scenario(
  'agent serve --cors-origin: `*`, `null` and anything not exactly an origin are refused with one line and exit 2, before loading',
  { rows: ['cli:agent serve'], backends: 'none', surfaces: ['cli'] },
  async (t) => {
    const cases: Array<[string, RegExp]> = [
      ['*', /--cors-origin "\*": a wildcard is refused; list each origin that may call the agent/],
      ['null', /--cors-origin "null": the null origin \(sandboxed frames, file: pages\) is refused/],
      ['https://App.example/', /--cors-origin "https:\/\/App\.example\/" is not exactly an origin .*; write "https:\/\/app\.example"/],
      ['http://app.example:80', /write "http:\/\/app\.example"/],
      ['https://app.example/path', /is not exactly an origin/],
      ['ftp://app.example', /only http and https origins can be allowed/],
      ['app.example', /is not an origin; write scheme, host and port/],
    ];
    for (const [origin, message] of cases) {
      // The target does not exist: the flag is refused before anything is loaded.
      const refused = await t.cli(['agent', 'serve', 'nope.ts:agent', '--port', '0', '--cors-origin', 'https://ok.example', '--cors-origin', origin]);
      assert.is(refused.code, 2, `${origin}: ${refused.stderr}`);
      assert.match(refused.stderr, message);
      assert.is(refused.stderr.trim().split('\n').length, 1, `one line: ${refused.stderr}`);
      assert.is(refused.stdout, '');
    }
  },
);

area.run();
