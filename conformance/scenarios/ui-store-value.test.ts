/**
 * `agentkit ui --db <path|url>` (issue 38): the UI reads traces and executions from the store one value names, a
 * SQLite file or a `postgres://...?schema=` URL. Favorites are stored on either; on Postgres no `.agentkit` appears
 * (with `--no-auth`), and the URL's password appears in no output.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Agent, flushTraces } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { startCli } from '../harness/cli-process.js';
import { conformance, type Backend } from '../harness/index.js';

const area = conformance('ui: a store named by one value');
const PASSWORD = 'U1St0reS3cretPw';

function storeValueOf(backend: Backend): string {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind !== 'postgres') throw new Error('no store');
  const url = new URL(backend.url);
  url.password = PASSWORD;
  url.searchParams.set('schema', backend.schema);
  return url.toString();
}

area.scenario('ui --db lists and shows the traces of the store it names', { rows: ['cli:ui'], surfaces: ['cli'], timeoutMs: 60_000 }, async (t) => {
  const store = storeValueOf(t.backend);
  const agent = new Agent({ name: 'ui_store', systemPrompt: 'Answer.', llm: new ScriptedModel([{ text: 'Seen in the UI.' }]), traceDb: store });
  const traceId = (await agent.run('hi')).trace_id!;
  await flushTraces();

  const ui = startCli(['ui', '--port', '0', '--no-open', '--no-auth', '--db', store], { cwd: t.cwd, env: t.env });
  t.defer(() => ui.kill());
  const [, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)/, 30_000);
  const label = t.backend.kind === 'postgres' ? store.replace(PASSWORD, '[REDACTED]') : store;
  assert.ok(ui.stderr().includes(`(store ${label}, no login)`), ui.stderr());

  const list = (await (await fetch(`${url}/api/traces`)).json()) as { items: Array<{ trace_id: string; name: string; favorite: boolean }> };
  assert.equal(
    list.items.map((item) => [item.trace_id, item.name, item.favorite]),
    [[traceId, 'agent.ui_store', false]],
  );
  const trace = await fetch(`${url}/api/traces/${traceId}`);
  assert.is(trace.status, 200);
  assert.ok(((await trace.json()) as { spans: unknown[] }).spans.length >= 2);
  const overview = (await (await fetch(`${url}/api/overview`)).json()) as { traces_last_24h: number; pending_approvals_count: number };
  assert.equal([overview.traces_last_24h, overview.pending_approvals_count], [1, 0]);
  const pending = await fetch(`${url}/api/pending-interrupts`);
  assert.is(pending.status, 200);

  // Writes carry the CSRF cookie and header even without a login.
  const status = await fetch(`${url}/api/auth/status`);
  const csrf = /agentkit_csrf=([0-9a-f]{64})/.exec(status.headers.getSetCookie().join('; '))![1]!;
  const favorite = await fetch(`${url}/api/traces/${traceId}/favorite`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', cookie: `agentkit_csrf=${csrf}`, 'x-csrf-token': csrf },
    body: JSON.stringify({ favorite: true }),
  });
  assert.is(favorite.status, 200, await favorite.clone().text());
  const starred = (await (await fetch(`${url}/api/traces?favorites=true`)).json()) as { items: Array<{ trace_id: string; favorite: boolean }> };
  assert.equal(
    starred.items.map((item) => [item.trace_id, item.favorite]),
    [[traceId, true]],
  );

  ui.child.kill('SIGTERM');
  assert.is((await ui.exited).code, 0, ui.stderr());
  assert.not.ok(ui.stderr().includes(PASSWORD), ui.stderr());
  if (t.backend.kind === 'postgres') assert.not.ok(existsSync(path.join(t.cwd, '.agentkit')), 'a URL store creates no .agentkit folder');
});

area.run();
