/**
 * The conflicts that `list-pending`, `inspect` and the UI inbox show are the quarantined checkpoints (ADR 0054). They
 * are rare among many rows, so each engine reads them through a partial index that holds only them (local.db v38
 * `idx_cp_quarantined`, Postgres `checkpoints_quarantined_idx`), never by scanning every checkpoint.
 */
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import pg from 'pg';
import { checkpointerFor, conformance, type Backend } from '../harness/index.js';

const area = conformance('durability: the conflicts index');

/** The query plan of the conflicts listing on `backend`, as text lines. */
async function plan(backend: Backend, executionId: string | null): Promise<string[]> {
  if (backend.kind === 'sqlite') {
    const db = new Database(backend.dbPath, { readonly: true });
    try {
      return db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT checkpoint_id FROM checkpoints
           WHERE quarantine_reason IS NOT NULL AND (? IS NULL OR execution_id = ?) ORDER BY +rowid LIMIT 50`,
        )
        .all(executionId, executionId)
        .map((row) => (row as { detail: string }).detail);
    } finally {
      db.close();
    }
  }
  if (backend.kind !== 'postgres') throw new Error('a store backend is needed');
  const client = new pg.Client({ connectionString: backend.url });
  await client.connect();
  try {
    await client.query(`ANALYZE "${backend.schema}".checkpoints`);
    const result = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT checkpoint_id FROM "${backend.schema}".checkpoints
       WHERE quarantine_reason IS NOT NULL AND ($1::text IS NULL OR execution_id = $1) ORDER BY created_at, checkpoint_id LIMIT 50`,
      [executionId],
    );
    return result.rows.map((row) => row['QUERY PLAN']);
  } finally {
    await client.end();
  }
}

area.scenario('3 quarantined rows among 3,000: listed oldest first, and read through the partial index on every engine', {}, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const rows: Array<{ checkpoint_id: string; execution_id: string }> = [];
  for (let i = 0; i < 3000; i += 100) {
    const written = await checkpointer.putWrites(
      Array.from({ length: 100 }, (_, k) => ({ execution_id: `exec-${(i + k) % 40}`, chain_name: 'c', node_id: `n${i + k}`, state_snapshot: { i: i + k } })),
    );
    rows.push(...written);
  }
  const picked = [rows[10]!, rows[1500]!, rows[2990]!];
  assert.is(await checkpointer.markQuarantined(Object.fromEntries(picked.map((row, n) => [row.checkpoint_id, `conflict ${n}`]))), 3);

  const listed = await checkpointer.listQuarantined();
  assert.equal(
    listed.map((row) => [row.checkpoint_id, row.reason]),
    picked.map((row, n) => [row.checkpoint_id, `conflict ${n}`]),
  );
  assert.equal(
    (await checkpointer.listQuarantined({ executionId: picked[1]!.execution_id })).map((row) => row.checkpoint_id),
    [picked[1]!.checkpoint_id],
  );

  const index = t.backend.kind === 'sqlite' ? 'idx_cp_quarantined' : 'checkpoints_quarantined_idx';
  for (const executionId of [null, picked[1]!.execution_id]) {
    const lines = await plan(t.backend, executionId);
    assert.ok(
      lines.some((line) => line.includes(index)),
      `the listing (execution ${executionId ?? 'any'}) reads ${index}:\n${lines.join('\n')}`,
    );
    assert.not.ok(
      lines.some((line) => /^SCAN checkpoints$|Seq Scan on checkpoints/.test(line.trim())),
      `no full scan:\n${lines.join('\n')}`,
    );
  }
});

area.run();
