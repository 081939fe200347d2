/**
 * Short ids on the CLI (issue 49, docs/adr/0060): a 12-character prefix or suffix of a trace id works in `traces export`,
 * `export-trace`, `replay show` and `replay inspect`, one of an execution id in `inspect` and `resume` (which prints the
 * full id it resolved); a fragment two ids share exits 2 listing both. On SQLite and Postgres.
 */
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { openLocalStore } from '../../src/store/index.js';
import { Agent, flushTraces } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { pauseRun, storeFlags, writeRunner } from '../fixtures/durability/cli-variant.js';

const area = conformance('CLI: short ids');

/** Insert one-span traces with the given ids, as another process would have written them, into the variant's store. */
async function insertTraces(t: ScenarioContext, ids: readonly string[]): Promise<void> {
  const start = new Date().toISOString().replace('Z', '000Z');
  if (t.backend.kind === 'postgres') {
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      for (const id of ids)
        await client.query(
          `INSERT INTO "${t.backend.schema}".spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status) VALUES ($1, $2, NULL, 'agent.short', $3, $3, 'OK')`,
          [randomBytes(8).toString('hex'), id, start],
        );
    } finally {
      await client.end();
    }
    return;
  }
  const db = openLocalStore(t.store!);
  const insert = db.prepare(
    "INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status) VALUES (?, ?, NULL, 'agent.short', ?, ?, 'OK')",
  );
  for (const id of ids) insert.run(randomBytes(8).toString('hex'), id, start, start);
  db.close();
}

/** Write one agent run to the variant's store, so its trace tables exist. */
async function seedStore(t: ScenarioContext): Promise<void> {
  const agent = new Agent({ name: 'seed', systemPrompt: 'x', llm: new ScriptedModel([{ text: 'ok' }]), traceDb: t.store! });
  await agent.run('hi');
  await flushTraces();
}

area.scenario(
  'trace ids: a 12-character prefix or suffix works in traces export, export-trace, replay show and inspect; a shared prefix exits 2',
  { rows: ['cli:traces export', 'cli:replay show'], surfaces: ['cli'], storeEnv: true },
  async (t) => {
    await seedStore(t);
    const shared = '0193a2b4c5d6';
    const one = `${shared}${randomBytes(10).toString('hex')}`;
    const two = `${shared}${randomBytes(10).toString('hex')}`;
    await insertTraces(t, [one, two]);
    const full = (await t.cli(['traces', 'export', one])).stdout;
    assert.ok(full.includes(`"trace_id": "${one}"`), full);

    for (const fragment of [one.slice(0, 14), one.slice(-12)]) {
      const exported = await t.cli(['traces', 'export', fragment]);
      assert.equal([exported.code, exported.stdout, exported.stderr], [0, full, ''], fragment);
      const shown = await t.cli(['replay', 'show', fragment]);
      assert.is(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, one);
      const step = await t.cli(['replay', 'inspect', fragment, '0', '--json']);
      assert.is(step.code, 0, step.stderr);
      assert.is(JSON.parse(step.stdout).span_name, 'agent.short');
      const file = await t.cli(['export-trace', fragment, '--output', 'short.json']);
      assert.is(file.code, 0, file.stderr);
      assert.is(JSON.parse(await readFile(path.join(t.cwd, 'short.json'), 'utf8')).trace.trace_id, one);
    }
    const flag = await t.cli(['export-trace', '--trace-id', one.slice(-12), '--output', 'flag.json']);
    assert.is(flag.code, 0, flag.stderr);

    const [first, second] = [one, two].sort();
    for (const command of [['traces', 'export'], ['replay', 'show'], ['export-trace']]) {
      const ambiguous = await t.cli([...command, shared]);
      assert.equal([ambiguous.code, ambiguous.stdout], [2, ''], command.join(' '));
      assert.ok(
        ambiguous.stderr.startsWith(`error: trace id '${shared}' is ambiguous: it matches ${first}, ${second}; give more characters`),
        ambiguous.stderr,
      );
    }
    const short = await t.cli(['traces', 'export', one.slice(0, 7)]);
    assert.is(short.code, 1);
    assert.ok(short.stderr.startsWith(`error: trace id '${one.slice(0, 7)}' not found in `), short.stderr);
    assert.ok(!short.stderr.includes('ambiguous'), 'fewer than 8 characters are an exact id only');
  },
);

area.scenario(
  'execution ids: a 12-character prefix or suffix works in inspect and resume (which prints the full id); a shared prefix exits 2',
  { rows: ['cli:inspect', 'cli:resume'], surfaces: ['cli'] },
  async (t) => {
    const runner = await writeRunner(t);
    const one = randomUUID();
    const two = `${one.slice(0, 12)}${randomUUID().slice(12)}`;
    const three = randomUUID();
    await pauseRun(t, one);
    await pauseRun(t, two);
    await pauseRun(t, three);

    for (const fragment of [three.slice(0, 12), three.slice(-12)]) {
      const inspected = await t.cli(['inspect', fragment, ...storeFlags(t)]);
      assert.is(inspected.code, 0, inspected.stderr);
      assert.ok(inspected.stdout.startsWith(`Execution: ${three}\n`), inspected.stdout);
      const json = JSON.parse((await t.cli(['inspect', fragment, '--json', ...storeFlags(t)])).stdout);
      assert.is(json.execution_id, three);
    }
    const ambiguous = await t.cli(['inspect', one.slice(0, 12), ...storeFlags(t)]);
    const [first, second] = [one, two].sort();
    assert.equal([ambiguous.code, ambiguous.stdout], [2, '']);
    assert.ok(
      ambiguous.stderr.startsWith(`error: execution id '${one.slice(0, 12)}' is ambiguous: it matches ${first}, ${second}; give more characters`),
      ambiguous.stderr,
    );

    const resumed = await t.cli(['resume', three.slice(-12), '--runner', runner]);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(resumed.stderr, `resuming execution ${three}\n`);
    assert.ok(resumed.stdout.startsWith(`execution_id: ${three}\nstatus: completed\n`), resumed.stdout);
    const byPrefix = await t.cli(['resume', one.slice(0, 12), '--runner', runner]);
    assert.equal([byPrefix.code, byPrefix.stdout], [2, '']);
    assert.match(byPrefix.stderr, `is ambiguous: it matches ${first}, ${second}`);
    const whole = await t.cli(['resume', one, '--runner', runner]);
    assert.equal([whole.code, whole.stderr], [0, ''], 'a whole id prints nothing extra');
  },
);

area.run();
