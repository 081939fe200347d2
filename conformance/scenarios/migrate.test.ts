/**
 * `agentkit migrate` against legacy fixtures built from the reference's description of the old layouts: each source
 * imported once and recorded, `--force` imports again without duplicating rows, imported rows are never marked for
 * push, a source equal to the target is skipped, and a broken source fails alone, importing nothing from it.
 */
import * as assert from 'uvu/assert';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { conformance, type ScenarioContext } from '../harness/index.js';
import {
  addLegacySpan,
  LEGACY_EXECUTION_ID,
  LEGACY_PAUSED_EXECUTION_ID,
  LEGACY_TRACE_ID,
  writeLegacyCheckpoints,
  writeLegacyPrompts,
  writeLegacyTraces,
} from '../fixtures/legacy/build.js';
import { importLegacyStores, PromptRegistry, SQLiteCheckpointer, TraceStore } from '../../src/index.js';
import { openLocalStore } from '../../src/store/index.js';

const area = conformance('migrate');

function dbOf(t: ScenarioContext): string {
  if (t.backend.kind !== 'sqlite') throw new Error('migrate imports into the local store');
  return t.backend.dbPath;
}

async function writeLegacy(t: ScenarioContext): Promise<void> {
  await mkdir(path.join(t.cwd, '.agentkit'), { recursive: true });
  writeLegacyTraces(t.cwd);
  writeLegacyCheckpoints(t.cwd);
  await writeLegacyPrompts(t.cwd);
}

/** Rows of local.db that would be pushed (synced = 0), per table. */
function unsynced(file: string): { spans: number; checkpoints: number; prompt_versions: number } {
  const db = openLocalStore(file);
  try {
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE synced = 0`).get() as { n: number }).n;
    return { spans: count('spans'), checkpoints: count('checkpoints'), prompt_versions: count('prompt_versions') };
  } finally {
    db.close();
  }
}

area.scenario(
  'migrate imports each legacy source once, reports it, and marks nothing for push',
  { rows: ['cli:migrate'], backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const none = await t.cli(['migrate']);
    assert.equal(none, {
      code: 0,
      stdout: [
        `target: ${dbOf(t)}`,
        `traces      ${path.join(t.cwd, '.agentkit', 'traces.db')}: not found, nothing to import`,
        `checkpoints ${path.join(t.cwd, '.agentkit', 'checkpoints.db')}: not found, nothing to import`,
        `prompts     ${path.join(t.cwd, '.prompts')}: not found, nothing to import`,
        '',
      ].join('\n'),
      stderr: '',
    });

    await writeLegacy(t);
    const first = await t.cli(['migrate']);
    assert.is(first.code, 0, first.stderr);
    assert.equal(first.stdout.split('\n').slice(1, 4), [
      `traces      ${path.join(t.cwd, '.agentkit', 'traces.db')}: imported 3 spans`,
      `checkpoints ${path.join(t.cwd, '.agentkit', 'checkpoints.db')}: imported 3 checkpoints, 1 pending interrupts, 1 idempotency records`,
      `prompts     ${path.join(t.cwd, '.prompts')}: imported 2 prompts, 4 versions, 2 labels, 1 fragments`,
    ]);
    assert.is(first.stderr, "warning: .prompts/triage/v1.yaml: fragment 'signature' is not registered; version skipped\n");

    // The history is usable: the trace is listed, the paused run is pending, prompts load by their old aliases.
    const trace = await new TraceStore({ dbPath: dbOf(t) }).getTrace(LEGACY_TRACE_ID);
    assert.equal(
      trace.spans.map((s) => s.name),
      ['agent.support', 'llm.openai.gpt-4o-mini', 'tool.lookup_order'],
    );
    const pending = await t.cli(['list-pending']);
    assert.match(pending.stdout, new RegExp(LEGACY_PAUSED_EXECUTION_ID));
    const checkpointer = new SQLiteCheckpointer(dbOf(t));
    t.defer(() => checkpointer.close());
    assert.equal(
      (await checkpointer.list(LEGACY_EXECUTION_ID)).map((c) => c.checkpoint_id),
      ['cp-1', 'cp-2'],
      'a row without checkpoint_id takes its legacy id',
    );
    assert.equal(await checkpointer.fetchUnsynced(100), [], 'no imported checkpoint is ever pushed');
    assert.equal(unsynced(dbOf(t)), { spans: 0, checkpoints: 0, prompt_versions: 0 });

    const registry = new PromptRegistry({ dbPath: dbOf(t) });
    const production = await registry.load('support', { label: 'production' });
    assert.equal(
      [production.version, production.origin, production.render({ company: 'Acme' })],
      [2, 'migrated', 'You help customers of Acme with orders.\nBe brief and kind.\n'],
    );
    const staging = await registry.load('support', { label: 'staging' });
    assert.equal([staging.version, staging.metadata], [3, { legacy_version: '1.1' }], 'a version that is not a whole number takes the next number');
    assert.equal(
      (await registry.list()).map((p) => [p.name, p.latest_version, p.versions, p.labels]),
      [
        ['support', 3, 3, { production: 2, staging: 3 }],
        ['triage', 2, 1, {}],
      ],
    );

    // Once per source: a second run imports nothing.
    const second = await t.cli(['migrate']);
    assert.is(second.code, 0);
    assert.match(second.stdout, /traces +.+traces\.db: already imported at \d{4}-\d\d-\d\dT[\d:.]+Z \(use --force to import again\)\n/);
    assert.match(second.stdout, /checkpoints .+: already imported at/);
    assert.match(second.stdout, /prompts +.+: already imported at/);

    // --force imports again: rows already present stay as they are, new legacy rows come over.
    addLegacySpan(path.join(t.cwd, '.agentkit', 'traces.db'), 'd1b2c3d4e5f60718');
    const forced = await t.cli(['migrate', '--force', '--json']);
    assert.is(forced.code, 0, forced.stderr);
    const report = JSON.parse(forced.stdout) as { sources: Array<{ kind: string; status: string; counts: Record<string, number> }> };
    assert.equal(
      report.sources.map((s) => [s.kind, s.status, s.counts]),
      [
        ['traces', 'imported', { spans: 1, spans_present: 3, spans_invalid: 0 }],
        [
          'checkpoints',
          'imported',
          {
            checkpoints: 0,
            checkpoints_present: 3,
            checkpoints_invalid: 0,
            pending_interrupts: 0,
            pending_interrupts_present: 1,
            idempotency_records: 0,
            idempotency_records_present: 1,
          },
        ],
        ['prompts', 'imported', { prompts: 0, versions: 0, versions_present: 4, labels: 0, fragments: 0 }],
      ],
    );
    assert.equal(unsynced(dbOf(t)), { spans: 0, checkpoints: 0, prompt_versions: 0 });
    const db = openLocalStore(dbOf(t));
    assert.is((db.prepare('SELECT count(*) AS n FROM spans').get() as { n: number }).n, 4);
    assert.is((db.prepare('SELECT count(*) AS n FROM legacy_imports').get() as { n: number }).n, 3);
    db.close();
  },
);

area.scenario(
  'migrate skips a source that is the target, and a broken source fails alone with nothing half-imported',
  { rows: ['cli:migrate'], backends: ['sqlite'], surfaces: ['sdk', 'cli'] },
  async (t) => {
    await writeLegacy(t);
    await writeFile(path.join(t.cwd, '.agentkit', 'checkpoints.db'), 'this is not a database, it is text long enough to have a header'.repeat(4));
    await writeFile(path.join(t.cwd, '.prompts', 'support', 'v3.yaml'), 'template: [unclosed\n');
    // A local run's span, written before the import: it stays unsynced (it is ours to push).
    const db = openLocalStore(dbOf(t));
    db.prepare("INSERT INTO spans (span_id, trace_id, name, start_time) VALUES ('0000000000000001', ?, 'agent.local', '2026-01-01T00:00:00Z')").run(
      'e'.repeat(32),
    );
    db.close();

    const result = t.surface === 'cli' ? await t.cli(['migrate', '--trace-db', dbOf(t)]) : null;
    const report = t.surface === 'cli' ? null : await importLegacyStores({ cwd: t.cwd, env: t.env, traceDb: dbOf(t) });
    if (result) {
      assert.is(result.code, 1);
      assert.match(result.stdout, new RegExp(`traces +${dbOf(t).replace(/[.]/g, '\\.')}: skipped \\(it is the target store\\)\\n`));
      assert.match(result.stdout, /checkpoints .+: failed, nothing imported\n/);
      assert.match(result.stdout, /prompts +.+: failed, nothing imported\n/);
      assert.equal(result.stderr.split('\n').filter(Boolean), [
        'error: .agentkit/checkpoints.db is not a readable SQLite store (file is not a database)',
        'error: .prompts/support/v3.yaml: not valid YAML (Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1)',
      ]);
    } else {
      assert.equal(
        report!.sources.map((s) => s.status),
        ['same_as_target', 'failed', 'failed'],
      );
      assert.ok(report!.failed);
    }
    const after = openLocalStore(dbOf(t));
    const count = (sql: string) => (after.prepare(sql).get() as { n: number }).n;
    assert.is(count('SELECT count(*) AS n FROM prompt_versions'), 0, 'the prompt import rolled back as a whole');
    assert.is(count('SELECT count(*) AS n FROM prompt_fragments'), 0);
    assert.is(count('SELECT count(*) AS n FROM legacy_imports'), 0, 'failed sources are not recorded, so the next run tries again');
    assert.is(count('SELECT count(*) AS n FROM spans WHERE synced = 0'), 1, 'the local span is untouched');
    after.close();
  },
);

area.run();
