/**
 * docs/fleet.md, run (issue 38): three `agent serve` replicas of the quickstart on one Postgres schema, each named
 * by `service.instance.id`; a fourth process lists all their traces, filters by replica, replays and forks replica 2's
 * trace and lists pending approvals; the working directory and HOME are read-only and no `.agentkit` appears.
 */
import * as assert from 'uvu/assert';
import { chmod, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli } from '../harness/cli-process.js';
import { conformance } from '../harness/index.js';

const area = conformance('fleet: three replicas on one Postgres store');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const QUICKSTART = `${path.join(root, 'examples/quickstart-agent.ts')}:support`;

area.scenario(
  'docs/fleet.md: replicas share traces; a fourth process lists, filters and replays them',
  { backends: ['postgres'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    const store = t.store!;
    const home = path.join(t.cwd, 'home');
    const work = path.join(t.cwd, 'work');
    await mkdir(home);
    await mkdir(work);
    // Read-only for an ordinary user (a root test run writes anyway: the listings below are what proves it).
    await chmod(home, 0o555);
    await chmod(work, 0o555);
    t.defer(() => Promise.all([chmod(home, 0o755), chmod(work, 0o755)]));
    const env = { AGENTKIT_LOCAL_DB: store, HOME: home, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined };

    const traceIds: string[] = [];
    for (const i of [1, 2, 3]) {
      const replica = startCli(['agent', 'serve', QUICKSTART, '--host', '127.0.0.1', '--port', '0'], {
        cwd: work,
        env: { ...env, OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=replica-${i}` },
      });
      t.defer(() => replica.kill());
      const [, url] = await replica.waitForStderr(/serving agent '[^']+' on (http:\/\/[^ ]+)/, 60_000);
      const response = await fetch(`${url}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: `Where is order 4${i}?` }),
      });
      assert.is(response.status, 200);
      traceIds.push(((await response.json()) as { trace_id: string }).trace_id);
      replica.child.kill('SIGTERM');
      assert.is((await replica.exited).code, 0, replica.stderr());
    }

    const cli = (argv: string[]) => t.cli(argv, { env: { AGENTKIT_LOCAL_DB: store, HOME: home } });
    const all = await cli(['traces', 'list', '--db', store, '--json']);
    assert.is(all.code, 0, all.stderr);
    assert.equal((JSON.parse(all.stdout) as { items: Array<{ trace_id: string }> }).items.map((i) => i.trace_id).sort(), [...traceIds].sort());
    const second = await cli(['traces', 'list', '--db', store, '--process', 'replica-2', '--json']);
    assert.equal(
      (JSON.parse(second.stdout) as { items: Array<{ trace_id: string }> }).items.map((i) => i.trace_id),
      [traceIds[1]],
    );
    const shown = await cli(['replay', 'show', traceIds[1]!, '--db', store]);
    assert.is(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, `Trace: ${traceIds[1]}`);
    // Forked and rerun here, a host that never ran it: recorded mode answers the model from replica 2's trace.
    const forked = await cli(['replay', 'fork', traceIds[1]!, '--step', '1', '--agent', QUICKSTART, '--db', store, '--json']);
    assert.is(forked.code, 0, forked.stderr);
    const report = JSON.parse(forked.stdout) as { status: string; original_output: unknown; new_output: unknown; new_trace_id?: string };
    assert.is(report.status, 'completed');
    assert.equal(report.new_output, report.original_output, 'an unchanged fork answers as the original did');
    const pending = await cli(['list-pending', '--db', store]);
    assert.is(pending.code, 0, pending.stderr);
    assert.equal(await readdir(work), [], 'no .agentkit (or anything else) in the working directory');
    assert.equal(await readdir(home), [], 'nothing in HOME');
  },
);

area.run();
