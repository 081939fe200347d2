/**
 * CLI errors through real `agentkit` processes: every usage error is one line on stderr (what was wrong, then the
 * command's one-line usage) with exit 2 and nothing on stdout; a missing required option is named as such; negative
 * numbers reach the command's own checks; a store path that is a folder, not a database, or (for a read-only
 * command) missing is one line naming the path, exit 1; help shows value names, never `#0`.
 */
import * as assert from 'uvu/assert';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commands } from '../../cli/commands/index.js';
import { conformance, type CliRun } from '../harness/index.js';

const area = conformance('cli: errors');

/** Exactly one line on stderr, nothing on stdout, the given exit code. */
function oneLine(run: CliRun, code: number, stderr: string, what: string): void {
  assert.equal({ code: run.code, stdout: run.stdout, stderr: run.stderr }, { code, stdout: '', stderr: `${stderr}\n` }, what);
}

area.scenario('usage errors: one line with the command usage, exit 2', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  const cases: Array<[string[], string]> = [
    [['frobnicate'], "error: unknown command 'frobnicate'; run 'agentkit --help' for the list of commands"],
    [['inpsect', 'e1'], "error: unknown command 'inpsect' (did you mean 'inspect'?); run 'agentkit --help' for the list of commands"],
    [['traces'], "error: 'traces' needs a subcommand: traces list, traces export, traces prune"],
    [['version', '--frob'], 'error: unknown option --frob; usage: agentkit version [options]'],
    [['list-pending', '--limit', '0'], 'error: invalid value for --limit: expected to be at least 1 (got 0); usage: agentkit list-pending [options]'],
    [['list-pending', '--limit'], 'error: option --limit needs a value <n>; usage: agentkit list-pending [options]'],
    [['traces', 'list', '--last-hours', 'abc'], 'error: invalid value for --last-hours: expected a number (got "abc"); usage: agentkit traces list [options]'],
    [['inspect', 'e1', 'e2'], "error: unexpected argument 'e2'; usage: agentkit inspect <execution_id> [options]"],
    [['inspect'], 'error: missing argument <execution_id>; usage: agentkit inspect <execution_id> [options]'],
    [['setup-checkpointer', '--backend', 'mysql'], "error: unknown backend 'mysql': use sqlite or postgres; usage: agentkit setup-checkpointer [options]"],
  ];
  for (const [argv, stderr] of cases) oneLine(await t.bin(argv), 2, stderr, argv.join(' '));
  const bare = await t.bin([]);
  assert.is(bare.code, 2);
  assert.match(bare.stderr, /^Usage: agentkit <command> \[options\]$/m, 'bare agentkit prints the command list on stderr');
});

area.scenario('a missing required option is named as such', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  oneLine(
    await t.bin(['resume', 'exec-1']),
    2,
    'error: missing required option --runner <target>; usage: agentkit resume <execution_id> --runner <target> [options]',
    'resume',
  );
  oneLine(
    await t.bin(['export-trace']),
    2,
    'error: missing required option --trace-id <trace_id> (or give the trace id as the argument); usage: agentkit export-trace [trace_id] [options]',
    'export-trace',
  );
  oneLine(
    await t.bin(['prompts', 'diff', 'support', '--from', '1']),
    2,
    'error: missing required option --to <version>; usage: agentkit prompts diff <name> --from <version> --to <version> [options]',
    'prompts diff',
  );
  oneLine(
    await t.bin(['eval', 'run']),
    2,
    'error: missing required options --agent <target>, --dataset <file>; usage: agentkit eval run --agent <target> --dataset <file> [options]',
    'eval run',
  );
});

area.scenario('negative numbers reach the command: its own range check answers, not the parser', { backends: ['sqlite'], surfaces: ['cli'] }, async (t) => {
  oneLine(
    await t.bin(['traces', 'list', '--last-hours', '-1']),
    2,
    'error: --last-hours must be a positive number of hours, got -1; usage: agentkit traces list [options]',
    '--last-hours -1',
  );
  oneLine(
    await t.bin(['traces', 'list', '--last-hours', '-0.5']),
    2,
    'error: --last-hours must be a positive number of hours, got -0.5; usage: agentkit traces list [options]',
    '--last-hours -0.5',
  );
  // A negative step is a positional: it reaches the replay (which finds no such trace here) instead of "unknown option -1".
  const step = await t.bin(['replay', 'inspect', '0af7651916cd43dd8448eb211c80319c', '-1']);
  assert.is(step.code, 1, step.stderr);
  assert.match(step.stderr, /^error: trace id '0af7651916cd43dd8448eb211c80319c' not found in .*\n$/);
});

area.scenario(
  'store paths: a folder, a file that is not a database, a missing file for a read-only command',
  { backends: ['sqlite'], surfaces: ['cli'] },
  async (t) => {
    const folder = path.join(t.cwd, 'stores');
    await mkdir(folder, { recursive: true });
    const notDb = path.join(t.cwd, 'notes.txt');
    await writeFile(notDb, 'these are my notes, not a database\n'.repeat(20));
    const missing = path.join(t.cwd, 'typo.db');
    const isFolder = `error: store ${folder} is a folder; expected the agentkit SQLite store file (e.g. ${folder}/local.db)`;
    const notDatabase = `error: store ${notDb} is not a SQLite database; expected the agentkit SQLite store file (e.g. .agentkit/local.db)`;
    const notFound = `error: store not found: ${missing} does not exist (expected the agentkit SQLite store file, e.g. .agentkit/local.db)`;
    oneLine(await t.bin(['list-pending', '--db-path', 'stores']), 1, isFolder, 'list-pending folder');
    oneLine(await t.bin(['list-pending', '--db-path', 'notes.txt']), 1, notDatabase, 'list-pending not a database');
    oneLine(await t.bin(['list-pending', '--db-path', 'typo.db']), 1, notFound, 'list-pending missing (no silent "No pending interrupts.")');
    oneLine(await t.bin(['inspect', 'exec-1', '--db-path', 'typo.db']), 1, notFound, 'inspect missing');
    oneLine(await t.bin(['export-trace', '--trace-id', 'abc', '--db', 'stores']), 1, isFolder, 'export-trace folder');
    oneLine(await t.bin(['replay', 'show', 'abc', '--db', 'notes.txt']), 1, notDatabase, 'replay show not a database');
    oneLine(await t.bin(['prompts', 'list', '--db', 'typo.db']), 1, notFound, 'prompts list missing');
    oneLine(await t.bin(['traces', 'list'], { env: { AGENTKIT_LOCAL_DB: folder } }), 1, isFolder, 'AGENTKIT_LOCAL_DB naming a folder');
    oneLine(await t.bin(['traces', 'list'], { env: { AGENTKIT_LOCAL_DB: notDb } }), 1, notDatabase, 'AGENTKIT_LOCAL_DB naming a text file');
    // The default store may be missing: a fresh project has none yet.
    assert.equal(await t.bin(['traces', 'list'], { env: { AGENTKIT_LOCAL_DB: missing } }), { code: 0, stdout: 'No traces found.\n', stderr: '' });
  },
);

area.scenario('help: value names on every command, never #0; the command list fits 100 columns', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  for (const entry of commands) {
    const name = entry.paths[0]!.join(' ');
    const help = await t.cli([...entry.paths[0]!, '--help']);
    assert.is(help.code, 0, name);
    assert.not.match(help.stdout, /#\d/, `${name} --help shows #0`);
    assert.match(help.stdout, new RegExp(`^\\$ agentkit ${name}`, 'm'), name);
  }
  const pending = await t.bin(['list-pending', '--help']);
  assert.match(pending.stdout, /^ {2}--db,--db-path <path> {2,}Store: a SQLite file or a postgres:/m);
  assert.match(pending.stdout, /^ {2}--limit <n> {2,}At most/m);
  assert.match((await t.bin(['resume', '--help'])).stdout, /^\$ agentkit resume <execution_id> --runner <target> \[options\]$/m);
  const top = await t.bin(['--help']);
  assert.is(top.code, 0);
  for (const line of top.stdout.split('\n')) assert.ok(line.length <= 100, line);
});

area.scenario('docs/cli.md: the error examples print what the page shows', { backends: ['sqlite'], surfaces: ['cli'] }, async (t) => {
  const page = await readFile(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../docs/cli.md'), 'utf8');
  const block = page.slice(page.indexOf('## Errors')).match(/```(?:console|bash)\n([\s\S]*?)```/)![1]!;
  const lines = block.trimEnd().split('\n');
  let checked = 0;
  for (let i = 0; i < lines.length; i += 2) {
    const command = lines[i]!.replace(/^\$ npx agentkit /, '');
    // The last example needs a finished run (durability-cli.test.ts covers that message).
    if (command.includes('--runner')) continue;
    const run = await t.bin(command.split(' '));
    assert.is(run.stderr, `${lines[i + 1]!.replace('/home/me/project', t.cwd)}\n`, command);
    assert.ok(run.code === 1 || run.code === 2, command);
    checked++;
  }
  assert.is(checked, 3);
});

area.run();
