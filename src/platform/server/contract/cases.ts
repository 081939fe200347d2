/** The cases of the Platform store contract (issue 42): keys, checkpoints, claims, leases, eval runs, spans, rate buckets. */
import assert from 'node:assert/strict';
import { apiKey, checkpoint, claim, span, TRACE_A, TRACE_B } from './fixtures.js';
import type { PlatformContractCase } from './types.js';

const T0 = 1_800_000_000_000;

export const platformCases: readonly PlatformContractCase[] = [
  {
    group: 'secret',
    name: 'the server secret is made once: 32 bytes, the same from another handle',
    async run({ store, reopen }) {
      const first = await store.serverSecret();
      assert.equal(first.length, 32);
      const other = await reopen();
      try {
        assert.deepEqual(await other.serverSecret(), first);
      } finally {
        await other.close();
      }
    },
  },
  {
    group: 'keys',
    name: 'keys are found by prefix, listed oldest first, revoked once',
    async run({ store }) {
      await store.addKey(apiKey('key_0000000000000001', 'alpha', 'akp_same0000'));
      await store.addKey(apiKey('key_0000000000000002', 'beta', 'akp_same0000'));
      await store.addKey(apiKey('key_0000000000000003', 'alpha'));
      assert.deepEqual(
        (await store.keysByPrefix('akp_same0000')).map((k) => [k.id, k.project]),
        [
          ['key_0000000000000001', 'alpha'],
          ['key_0000000000000002', 'beta'],
        ],
      );
      assert.deepEqual(await store.keysByPrefix('akp_nothing0'), []);
      assert.deepEqual(
        (await store.listKeys()).map((k) => k.id),
        ['key_0000000000000001', 'key_0000000000000002', 'key_0000000000000003'],
      );
      const revoked = await store.revokeKeys(['key_0000000000000002'], '2026-02-01T00:00:00.000Z');
      assert.deepEqual(
        revoked.map((k) => [k.id, k.revoked_at]),
        [['key_0000000000000002', '2026-02-01T00:00:00.000Z']],
      );
      assert.deepEqual(await store.revokeKeys(['key_0000000000000002'], '2026-03-01T00:00:00.000Z'), [], 'revoking again changes nothing');
      const listed = await store.listKeys();
      assert.deepEqual(
        listed.map((k) => k.revoked_at),
        [null, '2026-02-01T00:00:00.000Z', null],
      );
      assert.deepEqual(listed[0]!.scopes, ['checkpoints:read']);
    },
  },
  {
    group: 'checkpoints',
    name: 'ingest is idempotent per (project, id); latest and history read one project, in created_at then arrival order',
    async run({ store }) {
      await store.putCheckpoints('alpha', [checkpoint('c1', 'e1', '2026-01-01T00:00:01Z'), checkpoint('c2', 'e1', '2026-01-01T00:00:02Z')], 'k1');
      await store.putCheckpoints('alpha', [checkpoint('c1', 'e1', '2026-01-01T00:00:09Z', { changed: true })], 'k1');
      await store.putCheckpoints('alpha', [checkpoint('c3', 'e1', '2026-01-01T00:00:02Z')], 'k1');
      await store.putCheckpoints('beta', [checkpoint('c1', 'e1', '2026-01-01T00:00:05Z')], 'k2');
      assert.deepEqual(
        (await store.checkpointHistory('alpha', 'e1')).map((r) => r.checkpoint_id),
        ['c1', 'c2', 'c3'],
      );
      assert.equal((await store.checkpointHistory('alpha', 'e1'))[0]!.changed, undefined, 'a resent id is left as first stored');
      assert.equal((await store.latestCheckpoint('alpha', 'e1'))!.checkpoint_id, 'c3', 'same created_at: the later arrival');
      assert.deepEqual(
        (await store.checkpointHistory('beta', 'e1')).map((r) => r.created_at),
        ['2026-01-01T00:00:05Z'],
      );
      assert.equal(await store.latestCheckpoint('gamma', 'e1'), null, 'another project reads nothing');
      assert.deepEqual(
        (await store.checkpoints()).map((r) => [r.project, r.body.checkpoint_id, r.key_id]),
        [
          ['alpha', 'c1', 'k1'],
          ['alpha', 'c2', 'k1'],
          ['alpha', 'c3', 'k1'],
          ['beta', 'c1', 'k2'],
        ],
      );
      assert.equal((await store.checkpoints('beta')).length, 1);
    },
  },
  {
    group: 'checkpoints',
    name: "finishedAt is the root run_end's created_at (a nested agent's run_end is not the run's end)",
    async run({ store }) {
      await store.putCheckpoints(
        'alpha',
        [
          checkpoint('n1', 'e1', '2026-01-01T00:00:01Z', { step_type: 'run_end', metadata: { agent_path: 'desk/refunds' } }),
          checkpoint('r1', 'e1', '2026-01-01T00:00:02Z', { step_type: 'run_end', metadata: { agent_path: 'desk' } }),
        ],
        'k',
      );
      assert.equal(await store.finishedAt('alpha', 'e1'), '2026-01-01T00:00:02Z');
      assert.equal(await store.finishedAt('beta', 'e1'), null);
    },
  },
  {
    group: 'claims',
    name: 'the first claim wins, its retry wins again, another claim gets the one in force; projects do not share pauses',
    async run({ store }) {
      const first = await store.claimPause('alpha', claim('e1', 'claim-1'), 'k');
      assert.equal(first.won, true);
      assert.equal(first.record.claim_id, 'claim-1');
      assert.deepEqual(first.record.decision, claim('e1', 'x').decision);
      assert.equal((await store.claimPause('alpha', claim('e1', 'claim-1'), 'k')).won, true, 'the same claim id again');
      const lost = await store.claimPause('alpha', claim('e1', 'claim-2', 'host-b'), 'k');
      assert.deepEqual([lost.won, lost.record.claim_id, lost.record.host], [false, 'claim-1', 'host-a']);
      assert.equal((await store.claimPause('beta', claim('e1', 'claim-3'), 'k')).won, true, 'the same pause id in another project');
      assert.deepEqual(
        (await store.claims()).map((c) => [c.project, c.claim_id]),
        [
          ['alpha', 'claim-1'],
          ['beta', 'claim-3'],
        ],
      );
      assert.deepEqual(
        (await store.claims('beta')).map((c) => c.claim_id),
        ['claim-3'],
      );
    },
  },
  {
    group: 'claims',
    name: 'racing claims from two handles: exactly one wins',
    async run({ store, reopen }) {
      const other = await reopen();
      try {
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? store : other).claimPause('alpha', claim('race', `claim-${i}`), 'k')),
        );
        assert.equal(results.filter((r) => r.won).length, 1);
        assert.equal(new Set(results.map((r) => r.record.claim_id)).size, 1, 'every loser sees the winner');
      } finally {
        await other.close();
      }
    },
  },
  {
    group: 'leases',
    name: 'a lease is granted when free, to its holder again, after it lapses; refused to another while in force; per project',
    async run({ store }) {
      const a = await store.leaseExecution('alpha', 'e1', 'run-a', 'host-a', 1000, T0);
      assert.deepEqual([a.won, a.lease.holder, a.lease.expires_at], [true, 'run-a', new Date(T0 + 1000).toISOString()]);
      assert.equal((await store.leaseExecution('alpha', 'e1', 'run-a', 'host-a', 1000, T0 + 10)).won, true, 'its holder again');
      const busy = await store.leaseExecution('alpha', 'e1', 'run-b', 'host-b', 1000, T0 + 20);
      assert.deepEqual([busy.won, busy.lease.holder, busy.lease.host], [false, 'run-a', 'host-a']);
      assert.equal((await store.leaseExecution('beta', 'e1', 'run-b', 'host-b', 1000, T0 + 20)).won, true, 'another project');
      assert.equal((await store.leaseExecution('alpha', 'e1', 'run-b', 'host-b', 1000, T0 + 5000)).won, true, 'lapsed');
    },
  },
  {
    group: 'leases',
    name: 'racing leases from two handles: exactly one wins',
    async run({ store, reopen }) {
      const other = await reopen();
      try {
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? store : other).leaseExecution('alpha', 'race', `run-${i}`, 'h', 60_000, T0)),
        );
        assert.equal(results.filter((r) => r.won).length, 1);
      } finally {
        await other.close();
      }
    },
  },
  {
    group: 'leases',
    name: 'arriving rows extend the lease in force or start one; the root run_end ends it',
    async run({ store }) {
      await store.leaseExecution('alpha', 'e1', 'run-a', 'host-a', 1000, T0);
      await store.touchLeases('alpha', [checkpoint('c1', 'e1', 't')], 30_000, T0 + 900);
      const held = await store.leaseExecution('alpha', 'e1', 'run-b', 'h', 1000, T0 + 1500);
      assert.deepEqual([held.won, held.lease.holder, held.lease.expires_at], [false, 'run-a', new Date(T0 + 1900).toISOString()], 'extended by its own ttl');
      await store.touchLeases('alpha', [checkpoint('c9', 'e2', 't')], 30_000, T0);
      const started = await store.leaseExecution('alpha', 'e2', 'run-b', 'h', 1000, T0 + 1);
      assert.deepEqual([started.won, started.lease.holder], [false, 'its running run']);
      await store.touchLeases('alpha', [checkpoint('c2', 'e2', 't', { step_type: 'run_end' })], 30_000, T0 + 2);
      assert.equal((await store.leaseExecution('alpha', 'e2', 'run-b', 'h', 1000, T0 + 3)).won, true, 'ended by run_end');
    },
  },
  {
    group: 'eval runs',
    name: 'eval runs are stored per project; a resent run replaces the stored one',
    async run({ store }) {
      await store.putEvalRuns(
        'alpha',
        [
          { run_id: 'r1', v: 1 },
          { run_id: 'r2', v: 1 },
        ],
        'k',
      );
      await store.putEvalRuns('alpha', [{ run_id: 'r1', v: 2 }], 'k');
      await store.putEvalRuns('beta', [{ run_id: 'r1', v: 9 }], 'k');
      assert.deepEqual(
        (await store.evalRuns('alpha')).map((r) => [r.body.run_id, r.body.v]),
        [
          ['r1', 2],
          ['r2', 1],
        ],
      );
      assert.deepEqual(await store.evalRun('beta', 'r1'), { run_id: 'r1', v: 9 });
      assert.equal(await store.evalRun('gamma', 'r1'), null);
      assert.equal((await store.evalRuns()).length, 3);
    },
  },
  {
    group: 'spans',
    name: 'spans are idempotent on (project, trace, span), read back per project in start order; bad ids are rejected',
    async run({ store }) {
      const root = span(TRACE_A, 'aaaaaaaaaaaaaaaa', null, '2026-01-01T00:00:00.000Z', { 'agent.input': 'hi', n: 2, nested: { a: [1, 'b'] } });
      const child = span(TRACE_A, 'bbbbbbbbbbbbbbbb', 'aaaaaaaaaaaaaaaa', '2026-01-01T00:00:00.500Z');
      assert.deepEqual(await store.putSpans('alpha', [child, root]), { rejected: [] });
      assert.deepEqual(await store.putSpans('alpha', [{ ...root, name: 'changed' }]), { rejected: [] }, 'a resent span is accepted');
      const { rejected } = await store.putSpans('alpha', [
        span(TRACE_B, 'XYZ', null, '2026-01-01T00:00:00.000Z'),
        span('0'.repeat(32), 'cccccccccccccccc', null, 't'),
        { ...span(TRACE_B, 'eeeeeeeeeeeeeeee', null, '2026-01-01T00:00:00.000Z'), name: 'nul\u0000name' },
      ]);
      assert.deepEqual(
        rejected.map((r) => [r.span_id, r.reason.startsWith('trace_id') || r.reason.startsWith('span_id') || r.reason]),
        [
          ['XYZ', true],
          ['cccccccccccccccc', true],
          ['eeeeeeeeeeeeeeee', "the span's name holds a NUL character"],
        ],
      );
      // A batch in one write: 600 spans of one trace, read back in start order.
      const many = Array.from({ length: 600 }, (_, i) =>
        span(TRACE_B, (i + 1).toString(16).padStart(16, '0'), null, new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(), {
          i,
          text: 'nul \u0000 in JSON',
        }),
      );
      assert.deepEqual(await store.putSpans('alpha', many), { rejected: [] });
      assert.deepEqual(
        (await store.traceSpans('alpha', TRACE_B)).map((s) => s.attributes.i),
        many.map((_, i) => i),
        'a large batch is stored whole, NUL inside attributes included',
      );
      assert.equal((await store.traceSpans('alpha', TRACE_B))[0]!.attributes.text, 'nul \u0000 in JSON');
      await store.putSpans('alpha', []);
      await store.putSpans('beta', [span(TRACE_A, 'dddddddddddddddd', null, '2026-01-01T00:00:00.000Z')]);
      const spans = await store.traceSpans('alpha', TRACE_A);
      assert.deepEqual(spans, [root, child], 'as first stored, in start order, every field back');
      assert.deepEqual(
        (await store.traceSpans('beta', TRACE_A)).map((s) => s.span_id),
        ['dddddddddddddddd'],
      );
      assert.deepEqual(await store.traceSpans('gamma', TRACE_A), []);
    },
  },
  {
    group: 'spans',
    name: "a project's traces are listed newest first with their root, status, count and times; by text and id prefix",
    async run({ store }) {
      const T3 = 'cccccccccccccccccccccccccccccccc';
      const ended = (s: ReturnType<typeof span>, end: string, status: 'OK' | 'ERROR' | 'UNSET' = s.status) => ({ ...s, end_time: end, status });
      await store.putSpans('alpha', [
        // TRACE_A: an ended root and a failed child; TRACE_B: a root still running; T3: started before the window.
        ended({ ...span(TRACE_A, 'aaaaaaaaaaaaaaaa', null, '2026-01-02T00:00:00.000Z'), name: 'agent.support' }, '2026-01-02T00:00:02.000Z'),
        ended(
          span(TRACE_A, 'a1a1a1a1a1a1a1a1', 'aaaaaaaaaaaaaaaa', '2026-01-02T00:00:01.000Z', { 'tool.args': 'Order 42 Refund' }),
          '2026-01-02T00:00:03.000Z',
          'ERROR',
        ),
        { ...span(TRACE_B, 'bbbbbbbbbbbbbbbb', null, '2026-01-03T00:00:00.000Z'), name: 'chain.triage', status: 'UNSET' },
        ended(span(TRACE_B, 'b1b1b1b1b1b1b1b1', 'bbbbbbbbbbbbbbbb', '2026-01-03T00:00:01.000Z'), '2026-01-03T00:00:02.000Z'),
        ended(span(T3, 'cccccccccccccccc', null, '2025-12-31T00:00:00.000Z'), '2025-12-31T00:00:01.000Z'),
      ]);
      // Another project's span of the same trace id is not counted, and its traces are not listed.
      await store.putSpans('beta', [ended(span(TRACE_A, 'dddddddddddddddd', null, '2026-01-05T00:00:00.000Z'), '2026-01-05T00:00:01.000Z', 'ERROR')]);
      const since = '2026-01-01T00:00:00.000Z';
      assert.deepEqual(await store.traceSummaries('alpha', { since }), [
        { trace_id: TRACE_B, name: 'chain.triage', status: 'UNSET', span_count: 2, start_time: '2026-01-03T00:00:00.000Z', end_time: null },
        {
          trace_id: TRACE_A,
          name: 'agent.support',
          status: 'ERROR',
          span_count: 2,
          start_time: '2026-01-02T00:00:00.000Z',
          end_time: '2026-01-02T00:00:03.000Z',
        },
      ]);
      assert.deepEqual(
        (await store.traceSummaries('alpha', { since: '2025-01-01T00:00:00.000Z', limit: 2 })).map((t) => t.trace_id),
        [TRACE_B, TRACE_A],
        'the newest `limit`',
      );
      assert.deepEqual(
        (await store.traceSummaries('alpha', { since, text: 'order 42 REFUND' })).map((t) => t.trace_id),
        [TRACE_A],
        "a text found in a span's attributes, any case",
      );
      assert.deepEqual(
        (await store.traceSummaries('alpha', { since, text: 'TRIAGE' })).map((t) => t.trace_id),
        [TRACE_B],
        "a text found in a span's name",
      );
      assert.deepEqual(await store.traceSummaries('alpha', { since, text: 'nowhere' }), []);
      assert.deepEqual(await store.traceSummaries('alpha', { since, text: 'a\u0000b' }), [], 'a NUL matches nothing');
      assert.deepEqual(
        (await store.traceSummaries('beta', { since })).map((t) => [t.trace_id, t.span_count, t.status]),
        [[TRACE_A, 1, 'ERROR']],
      );
      assert.deepEqual(await store.traceSummaries('gamma', { since }), []);
      assert.deepEqual(await store.traceIdsWithPrefix('alpha', TRACE_A.slice(0, 6), 10), [TRACE_A]);
      assert.deepEqual(await store.traceIdsWithPrefix('alpha', '', 2), [TRACE_A, TRACE_B].sort());
      assert.deepEqual(await store.traceIdsWithPrefix('beta', T3.slice(0, 4), 10), []);
    },
  },
  {
    group: 'requests',
    name: 'recorded requests read back in order',
    async run({ store }) {
      await store.recordRequest({ project: 'alpha', route: 'GET /a', key_id: 'k1', at: '2026-01-01T00:00:00.000Z' });
      await store.recordRequest({ project: 'beta', route: 'POST /b', key_id: 'k2', at: '2026-01-01T00:00:01.000Z' });
      assert.deepEqual(
        (await store.requests()).map((r) => [r.project, r.route, r.key_id]),
        [
          ['alpha', 'GET /a', 'k1'],
          ['beta', 'POST /b', 'k2'],
        ],
      );
    },
  },
  {
    group: 'rate buckets',
    name: 'a bucket allows its burst, then refuses with the wait for the next token; it refills at the rate; keys and projects apart',
    async run({ store, reopen }) {
      const other = await reopen();
      try {
        // Two handles share the bucket (replicas on one store).
        for (let i = 0; i < 4; i++) assert.equal((await (i % 2 ? other : store).takeRateToken('alpha', 'k1', 2, 4, T0)).allowed, true, `token ${i}`);
        const refused = await other.takeRateToken('alpha', 'k1', 2, 4, T0);
        assert.deepEqual(refused, { allowed: false, retryAfterMs: 500 });
        assert.equal((await store.takeRateToken('alpha', 'k2', 2, 4, T0)).allowed, true, 'another key');
        assert.equal((await store.takeRateToken('beta', 'k1', 2, 4, T0)).allowed, true, 'another project');
        assert.equal((await store.takeRateToken('alpha', 'k1', 2, 4, T0 + 500)).allowed, true, 'one token back after 1/rate s');
        assert.equal((await store.takeRateToken('alpha', 'k1', 2, 4, T0 + 500)).allowed, false);
        for (let i = 0; i < 4; i++) assert.equal((await store.takeRateToken('alpha', 'k1', 2, 4, T0 + 60_000)).allowed, true, 'refilled to the burst');
        assert.equal((await store.takeRateToken('alpha', 'k1', 2, 4, T0 + 60_000)).allowed, false, 'never past the burst');
      } finally {
        await other.close();
      }
    },
  },
];
