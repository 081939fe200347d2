/**
 * Lists that say when they are cut and tables people can read (issue 49, docs/adr/0060): `traces list --limit`,
 * `list-pending`'s default of 100 saying it cut, piped output never cut, and `list-pending` under a real terminal
 * (`script` allocates a pty) at 80 and 200 columns showing the reason and the time whole.
 */
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { Agent, flushTraces } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { storeFlags } from '../fixtures/durability/cli-variant.js';
import { checkpointerFor, conformance, type ScenarioContext } from '../harness/index.js';
import { BIN } from '../harness/cli.js';
import { openLocalStore } from '../../src/store/index.js';

const area = conformance('CLI: lists and tables');
const run = promisify(execFile);

/** Pause `count` runs of the approval chain on the variant's store; their execution ids. */
async function pauseMany(t: ScenarioContext, count: number): Promise<string[]> {
  const checkpointer = checkpointerFor(t.backend);
  const ids: string[] = [];
  try {
    const chain = approvalChain(checkpointer);
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      await chain.run('refund order 42', { executionId: id });
      ids.push(id);
    }
  } finally {
    await checkpointer.close();
  }
  return ids;
}

/** `agentkit <argv>` under a pseudo-terminal of `columns` columns (util-linux `script`); its output, CRs removed. */
async function underTerminal(t: ScenarioContext, columns: number, argv: readonly string[]): Promise<string> {
  const quoted = [process.execPath, BIN, ...argv].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const { stdout } = await run('script', ['-qfec', `stty cols ${columns} rows 200; ${quoted}`, '/dev/null'], {
    cwd: t.cwd,
    env: { ...process.env, ...t.env, NO_COLOR: '1', TERM: 'dumb' },
  });
  return stdout.replace(/\r/g, '');
}

area.scenario(
  'traces list: --limit n shows the newest n and says more are available (stderr; more_available in --json); without it, every row',
  { rows: ['cli:traces list'], surfaces: ['cli'], storeEnv: true },
  async (t) => {
    for (const text of ['one', 'two', 'three']) {
      const agent = new Agent({ name: 'lister', systemPrompt: 'x', llm: new ScriptedModel([{ text }]), traceDb: t.store! });
      await agent.run(text);
    }
    await flushTraces();
    const one = await t.cli(['traces', 'list', '--limit', '1', '--json']);
    assert.is(one.code, 0, one.stderr);
    const body = JSON.parse(one.stdout) as { items: unknown[]; count: number; more_available: boolean };
    assert.equal([body.items.length, body.count, body.more_available], [1, 1, true]);
    const all = JSON.parse((await t.cli(['traces', 'list', '--json'])).stdout) as typeof body;
    assert.equal([all.items.length, all.count, all.more_available], [3, 3, false]);
    const exact = JSON.parse((await t.cli(['traces', 'list', '--limit', '3', '--json'])).stdout) as typeof body;
    assert.equal([exact.items.length, exact.more_available], [3, false], 'a limit that cuts nothing says nothing more');
    const text = await t.cli(['traces', 'list', '--limit', '2']);
    assert.equal([text.code, text.stdout.trimEnd().split('\n').length, text.stderr], [0, 3, 'showing 2, more available (raise --limit to see more)\n']);
    const whole = await t.cli(['traces', 'list']);
    assert.equal([whole.stdout.trimEnd().split('\n').length, whole.stderr], [4, '']);
    const bad = await t.cli(['traces', 'list', '--limit', '0']);
    assert.equal([bad.code, bad.stdout], [2, '']);
    assert.ok(bad.stderr.startsWith('error: invalid value for --limit: expected to be at least 1 (got 0)'), bad.stderr);
  },
);

area.scenario(
  'list-pending: with 101 pending the default shows 100 and says so; --json stays the array; piped output cuts nothing',
  { rows: ['cli:list-pending'], surfaces: ['cli'], backends: ['sqlite'], timeoutMs: 120_000 },
  async (t) => {
    await pauseMany(t, 101);
    const listed = await t.cli(['list-pending', ...storeFlags(t)]);
    assert.is(listed.code, 0, listed.stderr);
    assert.is(listed.stdout.trimEnd().split('\n').length, 101, 'the header and 100 rows');
    assert.is(listed.stderr, 'showing 100, more available (raise --limit to see more)\n');
    const json = await t.cli(['list-pending', '--json', ...storeFlags(t)]);
    assert.equal([(JSON.parse(json.stdout) as unknown[]).length, json.stderr], [100, 'showing 100, more available (raise --limit to see more)\n']);
    const all = await t.cli(['list-pending', '--limit', '101', ...storeFlags(t)]);
    assert.equal([all.stdout.trimEnd().split('\n').length, all.stderr], [102, '']);
    // Piped (not a terminal): nothing cut, the context whole, whatever the width.
    for (const line of listed.stdout.trimEnd().split('\n')) assert.not.match(line, /…|\.\.\./);
    assert.match(
      listed.stdout,
      /[0-9a-f-]{36}\s+refund\s+approval\s+manager_approval\s+-\s+\S+Z\s+\{"amount":50000,"policy":"high-value"\}\n/,
      listed.stdout.split('\n')[1],
    );
  },
);

area.scenario(
  'list-pending under a real terminal: at 80 and 200 columns the reason and the created time are whole, lines fit',
  { rows: ['cli:list-pending'], surfaces: ['cli'], backends: ['sqlite'], timeoutMs: 60_000 },
  async (t) => {
    const [id] = await pauseMany(t, 1);
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const [pending] = await checkpointer.listPendingInterrupts();
    const created = pending!.created_at;

    const wide = (await underTerminal(t, 200, ['list-pending'])).trimEnd().split('\n');
    assert.is(wide.length, 2, wide.join('\n'));
    for (const line of wide) assert.ok(line.length <= 200, line);
    assert.match(
      wide[1]!,
      new RegExp(`^${id}\\s+refund\\s+approval\\s+manager_approval\\s+-\\s+${created.replace(/\./g, '\\.')}\\s+\\{"amount":50000,"policy":"high-value"\\}$`),
      wide[1],
    );

    const narrow = (await underTerminal(t, 80, ['list-pending'])).trimEnd().split('\n');
    for (const line of narrow) assert.ok(line.length <= 80, `${line.length}: ${line}`);
    assert.ok(narrow[1]!.includes(created), `the time is whole: ${narrow[1]}`);
    assert.ok(narrow[1]!.startsWith(id!.slice(0, 11)), 'the id is cut to a prefix the commands take');
    // The reason wraps within its column: read the column back from every line of the row.
    const start = narrow[0]!.indexOf('REASON');
    const after = narrow[0]!.slice(start + 'REASON'.length).search(/\S/) + start + 'REASON'.length;
    const reason = narrow
      .slice(1)
      .map((line) => line.slice(start, after).trim())
      .join('');
    assert.is(reason, 'manager_approval');
  },
);

area.scenario(
  'replay inspect prints model message arrays as indented JSON, not escaped text; --json keeps them as recorded',
  { rows: ['cli:replay inspect'], surfaces: ['cli'], backends: ['sqlite'] },
  async (t) => {
    const agent = new Agent({ name: 'talker', systemPrompt: 'Be brief.', llm: new ScriptedModel([{ text: 'hello there' }]), traceDb: t.store! });
    const result = await agent.run('hi');
    await flushTraces();
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ];
    const db = openLocalStore(t.store!);
    db.prepare(
      "INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes) VALUES ('feedfacefeedface', ?, NULL, 'llm.chat', '2000-01-01T00:00:00.000000Z', '2000-01-01T00:00:00.000000Z', 'OK', ?)",
    ).run(result.trace_id, JSON.stringify({ 'gen_ai.input.messages': JSON.stringify(messages), 'tool.args': '{"id":"1"}' }));
    db.close();
    const text = await t.cli(['replay', 'inspect', result.trace_id!, '0']);
    assert.is(text.code, 0, text.stderr);
    assert.is(text.stdout.split('\n')[0], 'Step 0: llm.chat');
    const attributes = JSON.parse(text.stdout.slice(text.stdout.indexOf('Attributes:\n') + 'Attributes:\n'.length)) as Record<string, unknown>;
    assert.equal(attributes['gen_ai.input.messages'], messages, 'the message array is decoded');
    assert.is(attributes['tool.args'], '{"id":"1"}', 'a single object stays as recorded');
    assert.match(text.stdout, '\n    {\n      "role": "system",\n      "content": "Be brief."\n    },');
    assert.not.match(text.stdout, '\\"role\\"');
  },
);

area.run();
