/**
 * Prompts on a shared store (issue 39), across real processes: two processes adding versions of one prompt at once
 * get distinct consecutive numbers (both engines); on a Postgres store, a label moved by one process (replica 1) is
 * followed by the next run of a served agent in another (replica 2), whose trace records the new version.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, PROMPT_ATTR, PromptRegistry, TraceStore } from '../../src/index.js';
import { startCli } from '../harness/cli-process.js';
import { conformance, spawnNode } from '../harness/index.js';

const area = conformance('prompts: shared store across processes');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

area.scenario(
  'two processes each add 20 versions of one prompt at once: 40 distinct consecutive versions',
  { rows: ['cli:prompts list'], surfaces: ['sdk'], timeoutMs: 120_000 },
  async (t) => {
    const store = t.store!;
    const children = ['one', 'two'].map((tag) => spawnNode('conformance/fixtures/prompts/add-versions.ts', [store, 'racy', '20', tag]));
    t.defer(() => {
      for (const c of children) c.process.kill('SIGKILL');
    });
    await Promise.all(children.map((c) => c.waitForLine((line) => line === 'ready', 60_000)));
    for (const c of children) c.process.stdin.write('go\n');
    const got: number[][] = [];
    for (const c of children) {
      const line = await c.waitForLine((l) => l.startsWith('['), 90_000);
      assert.is((await c.exit(30_000)).code, 0, c.stderr());
      got.push(JSON.parse(line) as number[]);
    }
    for (const versions of got) {
      assert.is(versions.length, 20);
      assert.ok(
        versions.every((v, i) => i === 0 || v > versions[i - 1]!),
        `each process's versions increase: ${versions.join(',')}`,
      );
    }
    const all = got.flat().sort((a, b) => a - b);
    assert.equal(
      all,
      Array.from({ length: 40 }, (_, i) => i + 1),
      'distinct and consecutive',
    );

    // Read through a store handle (`openStore`), which the registry leaves open when it closes.
    const handle = openStore(store);
    t.defer(() => handle.close());
    const registry = new PromptRegistry({ store: handle });
    const stored = await registry.versions('racy');
    await registry.close();
    assert.is((await new PromptRegistry({ store: handle }).load('racy')).version, 40, 'the handle is still usable');
    assert.equal(
      stored.map((v) => v.version),
      all,
    );
    // Each number holds the template of the process that got it, in that process's order.
    for (const [index, tag] of ['one', 'two'].entries()) {
      const mine = stored.filter((v) => v.created_by === tag);
      assert.equal(
        mine.map((v) => v.version),
        got[index],
      );
      assert.equal(
        mine.map((v) => v.template),
        got[index]!.map((_, i) => `${tag} template ${i}`),
      );
    }
    const listed = JSON.parse((await t.cli(['prompts', 'list', '--db', store, '--json'])).stdout) as {
      items: Array<{ latest_version: number; versions: number }>;
    };
    assert.equal([listed.items[0]!.latest_version, listed.items[0]!.versions], [40, 40]);
  },
);

area.scenario(
  'fleet: replica 1 moves a label; replica 2 (a served agent) follows it at its next run and its trace records the version',
  { rows: ['cli:prompts list'], backends: ['postgres'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    const store = t.store!;
    const example = (file: string) => path.join(root, 'examples/prompts', file);
    const env = { AGENTKIT_LOCAL_DB: store, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined };
    assert.is((await t.cli(['prompts', 'fragment', 'tone', '--file', example('tone.txt'), '--db', store])).code, 0);
    assert.is((await t.cli(['prompts', 'add', 'support', '--file', example('support.v1.txt'), '--db', store])).stdout, 'support v1\n');
    assert.is(
      (await t.cli(['prompts', 'add', 'support', '--file', example('support.v2.txt'), '--label', 'production', '--db', store])).stdout,
      'support v2 [production]\n',
    );

    const replica2 = startCli(['agent', 'serve', `${example('support-agent.ts')}:support`, '--host', '127.0.0.1', '--port', '0'], {
      cwd: t.cwd,
      env: { ...env, OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=replica-2' },
    });
    t.defer(() => replica2.kill());
    const [, url] = await replica2.waitForStderr(/serving agent '[^']+' on (http:\/\/[^ ]+)/, 60_000);
    const run = async () => {
      const response = await fetch(`${url}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'Where is order 42?' }),
      });
      assert.is(response.status, 200);
      return (await response.json()) as { trace_id: string; output: string };
    };
    const traces = new TraceStore({ dbPath: store });
    const versionOf = async (traceId: string) => {
      const rootSpan = (await traces.getTrace(traceId)).spans.find((s) => s.name === 'agent.support')!;
      return [rootSpan.attributes[PROMPT_ATTR.name], rootSpan.attributes[PROMPT_ATTR.version], rootSpan.attributes[PROMPT_ATTR.label]];
    };

    const before = await run();
    assert.is(before.output, '[Answer in one sentence and quote the order number.] Order 42 ships today.');

    // Replica 1: another process (the built CLI) moves the label on the shared store.
    const moved = await t.bin(['prompts', 'label', 'support', 'production', '--version', '1'], { env: { AGENTKIT_LOCAL_DB: store } });
    assert.equal(moved, { code: 0, stdout: 'support: production -> v1 (was v2)\n', stderr: '' });

    const after = await run();
    assert.is(after.output, '[Answer in one sentence.] Order 42 ships today.', "replica 2's next run uses the moved label");
    replica2.child.kill('SIGTERM');
    assert.is((await replica2.exited).code, 0, replica2.stderr());
    assert.equal(await versionOf(before.trace_id), ['support', 2, 'production']);
    assert.equal(await versionOf(after.trace_id), ['support', 1, 'production']);
  },
);

area.run();
