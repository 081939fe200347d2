/**
 * `resume --db <path|url>` (issue 38) on both engines: the store the execution is in. A runner whose checkpointer is
 * on another store is refused with one line naming both (passwords redacted); on the right store the run resumes and
 * its trace goes to that store. The URL's password appears in no output.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pauseRun, writeRunner } from '../fixtures/durability/cli-variant.js';
import { conformance, type Backend } from '../harness/index.js';

const area = conformance('durability: resume --db');
const PASSWORD = 'Res4meS3cretPw';

function storeValueOf(backend: Backend): string {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind !== 'postgres') throw new Error('no store');
  const url = new URL(backend.url);
  url.password = PASSWORD;
  url.searchParams.set('schema', backend.schema);
  return url.toString();
}

area.scenario(
  'resume --db resumes on the store it names and refuses a runner on another',
  { rows: ['cli:resume'], surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const store = storeValueOf(t.backend);
    const runner = await writeRunner(t);
    await pauseRun(t, 'exec-db');

    const elsewhere = `postgres://app:${PASSWORD}@127.0.0.1:5432/test?schema=elsewhere`;
    const refused = await t.cli(['resume', 'exec-db', '--runner', runner, '--db', elsewhere]);
    const runnerStore = t.backend.kind === 'postgres' ? store.replace(PASSWORD, '[REDACTED]').replace(/^postgres:\/\/[^@]*@/, 'postgres://postgres@') : store;
    assert.equal([refused.code, refused.stdout], [2, '']);
    assert.match(
      refused.stderr,
      `error: --db names postgres://app:[REDACTED]@127.0.0.1:5432/test?schema=elsewhere, but the runner '${runner}' keeps its checkpoints in `,
    );
    if (t.backend.kind === 'sqlite') assert.match(refused.stderr, ` keeps its checkpoints in ${runnerStore}; resume through a runner on that store`);

    const resumed = await t.cli(['resume', 'exec-db', '--runner', runner, '--db', store]);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.is(resumed.stdout, 'execution_id: exec-db\nstatus: completed\noutput: {"receipt":"approved 50000"}\npending_interrupt: null\n');
    const listed = await t.cli(['traces', 'list', '--db', store, '--json']);
    assert.is(listed.code, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as { items: unknown[] }).items.length >= 1, 'the resumed run is traced in the store --db names');
    for (const run of [refused, resumed, listed]) assert.not.ok(`${run.stdout}${run.stderr}`.includes(PASSWORD));
    if (t.backend.kind === 'postgres') assert.not.ok(existsSync(path.join(t.cwd, '.agentkit')), 'a URL store creates no .agentkit folder');
  },
);

area.run();
