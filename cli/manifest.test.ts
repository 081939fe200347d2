import * as assert from 'uvu/assert';
import type { Definition } from 'clipanion';
import { suite } from '../test-support/uvu.js';
import { commands } from './commands/index.js';
import { dispatch } from './dispatch.js';
import { bindNegativeNumbers, describeRefusal } from './usage-errors.js';
import { fillValueNames, oneLineUsage } from './usage.js';

const test = suite('cli manifest and dispatcher');

test('every manifest entry loads a class with the same paths, description and category', async () => {
  const seen = new Set<string>();
  for (const entry of commands) {
    const commandClass = await entry.load();
    const name = entry.paths[0]!.join(' ');
    assert.ok(!seen.has(name), `${name} listed twice`);
    seen.add(name);
    assert.equal(commandClass.paths, entry.paths, `${name}: paths`);
    const usage = commandClass.usage as { description?: string; category?: string } | undefined;
    assert.is(usage?.description, entry.description, `${name}: description`);
    if (usage?.category !== undefined) assert.is(usage.category, entry.category, `${name}: category`);
  }
});

test('the dispatcher picks the longest matching path and names unknown commands and bare groups', () => {
  const pick = (argv: string[]) => {
    const route = dispatch(argv, commands);
    return route.kind === 'command' ? route.entries.map((e) => e.paths[0]!.join(' ')) : route;
  };
  assert.equal(pick(['ui', 'reset-password', '--username', 'a']), ['ui reset-password']);
  assert.equal(pick(['ui', '--port', '0']), ['ui']);
  assert.equal(pick(['ui', 'start']), ['ui']);
  assert.equal(pick(['inspect', 'exec-1', '--json']), ['inspect']);
  assert.equal(pick(['traces', 'list']), ['traces list']);
  assert.equal(pick([]), { kind: 'help' });
  assert.equal(pick(['--help']), { kind: 'help' });
  assert.equal(pick(['--version']), { kind: 'version' });
  assert.equal(pick(['--json', 'list-pending']), { kind: 'all' });
  assert.equal(pick(['traces']), { kind: 'unknown', message: "'traces' needs a subcommand: traces list, traces export, traces prune" });
  assert.equal(pick(['inspct']), {
    kind: 'unknown',
    message: "unknown command 'inspct' (did you mean 'inspect'?); run 'agentkit --help' for the list of commands",
  });
});

const resume: Definition = {
  path: 'agentkit resume',
  usage: 'agentkit resume <--runner #0> [--value #0] [--json] <execution_id>',
  options: [
    { definition: '--runner #0', description: '', required: true },
    { definition: '--value #0', description: '', required: false },
    { definition: '--json', description: '', required: false },
  ],
};

test('usage texts carry value names, never #0', () => {
  assert.is(oneLineUsage(resume), 'agentkit resume <execution_id> --runner <target> [options]');
  assert.is(
    fillValueNames('$ agentkit x [--db-path #0] [-o,--output #0] <--schema #0>'),
    '$ agentkit x [--db-path <path>] [-o,--output <file>] --schema <name>',
  );
  assert.is(fillValueNames('[--db-path #0]', { '--db-path': 'file.db' }), '[--db-path <file.db>]');
});

test('refusals are named: missing required option, missing argument, unknown option, unexpected argument', () => {
  const refusal = (reason: string | null) => Object.assign(new Error('Command not found'), { candidates: [{ usage: resume.usage, reason }] });
  assert.is(describeRefusal(refusal(null), ['resume', 'e1'], resume), 'missing required option --runner <target>');
  assert.is(describeRefusal(refusal('Not enough positional arguments.'), ['resume', '--runner', 'a.ts:x'], resume), 'missing argument <execution_id>');
  assert.is(describeRefusal(refusal('Unsupported option name ("--frob").'), ['resume', 'e', '--runner', 'x:y', '--frob'], resume), 'unknown option --frob');
  assert.is(describeRefusal(refusal('Extraneous positional argument ("b").'), ['resume', 'a', 'b', '--runner=x:y'], resume), "unexpected argument 'b'");
  assert.is(describeRefusal(refusal(null), ['-v'], undefined), "unknown command or option '-v'; run 'agentkit --help' for the list of commands");
  assert.is(
    describeRefusal(new Error('Invalid value for --limit: expected to be at least 1 (got 0)\nmore'), ['resume', 'a', '--runner', 'x:y'], resume),
    'invalid value for --limit: expected to be at least 1 (got 0)',
  );
});

test('negative numbers bind to the option before them, or move behind -- as positionals', () => {
  const list: Definition = {
    path: 'agentkit traces list',
    usage: 'agentkit traces list [--last-hours #0] [--json]',
    options: [
      { definition: '--last-hours #0', description: '', required: false },
      { definition: '--json', description: '', required: false },
    ],
  };
  assert.equal(bindNegativeNumbers(['traces', 'list', '--last-hours', '-1', '--json'], list), ['traces', 'list', '--last-hours=-1', '--json']);
  assert.equal(bindNegativeNumbers(['traces', 'list', '--last-hours', '-0.5'], list), ['traces', 'list', '--last-hours=-0.5']);
  const inspect: Definition = {
    path: 'agentkit replay inspect',
    usage: 'agentkit replay inspect [--db #0] <trace_id> <step>',
    options: [{ definition: '--db #0', description: '', required: false }],
  };
  assert.equal(bindNegativeNumbers(['replay', 'inspect', 't1', '-1', '--db', 'x.db'], inspect), ['replay', 'inspect', '--db', 'x.db', '--', 't1', '-1']);
  assert.equal(bindNegativeNumbers(['replay', 'inspect', 't1', '2'], inspect), ['replay', 'inspect', 't1', '2']);
});

test.run();
