/**
 * The Platform's claim route for replicated executions (ADR 0054), on the local Platform through the typed client:
 * the first claim of a pause wins and records its decision; another claim id is answered `already_resumed` (409)
 * naming the host, principal and time of the decision in force; the same claim id again wins again, so a retry after
 * a lost response (the Platform answered after the client timed out) wins; 8 claimers racing from 3 hosts get one
 * winner. The resume path does not call this route yet (see ADR 0054, "Not built yet").
 */
import * as assert from 'uvu/assert';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformClient, type ExecutionClaim } from '../../src/platform/index.js';
import { conformance, startPlatform } from '../harness/index.js';

const area = conformance('connected: Platform claims of replicated executions');
const KEY = 'ak_claims_0123456789abcdef';

const claim = (claimId: string, host: string, principal: string, approved: boolean): ExecutionClaim => ({
  claim_id: claimId,
  host,
  pending_created_at: '2026-11-28T10:00:00.000000Z',
  decision: { resume: { approved, metadata: {} }, decided_by: { principal, surface: 'cli' }, reason: null },
});

area.scenario(
  'one winner per pause; others get already_resumed naming host, principal and time; the same claim id wins again',
  { backends: 'none', timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    const client = new PlatformClient({ apiKey: KEY, target: platform.url });

    const first = await client.claimExecution('refund-42', claim('claim-b', 'host-b', 'alice', true));
    assert.is(first.won, true);
    assert.equal([first.record.claim_id, first.record.host, first.record.decision.decided_by.principal], ['claim-b', 'host-b', 'alice']);
    assert.match(first.record.decided_at, /^\d{4}-\d{2}-\d{2}T/);

    const stale = await client.claimExecution('refund-42', claim('claim-a', 'host-a', 'bob', false));
    assert.is(stale.won, false);
    assert.equal(stale.record, first.record, 'the claim in force, unchanged');

    const raw = await fetch(`${platform.url}/public/v1/executions/refund-42/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify(claim('claim-c', 'host-c', 'carol', false)),
    });
    assert.is(raw.status, 409);
    const body = (await raw.json()) as { code: string; detail: string };
    assert.is(body.code, 'already_resumed');
    assert.is(body.detail, `execution 'refund-42' was already resumed: decided by alice (cli) on host host-b at ${first.record.decided_at}`);

    const retried = await client.claimExecution('refund-42', claim('claim-b', 'host-b', 'alice', true));
    assert.equal(retried, first, 'a retry of the winning claim wins again');

    // 8 claimers on 3 hosts race for another pause: one winner, the other seven see it.
    const racers = Array.from({ length: 8 }, (_, i) => claim(`race-${i}`, `host-${i % 3}`, `user-${i}`, i % 2 === 0));
    const outcomes = await Promise.all(racers.map((c) => client.claimExecution('refund-race', c)));
    const winners = outcomes.filter((o) => o.won);
    assert.is(winners.length, 1);
    assert.ok(outcomes.every((o) => o.record.claim_id === winners[0]!.record.claim_id));
    assert.equal(await platform.read((s) => s.claims().map((c) => [c.execution_id, c.claim_id])), [
      ['refund-42', 'claim-b'],
      ['refund-race', winners[0]!.record.claim_id],
    ]);
  },
);

area.scenario(
  'a claim whose response is lost is retried with its claim id and wins; nothing is stranded',
  { backends: 'none', timeoutMs: 40_000 },
  async (t) => {
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    // A proxy that forwards every request, but swallows the Platform's answer to the first claim: the client times out
    // after the Platform recorded the win.
    let claims = 0;
    const proxy = createServer((req, res) => {
      const target = new URL(platform.url);
      const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const swallow = req.url?.endsWith('/claim') && ++claims === 1;
        if (swallow) {
          answer.resume();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    t.defer(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    t.defer(() => proxy.closeAllConnections());
    const via = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

    const client = new PlatformClient({ apiKey: KEY, target: via, timeoutMs: 500, attempts: 3, backoffMs: 10 });
    const outcome = await client.claimExecution('lost-1', claim('claim-lost', 'host-a', 'alice', true));
    assert.is(outcome.won, true, 'the retry met its own claim: you won');
    assert.is(claims, 2, 'the first answer was lost, the retry answered');
    assert.equal(await platform.read((s) => s.claims().map((c) => [c.claim_id, c.host])), [['claim-lost', 'host-a']]);
    const other = await new PlatformClient({ apiKey: KEY, target: platform.url }).claimExecution('lost-1', claim('claim-late', 'host-b', 'bob', false));
    assert.equal([other.won, other.record.claim_id], [false, 'claim-lost']);
  },
);

area.run();
