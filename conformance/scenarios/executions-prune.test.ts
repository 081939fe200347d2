/**
 * `agentkit executions prune` and `pruneEndedExecutions` (issue 38): whole executions that ended before the cutoff go
 * (checkpoints, decision rows, idempotency records, leases); paused, unfinished, leased, sub-agent-ended and recent
 * ones stay, on both engines. A second prune finds nothing; `--dry-run` deletes nothing.
 */
import * as assert from 'uvu/assert';
import type { Checkpointer } from '../../src/durability/checkpointer.js';
import { pruneEndedExecutions } from '../../src/index.js';
import { checkpointerFor, conformance, type ScenarioContext } from '../harness/index.js';
import { storeValueOf } from '../harness/scenario.js';

const area = conformance('durability: execution-level prune');

const DAY = 86_400_000;
/** A stored timestamp `days` ago (the store's format: six fraction digits). */
const ago = (days: number, plusMs = 0) => new Date(Date.now() - days * DAY + plusMs).toISOString().replace('Z', '000Z');

/** Rows of one execution: a start, a node, then `end` (a root run_end, a sub-agent's run_end, or nothing). */
async function execution(checkpointer: Checkpointer, id: string, days: number, end: 'completed' | 'failed' | 'sub' | 'none'): Promise<void> {
  const base = { execution_id: id, chain_name: 'prune-test' };
  await checkpointer.put({ ...base, node_id: '__run_start__', step_type: 'run_start', created_at: ago(days, 1) });
  await checkpointer.put({ ...base, node_id: 'step_1', step_type: 'node', state_snapshot: { n: 1 }, created_at: ago(days, 2) });
  if (end === 'completed' || end === 'failed') {
    await checkpointer.put({ ...base, node_id: 'run_end', step_type: 'run_end', run_status: end, created_at: ago(days, 3) });
  } else if (end === 'sub') {
    await checkpointer.put({
      ...base,
      node_id: 'run_end',
      step_type: 'run_end',
      run_status: 'completed',
      agent_path: 'triage/billing',
      created_at: ago(days, 3),
    });
  }
}

async function seed(t: ScenarioContext): Promise<void> {
  const checkpointer = checkpointerFor(t.backend);
  try {
    await execution(checkpointer, 'old-done', 40, 'completed');
    await checkpointer.putIdempotent('old-done', 'charge', { charged: true });
    await execution(checkpointer, 'old-failed', 35, 'failed');
    await execution(checkpointer, 'old-unfinished', 40, 'none');
    await execution(checkpointer, 'old-sub-ended', 40, 'sub');
    await execution(checkpointer, 'recent-done', 1, 'completed');
    await execution(checkpointer, 'old-leased', 40, 'completed');
    assert.ok((await checkpointer.acquireLease('old-leased', 'someone-else', 600_000)) !== null, 'lease taken');
    await checkpointer.put({ execution_id: 'old-paused', chain_name: 'prune-test', node_id: '__run_start__', step_type: 'run_start', created_at: ago(40, 1) });
    await checkpointer.recordInterrupt(
      { execution_id: 'old-paused', chain_name: 'prune-test', node_id: 'approve', status: 'interrupted', interrupt_reason: 'approve?', created_at: ago(40, 2) },
      { reason: 'approve?', context: {}, created_at: ago(40, 2) },
    );
  } finally {
    await checkpointer.close();
  }
}

const EVERY = ['old-done', 'old-failed', 'old-unfinished', 'old-sub-ended', 'recent-done', 'old-leased', 'old-paused'];

async function remaining(t: ScenarioContext): Promise<string[]> {
  const checkpointer = checkpointerFor(t.backend);
  try {
    const left: string[] = [];
    for (const id of EVERY) if ((await checkpointer.list(id)).length > 0) left.push(id);
    return left;
  } finally {
    await checkpointer.close();
  }
}

area.scenario('executions prune: ended executions older than the cutoff go, every other one stays', { surfaces: ['cli'], timeoutMs: 60_000 }, async (t) => {
  await seed(t);
  const db = ['--db', storeValueOf(t.backend)!];

  const dry = await t.cli(['executions', 'prune', '--older-than', '30d', '--dry-run', '--json', ...db]);
  assert.is(dry.code, 0, dry.stderr);
  const planned = JSON.parse(dry.stdout) as { executions: number; rows: number; execution_ids: string[] };
  assert.equal(planned.execution_ids, ['old-done', 'old-failed'], 'oldest first; nothing paused, unfinished, leased or recent');
  assert.is(planned.rows, 0);
  assert.equal(await remaining(t), EVERY, 'a dry run deletes nothing');

  const run = await t.cli(['executions', 'prune', '--older-than', '30d', ...db]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /^pruned 2 executions \(\d+ rows\) of /);
  assert.equal(await remaining(t), ['old-unfinished', 'old-sub-ended', 'recent-done', 'old-leased', 'old-paused']);
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  assert.is(await checkpointer.getIdempotent('old-done', 'charge'), undefined, 'its idempotency record went with it');
  assert.is((await checkpointer.listPendingInterrupts()).length, 1, 'the paused execution keeps its pending interrupt');

  const again = await t.cli(['executions', 'prune', '--older-than', '30d', '--json', ...db]);
  assert.is(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).executions, 0, 'a second prune finds nothing');

  // The SDK call with a Date cutoff: tomorrow takes the recent one too, never the paused or unfinished ones.
  const sdk = await pruneEndedExecutions(checkpointer, new Date(Date.now() + DAY), { batch: 1 });
  assert.is(sdk.executions, 1);
  assert.equal(await remaining(t), ['old-unfinished', 'old-sub-ended', 'old-leased', 'old-paused']);
});

area.scenario(
  'executions prune: a bad age, and a named store that does not exist, are refused with one line',
  { backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const bad = await t.cli(['executions', 'prune', '--older-than', '5x']);
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /^error: invalid value for --older-than: expected a duration such as 30d/);
    const missing = await t.cli(['executions', 'prune']);
    assert.is(missing.code, 2);
    assert.match(missing.stderr, /^error: .*--older-than/);
    const empty = await t.cli(['executions', 'prune', '--older-than', '1d', '--json']);
    assert.is(empty.code, 0, empty.stderr);
    assert.is(JSON.parse(empty.stdout).executions, 0, 'a default store that does not exist yet has nothing to prune');
    const none = await t.cli(['executions', 'prune', '--older-than', '1d', '--db', 'no/such/local.db']);
    assert.is(none.code, 1, none.stderr);
    assert.is(none.stderr.trim().split('\n').length, 1);
    assert.match(none.stderr, /^error: store not found: .*no\/such\/local\.db does not exist/);
  },
);

area.run();
