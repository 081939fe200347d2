/**
 * Connected mode, consent at write time (docs/adr/0054), on both engines against the local Platform: runs recorded
 * before connecting never reach the Platform (checked on the Platform); rows written while connected carry the
 * project then in effect, whatever project is in effect when they drain; `platform push --dry-run` lists exactly the
 * local-only rows and sends nothing, `platform push` sends them, a second push sends nothing new; `--since` filters.
 * And two processes draining one Postgres store concurrently send each row exactly once (FOR UPDATE SKIP LOCKED).
 */
import * as assert from 'uvu/assert';
import { connect, disconnect, drainReplication, type Checkpointer } from '../../src/index.js';
import type { ReplicatingCheckpointer } from '../../src/durability/checkpointer.js';
import { setWriteStampSource } from '../../src/durability/write-hook.js';
import { fiveSteps } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance, spawnNode, startPlatform } from '../harness/index.js';

const area = conformance('connected: consent at write time and platform push');
const KEY = 'ak_consent_0123456789abcdef';
const BETA_KEY = 'ak_consent_beta_0123456789';

area.scenario(
  'rows recorded before connecting stay local until pushed; queued rows keep the project they were written under',
  { surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    disconnect();
    t.defer(() => disconnect());
    const store = t.store!;
    // A key names its project (issue 42): one key per project.
    const keys = [
      { key: KEY, project: 'alpha' },
      { key: BETA_KEY, project: 'beta' },
    ];
    const platform = await startPlatform({ dir: t.cwd, apiKeys: keys });
    t.defer(() => platform.stop());
    const env = { HOME: `${t.cwd}/home`, AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: platform.url };

    // Before connecting: local-only.
    const checkpointer = checkpointerFor(t.backend) as Checkpointer & ReplicatingCheckpointer;
    t.defer(() => checkpointer.close());
    assert.is((await fiveSteps(checkpointer).run({ total: 0 }, { executionId: 'before-1' })).status, 'completed');
    assert.is((await fiveSteps(checkpointer).run({ total: 0 }, { executionId: 'before-2' })).status, 'completed');
    const before = [...(await checkpointer.list('before-1')), ...(await checkpointer.list('before-2'))]
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
      .map((r) => r.checkpoint_id);
    assert.is((await checkpointer.fetchUnsynced(100)).length, 0, 'nothing queued');

    // Connected under project alpha while the Platform is down: queued, with alpha.
    await platform.stop();
    await connect({ apiKey: KEY, target: platform.url, project: 'alpha' });
    assert.is((await fiveSteps(checkpointer).run({ total: 0 }, { executionId: 'during-alpha' })).status, 'completed');
    const during = (await checkpointer.list('during-alpha')).length;
    assert.is((await checkpointer.fetchUnsynced(100)).length, during, 'queued while connected');
    disconnect();

    // Back, and now connected under project beta: the queued rows still go to alpha, which beta's key may not write
    // (403: they stay queued); an alpha key sends them. The earlier runs stay here.
    const back = await startPlatform({ dir: t.cwd, apiKeys: keys, port: platform.port });
    t.defer(() => back.stop());
    await connect({ apiKey: BETA_KEY, target: back.url, project: 'beta' });
    // The alpha connection's own retry may send them first: either way they go to the project stamped on them.
    const refused = await drainReplication(checkpointer);
    assert.ok(['refused', 'drained'].includes(refused?.outcome ?? ''), `beta's key drains nothing of alpha (${refused?.outcome})`);
    assert.ok(await back.read((s) => s.checkpoints().every((r) => r.project === 'alpha')), 'no row went to beta');
    disconnect();
    await connect({ apiKey: KEY, target: back.url, project: 'alpha' });
    const drained = await drainReplication(checkpointer);
    assert.is(drained?.outcome, 'drained');
    // On Postgres a drain skips rows another drain has claimed (that retry): wait for it to commit.
    for (let tries = 0; (await checkpointer.fetchUnsynced(100)).length > 0; tries++) {
      assert.ok(tries < 400, 'every queued row sent');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    disconnect();
    const sent = async () => await back.read((s) => s.checkpoints().map((r) => [r.body.execution_id as string, r.project]));
    assert.equal(
      await sent(),
      Array.from({ length: during }, () => ['during-alpha', 'alpha']),
      'the project stamped at write time',
    );

    // A dry run lists exactly the local-only rows and sends nothing.
    const dry = await t.cli(['platform', 'push', '--dry-run', '--db', store, '--json'], { env });
    assert.is(dry.code, 0, dry.stderr);
    const listed = JSON.parse(dry.stdout) as {
      project: string | null;
      dry_run: boolean;
      sent: number;
      rows: Array<{ checkpoint_id: string; execution_id: string }>;
    };
    assert.equal([listed.project, listed.dry_run, listed.sent], [null, true, 0]);
    assert.equal(
      listed.rows.map((r) => r.checkpoint_id),
      before,
      'exactly the rows recorded before connecting, oldest first',
    );
    const text = await t.cli(['platform', 'push', '--dry-run', '--db', store], { env });
    assert.match(
      text.stdout,
      new RegExp(`^would send ${before.length} row\\(s\\) of project \\(default\\) from .* to ${back.url} \\(dry run: nothing sent\\)\\n`),
    );
    assert.is((await sent()).length, during, 'a dry run sends nothing');

    // --since: a time after every row lists none; a duration covering them lists all; a bad value is a usage error.
    const future = await t.cli(['platform', 'push', '--dry-run', '--db', store, '--json', '--since', '2999-01-01T00:00:00Z'], { env });
    assert.equal(JSON.parse(future.stdout).rows, []);
    const recent = await t.cli(['platform', 'push', '--dry-run', '--db', store, '--json', '--since', '1h'], { env });
    assert.is(JSON.parse(recent.stdout).rows.length, before.length);
    const bad = await t.cli(['platform', 'push', '--since', 'yesterday', '--db', store], { env });
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /--since 'yesterday' is neither an ISO time/);

    // Push sends them (to the connection's project: the default, which is the key's: alpha); a second push sends nothing new.
    const push = await t.cli(['platform', 'push', '--db', store], { env });
    assert.is(push.code, 0, push.stderr);
    assert.match(push.stdout, new RegExp(`^sent ${before.length} row\\(s\\) of project \\(default\\) from `));
    const pushed = await back.read((s) => s.checkpoints().map((r) => r.body.checkpoint_id as string));
    assert.equal(pushed.slice(during), before);
    assert.equal(
      await back.read((s) =>
        s
          .checkpoints()
          .slice(during)
          .map((r) => r.project),
      ),
      before.map(() => 'alpha'),
    );
    const again = await t.cli(['platform', 'push', '--db', store, '--json'], { env });
    assert.is(again.code, 0, again.stderr);
    assert.equal([JSON.parse(again.stdout).sent, JSON.parse(again.stdout).rows], [0, []]);
    assert.is(await back.read((s) => s.checkpoints().length), during + before.length, 'nothing sent twice');

    // Not connected: push says so and exits 1.
    const offline = await t.cli(['platform', 'push', '--db', store], { env: { HOME: `${t.cwd}/home` } });
    assert.is(offline.code, 1);
    assert.match(
      offline.stderr,
      /^error: not connected: no AGENTKIT_API_KEY and no .*credentials\.toml; run `agentkit connect --target <url> --api-key-stdin` first\n$/,
    );
  },
);

area.scenario(
  'two processes drain one Postgres store concurrently: each row is sent exactly once',
  { backends: ['postgres'], timeoutMs: 90_000 },
  async (t) => {
    if (t.backend.kind !== 'postgres') return;
    const platform = await startPlatform({ dir: t.cwd, apiKeys: [KEY] });
    t.defer(() => platform.stop());
    // 1000 rows queued as a connected process writes them, without its own drains: five batches to share.
    setWriteStampSource(() => ({ queued: true, project: '' }));
    t.defer(() => setWriteStampSource(null));
    const checkpointer = checkpointerFor(t.backend) as Checkpointer & ReplicatingCheckpointer;
    t.defer(() => checkpointer.close());
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 100) {
      const rows = Array.from({ length: 100 }, (_, j) => ({
        execution_id: `shared-${(i + j) % 7}`,
        chain_name: 'c',
        node_id: `n${i + j}`,
        state_snapshot: { i: i + j },
      }));
      ids.push(...(await checkpointer.putWrites(rows)).map((r) => r.checkpoint_id));
    }
    setWriteStampSource(null);

    const env = { AGENTKIT_API_KEY: KEY, AGENTKIT_TARGET: platform.url };
    const { url, schema } = t.backend;
    const drains = [0, 1].map(() => spawnNode('conformance/fixtures/platform/drain-store.ts', [url, schema], { env }));
    t.defer(async () => {
      for (const d of drains) d.process.kill('SIGKILL');
      await Promise.all(drains.map((d) => d.exited));
    });
    await Promise.all(drains.map((d) => d.waitForLine((line) => line === 'ready', 30_000)));
    for (const d of drains) d.process.stdin.write('go\n');
    const results = await Promise.all(
      drains.map(async (d) => JSON.parse(await d.waitForLine((line) => line.startsWith('{'), 60_000)) as { synced: number; outcome: string }),
    );
    assert.equal(
      results.map((r) => r.outcome),
      ['drained', 'drained'],
    );
    assert.is(results[0]!.synced + results[1]!.synced, 1000, `rows sent by the two drains: ${results.map((r) => r.synced).join(' + ')}`);
    assert.equal((await platform.read((s) => s.checkpoints().map((r) => r.body.checkpoint_id as string))).sort(), [...ids].sort());
    assert.is((await checkpointer.fetchUnsynced(10)).length, 0);
  },
);

area.run();
