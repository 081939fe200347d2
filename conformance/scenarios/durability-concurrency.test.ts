/**
 * Exactly one winner: concurrent resumes of one paused execution, in one process (32 calls over 4 independent store
 * handles) and in 4 separate OS processes on one SQLite file or one Postgres schema. One resume completes, every
 * other gets ExecutionBusy (another resumer holds the execution's lease) or AlreadyResumed (it arrived after the
 * winner finished), and the node after the pause runs once (counted by a real HTTP server). Also: 4 processes starting
 * new executions at once on one store each keep all their rows (on local.db, each execution gets one key of its own).
 */
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { AlreadyResumed, ExecutionBusy } from '../../src/index.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { backendConfig, checkpointerFor, conformance, spawnNode, startCounterServer } from '../harness/index.js';

const area = conformance('durability: exactly one winner');

area.scenario(
  '32 concurrent resumes in one process: one completes, 31 ExecutionBusy or AlreadyResumed, finalize runs once',
  { rows: ['transition:paused-claimed', 'transition:paused->running', 'error:already-resumed'] },
  async (t) => {
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    const handles = Array.from({ length: 4 }, () => checkpointerFor(t.backend));
    for (const handle of handles) t.defer(() => handle.close());
    const chains = handles.map((handle) => approvalChain(handle, { counterUrl: counter.url }));
    const paused = await chains[0]!.run('refund order 42', { executionId: 'exec-race' });
    assert.is(paused.status, 'paused');

    const outcomes = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        chains[i % 4]!.resume('exec-race', { resumeValue: { approved: true, metadata: { approver: `racer-${i}` } } }).then(
          (result) => result.status,
          (error: unknown) => {
            if (error instanceof AlreadyResumed || error instanceof ExecutionBusy) return 'lost';
            throw error;
          },
        ),
      ),
    );
    assert.is(outcomes.filter((o) => o === 'completed').length, 1);
    assert.is(outcomes.filter((o) => o === 'lost').length, 31);
    assert.is(counter.count('/finalize'), 1, 'the node after the pause ran once');
    const rows = await handles[0]!.list('exec-race');
    assert.equal(
      rows.map((r) => [r.node_id, r.status]),
      [
        ['__run_start__', 'completed'],
        ['seed', 'completed'],
        ['approval', 'interrupted'],
        ['approval', 'completed'],
        ['approval', 'completed'],
        ['finalize', 'completed'],
        ['run_end', 'completed'],
      ],
    );
    assert.equal(await handles[0]!.listPendingInterrupts(), []);
  },
);

area.scenario(
  '4 OS processes resume at once on one store: one completes, 3 ExecutionBusy or AlreadyResumed, finalize runs once',
  { rows: ['transition:paused-claimed', 'error:already-resumed'], timeoutMs: 60_000 },
  async (t) => {
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await approvalChain(checkpointer).run('refund order 42', { executionId: 'exec-os-race' });

    const args = JSON.stringify({ config: backendConfig(t.backend), executionId: 'exec-os-race', counterUrl: counter.url });
    const children = Array.from({ length: 4 }, () => spawnNode('conformance/fixtures/durability/child.ts', ['race', args]));
    t.defer(() => {
      for (const c of children) c.process.kill('SIGKILL');
    });
    await Promise.all(children.map((c) => c.waitForLine((line) => line === 'ready', 30_000)));
    for (const child of children) child.process.stdin.end('go\n');
    const outcomes = await Promise.all(
      children.map(async (child) => {
        const line = await child.waitForLine((l) => l.startsWith('{'), 30_000);
        const exit = await child.exit();
        assert.is(exit.code, 0, child.stderr());
        return (JSON.parse(line) as { outcome: string }).outcome;
      }),
    );
    assert.equal(outcomes.filter((o) => o === 'completed').length, 1, outcomes.join());
    assert.ok(
      outcomes.every((o) => ['completed', 'AlreadyResumed', 'ExecutionBusy'].includes(o)),
      outcomes.join(),
    );
    assert.is(counter.count('/finalize'), 1);
    const rows = await checkpointer.list('exec-os-race');
    assert.equal(
      rows.map((r) => [r.node_id, r.step_type]),
      [
        ['__run_start__', 'run_start'],
        ['seed', 'node'],
        ['approval', 'hitl_pause'],
        ['approval', 'resume'],
        ['approval', 'node'],
        ['finalize', 'node'],
        ['run_end', 'run_end'],
      ],
    );
  },
);

area.scenario(
  '4 OS processes start new executions at once on one store: every execution keeps all its rows, found by its id',
  { timeoutMs: 90_000 },
  async (t) => {
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    await checkpointer.setup();
    const runs = 20;
    const children = ['a', 'b', 'c', 'd'].map((tag) =>
      spawnNode('conformance/fixtures/durability/child.ts', [
        'write',
        JSON.stringify({ config: backendConfig(t.backend), executionId: `exec-new-${tag}`, runs }),
      ]),
    );
    t.defer(() => {
      for (const c of children) c.process.kill('SIGKILL');
    });
    await Promise.all(children.map((c) => c.waitForLine((line) => line === 'ready', 30_000)));
    for (const child of children) child.process.stdin.end('go\n');
    for (const child of children) {
      await child.waitForLine((line) => line === 'done', 60_000);
      assert.is((await child.exit()).code, 0, child.stderr());
    }
    for (const tag of ['a', 'b', 'c', 'd']) {
      for (let n = 0; n < runs; n++) {
        const rows = await checkpointer.list(`exec-new-${tag}-${n}`);
        assert.equal(
          rows.map((r) => r.node_id),
          ['__run_start__', 'step_1', 'step_2', 'step_3', 'step_4', 'step_5', 'run_end'],
          `exec-new-${tag}-${n}`,
        );
        assert.equal(rows.at(-1)!.state_snapshot, { input: null, total: 15, ran: ['step_1', 'step_2', 'step_3', 'step_4', 'step_5'] });
      }
    }
    if (t.backend.kind === 'sqlite') {
      // Each execution has exactly one key, every row carries its own execution's key, and no key is shared.
      const db = new Database(t.backend.dbPath, { readonly: true });
      try {
        assert.equal(db.prepare('SELECT count(*) AS n, count(DISTINCT exec_key) AS keys FROM executions').get(), { n: 80, keys: 80 });
        assert.equal(
          db.prepare('SELECT count(*) AS n FROM checkpoints c JOIN executions e ON e.exec_key = c.exec_key AND e.execution_id = c.execution_id').get(),
          { n: 80 * 7 },
        );
        assert.equal(db.prepare('SELECT count(*) AS n FROM checkpoints').get(), { n: 80 * 7 });
      } finally {
        db.close();
      }
    }
  },
);

area.run();
