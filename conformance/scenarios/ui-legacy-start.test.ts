/**
 * `agentkit ui` runs the legacy import on start, as `agentkit migrate` does: the old trace store, checkpoint store and
 * prompt directory are imported into local.db before the first request (the legacy trace and the legacy paused run
 * are served at once), reported on stderr, and a second start imports nothing again.
 */
import * as assert from 'uvu/assert';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { conformance, startCli, type ScenarioContext } from '../harness/index.js';
import { LEGACY_PAUSED_EXECUTION_ID, LEGACY_TRACE_ID, writeLegacyCheckpoints, writeLegacyPrompts, writeLegacyTraces } from '../fixtures/legacy/build.js';
import { openLocalStore } from '../../src/store/index.js';

const area = conformance('local UI legacy import on start');

function dbOf(t: ScenarioContext): string {
  if (t.backend.kind !== 'sqlite') throw new Error('the legacy import targets the local store');
  return t.backend.dbPath;
}

function spanCount(file: string): number {
  const db = openLocalStore(file);
  try {
    return (db.prepare('SELECT count(*) AS n FROM spans').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function startUi(t: ScenarioContext) {
  const ui = startCli(['ui', '--port', '0', '--no-open', '--no-auth', '--db', dbOf(t)], { cwd: t.cwd, env: t.env });
  t.defer(() => ui.kill());
  const [, url] = await ui.waitForStderr(/serving on (http:\/\/\S+)/, 30_000);
  return { ui, url: url! };
}

async function stop(ui: Awaited<ReturnType<typeof startUi>>['ui']): Promise<void> {
  ui.child.kill('SIGTERM');
  assert.is((await ui.exited).code, 0, ui.stderr());
}

area.scenario(
  'agentkit ui imports the legacy stores on start, once',
  { rows: ['cli:migrate', 'cli:ui'], backends: ['sqlite'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    await mkdir(path.join(t.cwd, '.agentkit'), { recursive: true });
    writeLegacyTraces(t.cwd);
    writeLegacyCheckpoints(t.cwd);
    await writeLegacyPrompts(t.cwd);

    const first = await startUi(t);
    const stderr = first.ui.stderr();
    assert.match(
      stderr,
      new RegExp(`agentkit ui: imported legacy traces from ${path.join(t.cwd, '.agentkit', 'traces.db').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: 3 spans\n`),
    );
    assert.match(stderr, /agentkit ui: imported legacy checkpoints from .*checkpoints\.db: 3 checkpoints, 1 pending interrupts, 1 idempotency records\n/);
    assert.match(stderr, /agentkit ui: imported legacy prompts from .*\.prompts: 2 prompts, 4 versions, 2 labels, 1 fragments\n/);
    assert.match(stderr, /agentkit ui: warning: .*fragment 'signature' is not registered/);
    assert.ok(stderr.indexOf('imported legacy traces') < stderr.indexOf('serving on'), 'imported before serving');
    const trace = await fetch(`${first.url}/api/traces/${LEGACY_TRACE_ID}`);
    assert.is(trace.status, 200);
    assert.equal(
      ((await trace.json()) as { spans: Array<{ name: string }> }).spans.map((s) => s.name),
      ['agent.support', 'llm.openai.gpt-4o-mini', 'tool.lookup_order'],
    );
    const pending = (await (await fetch(`${first.url}/api/pending-interrupts`)).json()) as { items: Array<{ execution_id: string }> };
    assert.ok(
      pending.items.some((row) => row.execution_id === LEGACY_PAUSED_EXECUTION_ID),
      JSON.stringify(pending),
    );
    await stop(first.ui);
    const spans = spanCount(dbOf(t));
    assert.is(spans, 3);

    const second = await startUi(t);
    assert.not.match(second.ui.stderr(), /imported legacy/, 'nothing is imported twice');
    assert.is((await fetch(`${second.url}/api/traces/${LEGACY_TRACE_ID}`)).status, 200);
    await stop(second.ui);
    assert.is(spanCount(dbOf(t)), spans);

    const migrate = await t.cli(['migrate']);
    assert.match(migrate.stdout, /traces .*: already imported at /, "agentkit migrate sees the UI's import as done");
  },
);

area.run();
