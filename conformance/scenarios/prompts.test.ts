/**
 * The prompt registry through the CLI and the SDK: versions registered from files, labels, diffs, loading by label,
 * an agent running on a registry prompt with the version on its span, and a rerun of that agent with another version.
 * Each runs on a SQLite file and on a Postgres store (issue 39), the CLI reading the store from AGENTKIT_LOCAL_DB.
 */
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { conformance, type ScenarioContext, runTsFile } from '../harness/index.js';
import { Agent, agentDefinitionFromAttributes, NotFoundError, PromptError, PromptRegistry, PROMPT_ATTR, Replay, TraceStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

const area = conformance('prompts');

/** The variant's store: the SQLite file, or the Postgres URL with its schema. */
function dbOf(t: ScenarioContext): string {
  return t.store!;
}

/** The prompt family's tables in a Postgres schema. */
async function promptTables(url: string, schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'prompt%' ORDER BY table_name",
      [schema],
    );
    return result.rows.map((r) => r.table_name);
  } finally {
    await client.end();
  }
}

const V1 = 'You are the support agent of {{company}}.\n{{@tone}}\nAnswer in one sentence.\n';
const V2 = 'You are the support agent of {{company}}.\n{{@tone}}\nAnswer in one sentence and quote the order id.\n';
const V3 = 'You are the senior support agent of {{company}}.\n{{@tone}}\nAnswer in one sentence and quote the order id.\n';

/** Three versions registered from files through the CLI, the second labelled production. */
async function registerThree(t: ScenarioContext): Promise<void> {
  await writeFile(path.join(t.cwd, 'tone.txt'), 'Be warm and precise.');
  assert.equal(await t.cli(['prompts', 'fragment', 'tone', '--file', 'tone.txt']), { code: 0, stdout: 'fragment tone saved\n', stderr: '' });
  for (const [i, text] of [V1, V2, V3].entries()) {
    await writeFile(path.join(t.cwd, `support-${i + 1}.txt`), text);
  }
  assert.equal(await t.cli(['prompts', 'add', 'support', '--file', 'support-1.txt', '--description', 'Order support']), {
    code: 0,
    stdout: 'support v1\n',
    stderr: '',
  });
  assert.equal(await t.cli(['prompts', 'add', 'support', '--file', 'support-2.txt', '--label', 'production']), {
    code: 0,
    stdout: 'support v2 [production]\n',
    stderr: '',
  });
  assert.equal(await t.cli(['prompts', 'add', 'support', '--file', 'support-3.txt', '--label', 'staging']), {
    code: 0,
    stdout: 'support v3 [staging]\n',
    stderr: '',
  });
}

area.scenario(
  'prompts list and diff: versions from files, labels, unified diff, unknown name or version',
  { rows: ['cli:prompts list', 'cli:prompts diff'], storeEnv: true, surfaces: ['cli'] },
  async (t) => {
    assert.equal(await t.cli(['prompts', 'list']), { code: 0, stdout: 'No prompts registered.\n', stderr: '' });
    if (t.backend.kind === 'sqlite') assert.not.ok(existsSync(dbOf(t)), 'listing does not create a store');
    if (t.backend.kind === 'postgres') assert.equal(await promptTables(t.backend.url, t.backend.schema), [], 'listing creates no table');

    await registerThree(t);
    if (t.backend.kind === 'postgres') {
      assert.equal(
        await promptTables(t.backend.url, t.backend.schema),
        ['prompt_fragments', 'prompt_labels', 'prompt_schema_version', 'prompt_versions', 'prompts'],
        'the first write migrates the prompt tables',
      );
    }
    assert.equal(
      await t.cli(['prompts', 'add', 'support', '--file', 'support-3.txt']),
      { code: 0, stdout: 'support v3 (unchanged)\n', stderr: '' },
      'an unchanged file makes no version',
    );
    assert.equal(await t.cli(['prompts', 'add', 'billing', '--file', 'support-1.txt']), { code: 0, stdout: 'billing v1\n', stderr: '' });

    assert.equal(await t.cli(['prompts', 'list']), {
      code: 0,
      stdout: ['NAME     LATEST  VERSIONS  LABELS', 'billing       1         1  -', 'support       3         3  production=2, staging=3', ''].join('\n'),
      stderr: '',
    });
    const listed = JSON.parse((await t.cli(['prompts', 'list', '--json'])).stdout) as {
      count: number;
      items: Array<{ name: string; latest_version: number; versions: number; labels: Record<string, number>; description: string }>;
    };
    assert.is(listed.count, 2);
    assert.equal(
      listed.items.map((p) => [p.name, p.latest_version, p.versions, p.labels, p.description]),
      [
        ['billing', 1, 1, {}, ''],
        ['support', 3, 3, { production: 2, staging: 3 }, 'Order support'],
      ],
    );

    assert.equal(await t.cli(['prompts', 'diff', 'support', '--from', '1', '--to', '3']), {
      code: 0,
      stdout: [
        '--- support v1',
        '+++ support v3',
        '@@ -1,3 +1,3 @@',
        '-You are the support agent of {{company}}.',
        '+You are the senior support agent of {{company}}.',
        ' {{@tone}}',
        '-Answer in one sentence.',
        '+Answer in one sentence and quote the order id.',
        '',
      ].join('\n'),
      stderr: '',
    });
    assert.equal(await t.cli(['prompts', 'diff', 'support', '--from', '2', '--to', '2']), {
      code: 0,
      stdout: '--- support v2\n+++ support v2\n(no template changes)\n',
      stderr: '',
    });
    const asJson = await t.cli(['prompts', 'diff', 'support', '--from', '2', '--to', '2', '--json']);
    assert.equal(JSON.parse(asJson.stdout), { name: 'support', from: 2, to: 2, diff: '--- support v2\n+++ support v2\n(no template changes)\n' });
    assert.equal(await t.cli(['prompts', 'diff', 'support', '--from', '1', '--to', '7']), {
      code: 1,
      stdout: '',
      stderr: "error: prompt 'support' has no version 7 (versions 1-3)\n",
    });
    assert.equal(await t.cli(['prompts', 'diff', 'refunds', '--from', '1', '--to', '2']), {
      code: 1,
      stdout: '',
      stderr: "error: prompt 'refunds' is not registered\n",
    });
    assert.is((await t.cli(['prompts', 'diff', 'support', '--from', 'one', '--to', '2'])).code, 2, 'a version that is not a number is a usage error');
    assert.is((await t.cli(['prompts', 'diff', 'support', '--to', '2'])).code, 2, '--from is required');
  },
);

area.scenario(
  'prompts show, label and add: load by label, roll back, render with variables, errors in one line',
  { rows: ['cli:prompts list'], storeEnv: true, surfaces: ['cli'] },
  async (t) => {
    await registerThree(t);
    assert.equal(await t.cli(['prompts', 'show', 'support', '--label', 'production']), { code: 0, stdout: V2, stderr: '' });
    assert.equal(await t.cli(['prompts', 'show', 'support', '--version', '1', '--render', '--var', 'company=Acme']), {
      code: 0,
      stdout: 'You are the support agent of Acme.\nBe warm and precise.\nAnswer in one sentence.\n',
      stderr: '',
    });
    assert.equal(await t.cli(['prompts', 'show', 'support', '--render']), {
      code: 2,
      stdout: '',
      stderr: "error: prompt 'support' v3: missing variable 'company'\n",
    });
    const record = JSON.parse((await t.cli(['prompts', 'show', 'support', '--json'])).stdout) as Record<string, unknown>;
    assert.equal(
      [record.version, record.variables, record.fragments, record.labels, record.origin],
      [3, ['company'], { tone: 'Be warm and precise.' }, ['staging'], 'local'],
    );

    assert.equal(await t.cli(['prompts', 'label', 'support', 'production', '--version', '1']), {
      code: 0,
      stdout: 'support: production -> v1 (was v2)\n',
      stderr: '',
    });
    assert.equal(await t.cli(['prompts', 'show', 'support', '--label', 'production']), { code: 0, stdout: V1, stderr: '' });
    assert.equal(await t.cli(['prompts', 'show', 'support', '--label', 'canary']), {
      code: 1,
      stdout: '',
      stderr: "error: prompt 'support' has no label 'canary' (labels: production, staging)\n",
    });
    assert.equal(await t.cli(['prompts', 'label', 'support', 'production', '--version', '9']), {
      code: 1,
      stdout: '',
      stderr: "error: prompt 'support' has no version 9 (versions 1-3)\n",
    });
    assert.equal(await t.cli(['prompts', 'label', 'support', 'latest', '--version', '1']), {
      code: 2,
      stdout: '',
      stderr: "error: the label 'latest' is reserved: it always means the newest version\n",
    });
    assert.equal(await t.cli(['prompts', 'label', 'support', 'staging', '--delete']), { code: 0, stdout: 'support: removed label staging\n', stderr: '' });

    assert.equal(await t.cli(['prompts', 'add', 'support', '--file', 'missing.txt']), {
      code: 2,
      stdout: '',
      stderr: 'error: cannot read missing.txt: no such file; usage: agentkit prompts add <name> --file <file> [options]\n',
    });
    await writeFile(path.join(t.cwd, 'bad.txt'), 'Hello {{@signature}}');
    assert.equal(await t.cli(['prompts', 'add', 'support', '--file', 'bad.txt']), {
      code: 2,
      stdout: '',
      stderr: "error: fragment 'signature' is not registered\n",
    });
    assert.equal(await t.cli(['prompts', 'add', 'support', '--file', 'support-1.txt', '--variable', 'customer']), {
      code: 2,
      stdout: '',
      stderr: "error: prompt 'support': the template uses undeclared variable 'company' (declared: customer)\n",
    });
    assert.is((await new PromptRegistry({ dbPath: dbOf(t) }).load('support')).version, 3, 'failed adds wrote nothing');
  },
);

area.scenario(
  'an agent on a registry prompt records its version; a rerun with another version uses that version',
  { rows: ['cli:prompts list'], storeEnv: true, surfaces: ['sdk'] },
  async (t) => {
    await registerThree(t);
    const registry = new PromptRegistry({ dbPath: dbOf(t) });
    const production = await registry.load('support', { label: 'production' });
    assert.is(production.version, 2);
    assert.is(
      production.render({ company: 'Acme' }),
      'You are the support agent of Acme.\nBe warm and precise.\nAnswer in one sentence and quote the order id.\n',
    );
    try {
      production.render({});
      assert.unreachable('a missing variable must throw');
    } catch (error) {
      assert.instance(error, PromptError);
      assert.is((error as Error).message, "prompt 'support' v2: missing variable 'company'");
    }
    const unknown = await registry.load('nope').catch((e: unknown) => e);
    assert.instance(unknown, NotFoundError);

    const llm = new ScriptedModel([{ text: 'Order 42 ships today.' }]);
    const agent = new Agent({
      name: 'support',
      llm,
      traceDb: dbOf(t),
      systemPrompt: registry.ref('support', { label: 'production', variables: (p) => ({ company: (p.context as { company: string }).company }) }),
    });
    const result = await agent.run('Where is order 42?', { context: { company: 'Acme' } });
    assert.is(result.status, 'completed');
    assert.is(llm.received[0]![0]!.content, production.render({ company: 'Acme' }));
    const trace = await new TraceStore({ dbPath: dbOf(t) }).getTrace(result.trace_id!);
    const root = trace.spans.find((s) => s.name === 'agent.support')!;
    assert.equal([root.attributes[PROMPT_ATTR.name], root.attributes[PROMPT_ATTR.version], root.attributes[PROMPT_ATTR.label]], ['support', 2, 'production']);

    // Rerun the traced agent with version 1 instead: rebuilt from its span, the prompt pinned to another version.
    const rerunModel = new ScriptedModel([{ text: 'Order 42 ships today (v1).' }]);
    const definition = agentDefinitionFromAttributes(root.attributes, root.name);
    const rebuilt = Agent.fromDefinition(definition, {
      llm: rerunModel,
      systemPrompt: registry.ref(root.attributes[PROMPT_ATTR.name] as string, { version: 1, variables: { company: 'Acme' } }),
    });
    const rerun = await rebuilt.run('Where is order 42?', { traceDb: dbOf(t) });
    assert.is(rerunModel.received[0]![0]!.content, 'You are the support agent of Acme.\nBe warm and precise.\nAnswer in one sentence.\n');
    const rerunRoot = (await new TraceStore({ dbPath: dbOf(t) }).getTrace(rerun.trace_id!)).spans.find((s) => s.name === 'agent.support')!;
    assert.equal([rerunRoot.attributes[PROMPT_ATTR.version], rerunRoot.attributes[PROMPT_ATTR.label]], [1, undefined]);

    // A label moved between runs is followed by the next run.
    await registry.setLabel('support', 'production', 3);
    const next = new ScriptedModel([{ text: 'ok' }]);
    const moved = await agent.clone({ llm: next }).run('Where is order 43?', { context: { company: 'Acme' } });
    const movedRoot = (await new TraceStore({ dbPath: dbOf(t) }).getTrace(moved.trace_id!)).spans.find((s) => s.name === 'agent.support')!;
    assert.is(movedRoot.attributes[PROMPT_ATTR.version], 3);

    // A missing variable fails the run with the variable named.
    const failing = new Agent({ name: 'support', llm: new ScriptedModel([{ text: 'never' }]), traceDb: dbOf(t), systemPrompt: registry.ref('support') });
    const failure = await failing.run('hi').catch((e: unknown) => e);
    assert.instance(failure, PromptError);
    assert.is((failure as Error).message, "prompt 'support' v3: missing variable 'company'");
  },
);

area.scenario(
  'replay: a fork reruns the traced agent on another registry version, given as a reference or as a loaded version',
  { rows: ['cli:prompts list'], storeEnv: true, surfaces: ['sdk'] },
  async (t) => {
    await registerThree(t);
    const registry = new PromptRegistry({ dbPath: dbOf(t) });
    const agent = new Agent({
      name: 'support',
      llm: new ScriptedModel([{ text: 'Order 42 ships today.' }]),
      traceDb: dbOf(t),
      systemPrompt: registry.ref('support', { label: 'production', variables: { company: 'Acme' } }),
    });
    const original = await agent.run('Where is order 42?');
    const store = new TraceStore({ dbPath: dbOf(t) });
    const rootOf = async (traceId: string) => (await store.getTrace(traceId)).spans.find((s) => s.name === 'agent.support')!;
    assert.is((await rootOf(original.trace_id!)).attributes[PROMPT_ATTR.version], 2);

    const replay = await Replay.load(original.trace_id!, { dbPath: dbOf(t) });
    const v1Text = 'You are the support agent of Acme.\nBe warm and precise.\nAnswer in one sentence.\n';
    // As a reference: resolved at rerun time; the rerun's span names the version that ran.
    const byRef = new ScriptedModel([{ text: 'Order 42 ships today (v1).' }]);
    const refRun = await replay
      .forkAt(0)
      .modifyPrompt(registry.ref('support', { version: 1, variables: { company: 'Acme' } }))
      .withDeterminism('live')
      .rerun({ llm: byRef });
    assert.is(byRef.received[0]![0]!.content, v1Text);
    const refRoot = await rootOf(refRun.trace_id!);
    assert.equal([refRoot.attributes[PROMPT_ATTR.name], refRoot.attributes[PROMPT_ATTR.version]], ['support', 1]);
    // As a loaded version rendered with variables: the same text and the same attributes.
    const byVersion = new ScriptedModel([{ text: 'Order 42 ships today (v1).' }]);
    const loaded = await registry.load('support', { version: 1 });
    const versionRun = await replay.forkAt(0).modifyPrompt(loaded, { company: 'Acme' }).withDeterminism('live').rerun({ llm: byVersion });
    assert.is(byVersion.received[0]![0]!.content, v1Text);
    assert.equal([(await rootOf(versionRun.trace_id!)).attributes[PROMPT_ATTR.version]], [1]);
    // A loaded version missing a variable is refused by modifyPrompt itself, naming the variable.
    const refused = (() => {
      try {
        replay.forkAt(0).modifyPrompt(loaded);
        return null;
      } catch (e) {
        return e;
      }
    })();
    assert.instance(refused, PromptError);
    assert.is((refused as Error).message, "prompt 'support' v1: missing variable 'company'");
    // Anything else is a one-line ConfigError.
    assert.throws(() => replay.forkAt(0).modifyPrompt(42 as unknown as string), /modifyPrompt needs the new system prompt as a string, a registry reference/);
  },
);

area.scenario(
  'docs/prompts.md: the example agent follows the production label from files registered by the CLI',
  { rows: ['cli:prompts list'], storeEnv: true, surfaces: ['cli'], timeoutMs: 30_000 },
  async (t) => {
    const example = (file: string) => path.resolve('examples/prompts', file);
    assert.is((await t.cli(['prompts', 'fragment', 'tone', '--file', example('tone.txt')])).code, 0);
    assert.is((await t.cli(['prompts', 'add', 'support', '--file', example('support.v1.txt')])).stdout, 'support v1\n');
    assert.is((await t.cli(['prompts', 'add', 'support', '--file', example('support.v2.txt'), '--label', 'production'])).stdout, 'support v2 [production]\n');
    const runExample = () => runTsFile([example('support-agent.ts'), 'Where is order 42?'], { cwd: t.cwd, env: { ...process.env, ...t.env } });
    const first = await runExample();
    assert.is(first.code, 0, first.stderr);
    assert.is(first.stdout.split('\n')[0], '[Answer in one sentence and quote the order number.] Order 42 ships today.');
    const traceId = /^trace ([0-9a-f]{32})$/m.exec(first.stdout)?.[1];
    const root = (await new TraceStore({ dbPath: dbOf(t) }).getTrace(traceId!)).spans.find((s) => s.name === 'agent.support')!;
    assert.equal([root.attributes[PROMPT_ATTR.name], root.attributes[PROMPT_ATTR.version]], ['support', 2]);

    assert.is((await t.cli(['prompts', 'label', 'support', 'production', '--version', '1'])).stdout, 'support: production -> v1 (was v2)\n');
    const rolledBack = await runExample();
    assert.is(rolledBack.stdout.split('\n')[0], '[Answer in one sentence.] Order 42 ships today.', 'a rollback is one label move');
  },
);

area.run();
