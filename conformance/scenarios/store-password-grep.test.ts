/**
 * Issue 38's grep test: a password given in `--db` (or `AGENTKIT_LOCAL_DB`) appears in no output, log or error of any
 * command that touches the store, on a reachable store, an unreachable server, and a malformed schema name; and no
 * file in the working directory holds it or is named by it (a URL is never a file path). The UI and `mcp serve`
 * (long-running) are grepped in their own scenarios (ui-store-value, mcp-serve-store-value).
 */
import * as assert from 'uvu/assert';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Agent, flushTraces } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { pauseRun, writeRunner } from '../fixtures/durability/cli-variant.js';
import { conformance, type ScenarioContext } from '../harness/index.js';

const area = conformance('store: a password in --db is never shown');
const PASSWORD = 'Gr3pP4ssw0rdNeverShown';

function urlOf(t: ScenarioContext, schema: string, base?: string): string {
  if (t.backend.kind !== 'postgres') throw new Error('postgres only');
  const url = new URL(base ?? t.backend.url);
  url.password = PASSWORD;
  url.searchParams.set('schema', schema);
  return url.toString();
}

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    found.push(full);
    if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...(await filesUnder(full)));
  }
  return found;
}

/** Every command that touches the store, with `store` in `--db`. */
function commands(store: string, ids: { traceId: string; executionId: string; runner: string }): string[][] {
  return [
    ['traces', 'list', '--db', store, '--json'],
    ['traces', 'list', '--db', store],
    ['traces', 'export', ids.traceId, '--db', store],
    ['traces', 'export', 'ffffffffffffffffffffffffffffffff', '--db', store],
    ['traces', 'prune', '--older-than', '30d', '--db', store],
    ['export-trace', '--trace-id', ids.traceId, '--output', 'out.json', '--db', store],
    ['replay', 'show', ids.traceId, '--db', store],
    ['replay', 'inspect', ids.traceId, '0', '--db', store],
    ['list-pending', '--db', store],
    ['inspect', ids.executionId, '--db', store],
    ['setup-checkpointer', '--db', store],
    ['store', 'migrate', '--db', store],
    ['resume', ids.executionId, '--runner', ids.runner, '--db', store, '--value', '{"approved": false}'],
    ['eval', 'curate', '--db', store, '--out', 'curated.jsonl'],
    ['eval', 'curate', '--db', store, '--filter', 'favorites', '--out', 'curated.jsonl'],
    ['eval', 'compare', 'a', 'b', '--db', store],
    ['eval', 'export', '--status', '--db', store],
    ['prompts', 'list', '--db', store],
    ['prompts', 'show', 'greeting', '--db', store],
  ];
}

area.scenario(
  'no command prints the password of a --db URL: reachable, unreachable, bad schema, or in AGENTKIT_LOCAL_DB',
  { backends: ['postgres'], surfaces: ['cli'], timeoutMs: 120_000 },
  async (t) => {
    if (t.backend.kind !== 'postgres') return;
    const store = urlOf(t, t.backend.schema);
    const agent = new Agent({ name: 'grep_agent', systemPrompt: 'Answer.', llm: new ScriptedModel([{ text: 'ok' }]), traceDb: store });
    const traceId = (await agent.run('hi')).trace_id!;
    await flushTraces();
    const runner = await writeRunner(t);
    await pauseRun(t, 'exec-grep');
    const ids = { traceId, executionId: 'exec-grep', runner };

    const stores = [store, urlOf(t, 'nowhere', 'postgres://app@127.0.0.1:1/db'), urlOf(t, 'bad-name')];
    const outputs: string[] = [];
    let reachable = 0;
    for (const value of stores) {
      for (const argv of commands(value, ids)) {
        const run = await t.cli(argv);
        if (value === store && run.code === 0) reachable++;
        outputs.push(`$ ${argv.join(' ')}\n${run.stdout}${run.stderr}`);
        assert.not.ok(
          `${run.stdout}${run.stderr}`.includes(PASSWORD),
          `agentkit ${argv.join(' ')} (exit ${run.code}) printed the password:\n${run.stdout}${run.stderr}`,
        );
      }
      for (const argv of [['traces', 'list'], ['list-pending'], ['eval', 'curate', '--out', 'env.jsonl'], ['prompts', 'list']]) {
        const run = await t.cli(argv, { env: { AGENTKIT_LOCAL_DB: value } });
        outputs.push(`$ AGENTKIT_LOCAL_DB=... ${argv.join(' ')}\n${run.stdout}${run.stderr}`);
        assert.not.ok(`${run.stdout}${run.stderr}`.includes(PASSWORD), `AGENTKIT_LOCAL_DB=<url> agentkit ${argv.join(' ')} printed the password`);
      }
    }
    // An unreachable server is named (redacted) and said to be down, in one line, by the trace and checkpoint readers.
    for (const argv of [
      ['traces', 'list'],
      ['eval', 'curate', '--out', 'down.jsonl'],
    ]) {
      const down = await t.cli([...argv, '--db', stores[1]!]);
      assert.is(down.code, 1, down.stderr);
      assert.is(down.stderr.trim().split('\n').length, 1, down.stderr);
      assert.match(
        down.stderr,
        /^error: the Postgres store postgres:\/\/app:\[REDACTED\]@127\.0\.0\.1:1\/db\?schema=nowhere is unavailable: the server refused the connection/,
      );
    }
    // The grep is over real work: most commands succeeded on the reachable store, and the failures said something.
    assert.ok(reachable >= 12, `only ${reachable} commands succeeded on the reachable store:\n${outputs.join('\n')}`);
    assert.ok(outputs.join('\n').includes('[REDACTED]'), 'messages name the store redacted');
    for (const file of await filesUnder(t.cwd)) {
      assert.not.ok(file.includes(PASSWORD), `a file is named by the URL: ${file}`);
      const text = await readFile(file).then(
        (bytes) => bytes.toString('latin1'),
        () => '', // a directory
      );
      assert.not.ok(text.includes(PASSWORD), `${file} holds the password`);
    }
    if (process.env.GREP_TEST_DUMP) await writeFile(process.env.GREP_TEST_DUMP, outputs.join('\n'));
  },
);

area.run();
