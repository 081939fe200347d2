/**
 * `eval curate --db <path|url>` (issue 38) on both engines: cases from the agent spans of the store one value names,
 * with the `all`, `failed`, `favorites` and `noted` filters (annotations marked with `markFavorite`). A Postgres store
 * holds no guardrail events yet, so that filter is refused there with one line; the URL's password appears in no output.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { flushTraces, markFavorite, withTraceDestination } from '../../src/index.js';
import { deskChain, support } from '../fixtures/evals/agents.js';
import { conformance, type Backend } from '../harness/index.js';

const area = conformance('evals: curate from a store named by one value');
const PASSWORD = 'Cur4teS3cretPw';

function storeValueOf(backend: Backend): string {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind !== 'postgres') throw new Error('no store');
  const url = new URL(backend.url);
  url.password = PASSWORD;
  url.searchParams.set('schema', backend.schema);
  return url.toString();
}

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

area.scenario(
  'eval curate --db reads the agent spans of a SQLite file or a Postgres store',
  { rows: ['cli:eval curate'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const store = storeValueOf(t.backend);
    const root = await withTraceDestination(store, () => support.run('Capital of Italy?'));
    const hosted = await withTraceDestination(store, () => deskChain.run('Capital of France?'));
    await withTraceDestination(store, () => support.run('boom now')).then(
      () => assert.unreachable(),
      () => undefined,
    );
    await flushTraces();

    const out = path.join(t.cwd, 'curated.jsonl');
    const all = await t.cli(['eval', 'curate', '--db', store, '--out', out]);
    assert.is(all.code, 0, all.stderr);
    assert.is(all.stdout, `Wrote 2 case(s) to ${out} (1 matching span(s) skipped: no captured input or output)\n`);
    assert.equal(
      (await lines(out)).map((c) => [c.input, c.expected_output, c.agent_name, c.trace_id, c.source]),
      [
        ['Capital of Italy?', 'Rome', 'support', root.trace_id, 'curated:all'],
        ['Capital of France?', 'Paris', 'desk_agent', hosted.trace_id, 'curated:all'],
      ],
    );

    const onlyDesk = await t.cli(['eval', 'curate', '--db', store, '--agent', 'desk_agent', '--since', '1', '--out', out, '--json']);
    assert.equal(JSON.parse(onlyDesk.stdout), { file: out, written: 1, skipped: 0 });

    const failed = await t.cli(['eval', 'curate', '--db', store, '--filter', 'failed', '--out', out]);
    assert.is(failed.stdout, `Wrote 1 case(s) to ${out}\n`);
    const [review] = await lines(out);
    assert.equal([review!.input, review!.expected_output, review!.needs_review, review!.source], ['boom now', '', true, 'curated:failed']);
    assert.match(String(review!.reason), /^failed spans: .*agent\.support/);

    const none = await t.cli(['eval', 'curate', '--db', store, '--filter', 'favorites', '--out', out]);
    assert.equal([none.code, none.stdout], [0, "No matching agent runs for filter 'favorites'; nothing written\n"], none.stderr);
    await markFavorite(hosted.trace_id!, { dbPath: store });
    await markFavorite(root.trace_id!, { dbPath: store, favorite: false, note: 'the capital, checked' });
    const favorites = await t.cli(['eval', 'curate', '--db', store, '--filter', 'favorites', '--out', out]);
    assert.is(favorites.code, 0, favorites.stderr);
    assert.equal(
      (await lines(out)).map((c) => [c.input, c.trace_id, c.source]),
      [['Capital of France?', hosted.trace_id, 'curated:favorites']],
    );
    const noted = await t.cli(['eval', 'curate', '--db', store, '--filter', 'noted', '--out', out]);
    assert.is(noted.code, 0, noted.stderr);
    assert.equal(
      (await lines(out)).map((c) => [c.input, c.trace_id, c.source]),
      [['Capital of Italy?', root.trace_id, 'curated:noted']],
    );
    if (t.backend.kind === 'postgres') {
      const guardrail = await t.cli(['eval', 'curate', '--db', store, '--filter', 'guardrail', '--out', out]);
      assert.equal(guardrail, {
        code: 2,
        stdout: '',
        stderr: "error: filter 'guardrail' needs guardrail events, which a Postgres store does not hold yet; use --filter all, failed, favorites or noted\n",
      });
      assert.not.ok(existsSync(path.join(t.cwd, '.agentkit')), 'a URL store creates no .agentkit folder');
    }
    for (const run of [all, onlyDesk, failed, none, favorites, noted]) assert.not.ok(`${run.stdout}${run.stderr}`.includes(PASSWORD));
  },
);

area.run();
