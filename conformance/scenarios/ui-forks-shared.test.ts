/**
 * UI replay forks live in the store (issue 39), on both engines: a fork made and modified in one `agentkit ui` process
 * is read and rerun in a second one started after the first stopped (a restart keeps it), and compared from a third
 * running beside the second. A fork id the store does not hold is 404 `fork_not_found` naming the store.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli, type CliProcess } from '../harness/cli-process.js';
import { conformance, runTsFile, type ScenarioContext } from '../harness/index.js';
import { Browser } from '../harness/ui-client.js';

const area = conformance('ui: replay forks shared through the store');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = path.join(root, 'examples/replay/ui-desk.ts');

/** Start `agentkit ui` with the desk agent on the scenario's store; returns it with a signed-in browser. */
async function startUi(t: ScenarioContext, env: Record<string, string>): Promise<{ ui: CliProcess; browser: Browser }> {
  const ui = startCli(['ui', '--port', '0', '--no-open', '--agent', `${EXAMPLE}:desk`], { cwd: t.cwd, env });
  t.defer(() => ui.kill());
  const [, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)/, 30_000);
  const browser = new Browser(url!);
  const login = await browser.login('alice', 'a long passphrase');
  assert.is(login.status, 200, login.text);
  return { ui, browser };
}

/** The events of a rerun's SSE body. */
function events(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n\n')
    .map((frame) =>
      frame
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

area.scenario('a fork made in UI process A is rerun in B (started after A stopped) and compared in C', { surfaces: ['cli'], timeoutMs: 120_000 }, async (t) => {
  const env = { ...t.env, AGENTKIT_LOCAL_DB: t.store! };
  const once = await runTsFile([EXAMPLE], { cwd: t.cwd, env: { ...process.env, ...env } });
  assert.is(once.code, 0, once.stderr);
  const traceId = /trace_id: (\S+)/.exec(once.stdout)![1]!;
  const reset = await t.bin(['ui', 'reset-password', '--username', 'alice', '--password-stdin'], { stdin: 'a long passphrase\n', env });
  assert.is(reset.code, 0, reset.stderr);

  const a = await startUi(t, env);
  const made = await a.browser.request('POST', `/api/replay/${traceId}/fork`, { step: 0 });
  assert.is(made.status, 201, made.text);
  const forkId = made.json().fork_id as string;
  const patched = await a.browser.request('PATCH', `/api/replay/forks/${forkId}`, { prompt: 'Be polite.', llm_params: { temperature: 0 } });
  assert.is(patched.status, 200, patched.text);
  a.ui.child.kill('SIGTERM');
  assert.is((await a.ui.exited).code, 0, a.ui.stderr());

  const b = await startUi(t, env);
  const seen = await b.browser.request('GET', `/api/replay/forks/${forkId}`);
  assert.is(seen.status, 200, seen.text);
  assert.equal(seen.json(), patched.json(), 'B reads the fork as A left it');
  const rerun = await b.browser.request('POST', `/api/replay/forks/${forkId}/rerun`);
  assert.is(rerun.status, 200, rerun.text);
  const done = events(rerun.text).at(-1)! as { type: string; result: { new_output: string; original_output: string }; comparison: unknown };
  assert.is(done.type, 'done', rerun.text);
  assert.equal([done.result.original_output, done.result.new_output], ['Order 42 is delivered.', 'Certainly! Order 42 is delivered.']);

  const c = await startUi(t, env);
  const compared = await c.browser.request('GET', `/api/replay/forks/${forkId}/compare`);
  assert.is(compared.status, 200, compared.text);
  assert.equal(compared.json(), done.comparison, 'C compares the rerun B made');
  const state = (await c.browser.request('GET', `/api/replay/forks/${forkId}`)).json();
  assert.equal(state.rerun, done.result);
  // C changes the fork; B's next read sees it (its cached rebuild is made again from the store).
  assert.is((await c.browser.request('PATCH', `/api/replay/forks/${forkId}`, { prompt: 'Be terse.' })).status, 200);
  assert.is((await b.browser.request('GET', `/api/replay/forks/${forkId}`)).json().modifications.prompt, 'Be terse.');
  const again = events((await b.browser.request('POST', `/api/replay/forks/${forkId}/rerun`)).text).at(-1)! as { result: { new_output: string } };
  assert.is(again.result.new_output, 'Order 42 is delivered.', "B reruns with C's prompt, which asks for no courtesy");

  const missing = await c.browser.request('GET', '/api/replay/forks/no-such-fork');
  assert.is(missing.status, 404);
  assert.is(missing.json().code, 'fork_not_found');
  assert.not.match(missing.json().detail, /:[^@/]*@/, 'no password in the message');
});

area.run();
