/** The harness itself: a fresh store per test on every backend, and Postgres never skipped silently. */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { conformance } from '../harness/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const area = conformance('harness');
const seen = new Set<string>();

area.scenario('each variant gets its own empty store', { surfaces: ['sdk'] }, async (t) => {
  if (t.backend.kind === 'sqlite') {
    assert.ok(t.backend.dbPath.startsWith(t.cwd), 'the SQLite file lives in the test directory');
    assert.not.ok(existsSync(t.backend.dbPath), 'and does not exist yet');
    assert.is(t.env.AGENTKIT_LOCAL_DB, t.backend.dbPath);
    assert.not.ok(seen.has(t.backend.dbPath));
    seen.add(t.backend.dbPath);
  } else if (t.backend.kind === 'postgres') {
    assert.match(t.backend.schema, /^t_[0-9a-f]{12}$/);
    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      const tables = await client.query('SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1', [t.backend.schema]);
      const schemas = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [t.backend.schema]);
      assert.is(schemas.rowCount, 1, 'the schema exists');
      assert.is(tables.rows[0].n, 0, 'and is empty');
    } finally {
      await client.end();
    }
    assert.not.ok(seen.has(t.backend.schema));
    seen.add(t.backend.schema);
  } else {
    assert.unreachable('a storage scenario runs on sqlite and postgres only');
  }
});

function probeRun(env: Record<string, string>) {
  return spawnSync(
    process.execPath,
    ['--conditions=agentkit-source', '--import', 'tsx', 'conformance/harness/run.ts', 'conformance/fixtures/backend-probe.scenario.ts'],
    { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', AGENTKIT_COVERAGE_DIR: path.join(root, '.agentkit-test/probe'), ...env } },
  );
}

const closedPort = 'postgres://postgres@127.0.0.1:1/test';

area.scenario('under CI=true an unreachable Postgres fails the run', { backends: 'none', surfaces: ['sdk'], timeoutMs: 30_000 }, async () => {
  const result = probeRun({ CI: 'true', AGENTKIT_TEST_PG_URL: closedPort });
  assert.is.not(result.status, 0);
  assert.match(result.stdout, /Postgres unreachable at postgres:\/\/postgres@127\.0\.0\.1:1\/test/);
  assert.match(result.stdout, /Total:\s+2/);
  assert.match(result.stdout, /Passed:\s+1/);
});

area.scenario(
  'without CI an unreachable Postgres is reported as skipped, never passed',
  { backends: 'none', surfaces: ['sdk'], timeoutMs: 30_000 },
  async () => {
    const result = probeRun({ CI: '', AGENTKIT_TEST_PG_URL: closedPort });
    assert.is(result.status, 0, result.stderr);
    assert.match(result.stdout, /Total:\s+1/);
    assert.match(result.stdout, /Skipped:\s+1/);
  },
);

area.run();
