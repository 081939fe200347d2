/**
 * The served agent on Postgres while the database kills its connections: 30 rounds of `pg_terminate_backend` on
 * every client backend under 16-worker load, on a cluster this test starts on its own port (never the shared
 * server). The server must not die, every request must be answered (200, or 503 `storage_unavailable` naming no
 * address), the pool must recover on its own, and every run that paused must be resumable afterwards.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import pg from 'pg';
import { conformance } from '../harness/index.js';
import { postgresBinDir, startOwnPostgres } from '../harness/own-postgres.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { startAgentServer } from '../../src/serve/server.js';

const area = conformance('served agent under Postgres faults');

const KILL_ROUNDS = 30;
const WORKERS = 16;

interface Answer {
  status: number;
  body: { status?: string; execution_id?: string; code?: string; detail?: string };
}

area.scenario(
  '30 kills of every connection under load: no death, every request answered, paused runs resumable',
  { backends: 'none', surfaces: ['http'], timeoutMs: 90_000 },
  async (t) => {
    if (!postgresBinDir()) throw new Error('this scenario needs the PostgreSQL server binaries (apt-get install postgresql)');
    const own = await startOwnPostgres();
    t.defer(() => own.stop());
    const checkpointer = new PostgresCheckpointer(own.url, { schema: 'faults', maxPoolSize: 8 });
    t.defer(() => checkpointer.close());
    await checkpointer.setup();
    const chain = approvalChain(checkpointer);
    const log: string[] = [];
    const server = await startAgentServer(toServeTarget(chain, { traceDb: path.join(t.cwd, 'traces.db') }), {
      host: '127.0.0.1',
      port: 0,
      log: (line) => log.push(line),
    });
    t.defer(() => server.close());

    const answers: Answer[] = [];
    const transportFailures: string[] = [];
    const post = async (): Promise<Answer | null> => {
      try {
        const response = await fetch(`${server.url}/run`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"input":"refund order 7"}',
        });
        return { status: response.status, body: (await response.json()) as Answer['body'] };
      } catch (error) {
        transportFailures.push(String(error));
        return null;
      }
    };
    let loading = true;
    const workers = Array.from({ length: WORKERS }, async () => {
      while (loading) {
        const answer = await post();
        if (answer) answers.push(answer);
      }
    });

    const admin = new pg.Client({ connectionString: own.url });
    admin.on('error', () => undefined);
    await admin.connect();
    let killed = 0;
    for (let round = 0; round < KILL_ROUNDS; round++) {
      await new Promise((resolve) => setTimeout(resolve, 80));
      const result = await admin.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      killed += result.rows[0]!.n;
    }
    await admin.end();
    loading = false;
    await Promise.all(workers);

    assert.equal(transportFailures, [], 'every request got an HTTP answer');
    assert.ok(killed >= KILL_ROUNDS, `connections were killed (${killed})`);
    const failed = answers.filter((a) => a.status !== 200);
    for (const answer of failed) {
      assert.is(answer.status, 503, JSON.stringify(answer));
      assert.is(answer.body.code, 'storage_unavailable');
      assert.not.match(answer.body.detail ?? '', /127\.0\.0\.1|localhost|:\d{4,5}\b/, 'no internal address in the detail');
    }
    assert.ok(failed.length > 0, `some runs lost their connection (${answers.length} answers)`);
    const storageLines = log.filter((line) => line.includes('unavailable'));
    assert.ok(
      storageLines.length >= 1 && storageLines.length < failed.length + 1,
      `storage failures logged, rate-limited: ${storageLines.length} lines for ${failed.length} failures`,
    );
    assert.ok(storageLines.length <= 10, `${storageLines.length} log lines`);

    // The pool recovered on its own.
    assert.is((await fetch(`${server.url}/health`)).status, 200);
    for (let i = 0; i < 10; i++) {
      const answer = await post();
      assert.is(answer?.status, 200, JSON.stringify(answer));
      answers.push(answer!);
    }

    const paused = answers.filter((a) => a.status === 200).map((a) => a.body);
    assert.ok(
      paused.every((body) => body.status === 'paused'),
      'every answered run paused at its approval',
    );
    let resumed = 0;
    for (const body of paused) {
      const result = await chain.resume(body.execution_id!, { resumeValue: { approved: true, metadata: {} } });
      assert.is(result.status, 'completed', body.execution_id);
      resumed++;
    }
    assert.is(resumed, paused.length);
  },
);

area.run();
