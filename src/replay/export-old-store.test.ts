/**
 * export-trace reads the store through a read-only connection, which never migrates: a store last written by an
 * agentkit before local.db v28 has no execution keys, and its checkpoints are still found by execution id.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { openLocalStore, schemaVersion, utcNow } from '../store/index.js';
import { exportTrace } from './export-trace.js';
import { TraceStore } from '../tracing/trace-store.js';

const test = suite<{ dir: string }>('export-trace on an older store', { state: { dir: '' } });

test.beforeEach(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'agentkit-export-old-'));
});
test.afterEach(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true, maxRetries: 5 });
});

test('a v27 store (no execution keys) exports its checkpoints and stays v27', async ({ dir }) => {
  const file = path.join(dir, 'local.db');
  const db = openLocalStore(file, { targetVersion: 27 });
  const at = utcNow();
  db.prepare(
    "INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes) VALUES ('aaaaaaaaaaaaaaaa', ?, NULL, 'agent.support', ?, ?, 'OK', ?)",
  ).run('ab'.repeat(16), at, at, JSON.stringify({ 'agent.execution_id': 'exec-old' }));
  const insert = db.prepare(
    "INSERT INTO checkpoints (checkpoint_id, chain_name, execution_id, node_id, node_index, step_type, state_snapshot, created_at) VALUES (?, 'support', ?, ?, ?, ?, '{}', ?)",
  );
  insert.run('cp-1', 'exec-old', 'turn:0', 0, 'llm_call', utcNow());
  insert.run('cp-other', 'exec-other', 'turn:0', 0, 'llm_call', utcNow());
  insert.run('cp-2', 'exec-old', 'run_end', 1, 'run_end', utcNow());
  db.close();

  const document = await exportTrace(new TraceStore({ dbPath: file }), 'ab'.repeat(16));
  assert.is(document.trace.execution_id, 'exec-old');
  assert.equal(
    document.checkpoints.map((c) => [c.checkpoint_id, c.node_id, c.step_type]),
    [
      ['cp-1', 'turn:0', 'llm_call'],
      ['cp-2', 'run_end', 'run_end'],
    ],
  );
  const after = openLocalStore(file, { readonly: true });
  try {
    assert.is(schemaVersion(after), 27, 'reading did not migrate the store');
  } finally {
    after.close();
  }
});

test.run();
