/**
 * One CLI grammar (issue 49): a table-driven pass over every command of the manifest. `--json` is a switch everywhere
 * but `eval run` (the spec gives it a path there); every failure line starts with `error:`; `--help` names the store
 * flag of every command that reads a store, and the id forms of every command that reads a trace or execution id;
 * every list command takes `--limit`.
 */
import * as assert from 'uvu/assert';
import { Cli } from 'clipanion';
import { commands } from '../../cli/commands/index.js';
import { conformance } from '../harness/index.js';

const area = conformance('CLI: one grammar');

/** Commands with no store to name, and what names their data instead. */
const NO_STORE: Readonly<Record<string, string>> = {
  'agentkit version': 'prints the version only',
  'agentkit store copy': 'names both stores with --from and --to',
  'agentkit agent serve': "the served agent's own store (its checkpointer and traceDb)",
  'agentkit kb list': 'knowledge bases live in folders: --path',
  'agentkit kb status': 'knowledge bases live in folders: --path',
  'agentkit kb add': 'knowledge bases live in folders: --path',
  'agentkit kb delete': 'knowledge bases live in folders: --path',
  'agentkit kb clear': 'knowledge bases live in folders: --path',
  'agentkit kb search': 'knowledge bases live in folders: --path',
  'agentkit ui reset-password': 'the UI auth file: --auth-file',
  'agentkit ui users add': 'the UI auth file: --auth-file',
  'agentkit ui users list': 'the UI auth file: --auth-file',
  'agentkit ui users remove': 'the UI auth file: --auth-file',
  'agentkit ui users set-role': 'the UI auth file: --auth-file',
  'agentkit ui users sign-out': 'the UI auth file: --auth-file',
  'agentkit connect': 'the credentials file',
  'agentkit disconnect': 'the credentials file',
  'agentkit auth status': 'the credentials file',
  'agentkit auth env': 'the credentials file',
};

/** Commands reading a trace id or an execution id (cli/ids.ts). */
const TAKES_IDS = new Set([
  'agentkit inspect',
  'agentkit resume',
  'agentkit traces export',
  'agentkit export-trace',
  'agentkit replay show',
  'agentkit replay inspect',
  'agentkit replay fork',
]);

const cli = new Cli({ binaryName: 'agentkit' });
for (const entry of commands) cli.register(await entry.load());
const definitions = cli.definitions();

area.scenario(
  'every command: --json is a switch (eval run: a path), --help names the store flag and the id forms',
  { backends: 'none', surfaces: ['cli'] },
  async (t) => {
    assert.ok(definitions.length >= 40, `${definitions.length} commands`);
    for (const definition of definitions) {
      const name = definition.path;
      const json = definition.options.find((o) => o.definition.split(/[ ,]/).includes('--json'));
      if (name === 'agentkit eval run') assert.is(json?.definition, '--json #0', 'eval run --json <path> (the spec)');
      else if (json) assert.is(json.definition, '--json', `${name}: --json takes no value`);

      const args = name.split(' ').slice(1);
      const help = await t.cli([...args, '--help']);
      assert.is(help.code, 0, `${name} --help: ${help.stderr}`);
      const text = help.stdout.replace(/\s+/g, ' ');
      if (!(name in NO_STORE)) assert.match(text, /--db[ ,=<]/, `${name} --help names --db`);
      if (name.endsWith(' list'))
        assert.ok(
          definition.options.some((o) => o.definition === '--limit #0'),
          `${name} takes --limit`,
        );
      if (TAKES_IDS.has(name)) assert.match(text, 'a unique prefix or suffix of at least 8 characters', `${name} --help names the id forms`);
    }
  },
);

area.scenario('every command: a failure is one line starting with error:', { backends: 'none', surfaces: ['cli'] }, async (t) => {
  for (const definition of definitions) {
    const args = definition.path.split(' ').slice(1);
    const failed = await t.cli([...args, '--no-such-flag']);
    assert.is(failed.code, 2, `${definition.path}: ${failed.stderr}`);
    assert.is(failed.stdout, '', definition.path);
    assert.ok(
      failed.stderr.startsWith('error: ') && failed.stderr.endsWith('\n') && failed.stderr.split('\n').length === 2,
      `${definition.path}: ${failed.stderr}`,
    );
  }
  // Failures a command raises itself, one per family: unknown ids, a store that is not there, not connected.
  for (const argv of [
    ['inspect', 'no-such-execution-id'],
    ['traces', 'export', 'no-such-trace-id'],
    ['replay', 'show', '0123456789abcdef'],
    ['list-pending', '--db', 'missing/store.db'],
    ['traces', 'list', '--limit', 'many'],
    ['auth', 'status'],
    ['auth', 'env'],
  ]) {
    const failed = await t.cli(argv, { env: { HOME: t.cwd, AGENTKIT_API_KEY: '' } });
    assert.ok(failed.code !== 0, argv.join(' '));
    const lines = failed.stderr.trimEnd().split('\n');
    assert.ok(lines.length === 1 && lines[0]!.startsWith('error: '), `${argv.join(' ')}: ${failed.stderr}`);
  }
});

area.run();
