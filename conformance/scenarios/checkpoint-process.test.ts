/**
 * Issue 38: on a Postgres store every checkpoint names the process that wrote it (an id into the trace family's
 * `processes` table: service name, host, pid, instance id). A chain paused in this process and resumed by the built
 * binary: the rows up to the pause name this process, the decision and the rows after it name the resumer.
 */
import * as assert from 'uvu/assert';
import { hostname } from 'node:os';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { processIdentity } from '../../src/config/process-identity.js';
import { exactlyOnceRunner } from '../fixtures/durability/exactly-once.js';
import { backendConfig, checkpointerFor, conformance } from '../harness/index.js';

const area = conformance('durability: each checkpoint names its writing process');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

area.scenario(
  'Postgres: rows written before a pause name this process, rows written by `agentkit resume` name the resumer',
  { rows: ['cli:resume'], backends: ['postgres'], surfaces: ['sdk', 'cli'] },
  async (t) => {
    if (t.backend.kind !== 'postgres') return;
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const paused = await exactlyOnceRunner('chain', checkpointer).run('refund 5', { executionId: 'named' } as never);
    assert.is(paused.status, 'paused');

    const fixture = pathToFileURL(path.join(root, 'conformance/fixtures/durability/exactly-once.ts')).href;
    await writeFile(
      path.join(t.cwd, 'runner.mts'),
      `import { exactlyOnceRunnerFor } from ${JSON.stringify(fixture)};\nexport const chain = () => exactlyOnceRunnerFor('chain', ${JSON.stringify(backendConfig(t.backend))});\n`,
    );
    const resumed = await t.bin(['resume', 'named', '--runner', 'runner.mts:chain'], { env: { EXACTLY_ONCE_BODY_MS: '0', OTEL_SERVICE_NAME: 'resumer' } });
    assert.is(resumed.code, 0, resumed.stderr);

    const client = new pg.Client({ connectionString: t.backend.url });
    await client.connect();
    try {
      const rows = await client.query<{
        step_type: string;
        status: string;
        service_name: string | null;
        host: string | null;
        pid: number | null;
        instance_id: string | null;
      }>(
        `SELECT c.step_type, c.status, p.service_name, p.host, p.pid, p.instance_id
           FROM "${t.backend.schema}".checkpoints c LEFT JOIN "${t.backend.schema}".processes p USING (process_id)
          WHERE c.execution_id = 'named' ORDER BY c.seq`,
      );
      const me = processIdentity();
      const pause = rows.rows.findIndex((r) => r.status === 'interrupted');
      assert.ok(pause >= 0, 'the pause was checkpointed');
      const before = rows.rows.slice(0, pause + 1);
      const after = rows.rows.slice(pause + 1);
      assert.ok(after.length >= 2, `the resume wrote its decision and the rest: ${JSON.stringify(after)}`);
      assert.equal(
        before.map((r) => [r.host, r.pid, r.instance_id]),
        before.map(() => [me.host, me.pid, me.instanceId]),
        'every row up to the pause names this process',
      );
      const resumer = after[0]!;
      assert.is(after[0]!.step_type, 'resume');
      assert.equal([resumer.service_name, resumer.host], ['resumer', hostname()]);
      assert.ok(resumer.pid !== null && resumer.pid !== process.pid, `the resumer is another process (pid ${resumer.pid})`);
      assert.equal(
        after.map((r) => [r.pid, r.instance_id]),
        after.map(() => [resumer.pid, resumer.instance_id]),
        'every row from the decision on names the resumer',
      );
    } finally {
      await client.end();
    }
  },
);

area.run();
