#!/usr/bin/env node
/**
 * The `agentkit` CLI. `runCli` is the whole program: a thin dispatcher (cli/dispatch.ts) reads the arguments against
 * the command manifest (cli/commands/index.ts) and loads only the module of the command being run; clipanion then
 * parses. `agentkit`, `--help` and `--version` load no command module and no SDK code. Usage errors are one line on
 * stderr (what was wrong, then the command's one-line usage) with exit 2. The conformance suite calls `runCli`
 * in-process with captured streams; the binary calls it with the real ones.
 */
import { Cli, type CommandClass } from 'clipanion';
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { VERSION } from '../src/version.js';
import { reportFailure } from './base.js';
import { commands, type CommandEntry } from './commands/index.js';
import type { AgentkitContext } from './context.js';
import { dispatch, topLevelHelp } from './dispatch.js';
import { bindNegativeNumbers, definitionFor, describeRefusal, usageErrorLine } from './usage-errors.js';
import { fillValueNames, oneLineUsage, type ValueNames } from './usage.js';

/** clipanion's Cli with value names (`--db-path <path>`) in every usage and help text it renders. */
class AgentkitCli extends Cli<AgentkitContext> {
  override usage(command?: Parameters<Cli<AgentkitContext>['usage']>[0], options?: Parameters<Cli<AgentkitContext>['usage']>[1]): string {
    const owner = command === null || command === undefined ? undefined : typeof command === 'function' ? command : command.constructor;
    const names = valueNamesOf(owner);
    let text = super.usage(command, options);
    // The detailed help's `$ agentkit <path>` line lists no required option: show the one-line usage instead.
    const paths = (owner as { paths?: string[][] } | undefined)?.paths;
    const definition = paths && this.definitions().find((d) => d.path === ['agentkit', ...paths[0]!].join(' '));
    if (definition && options?.detailed) text = text.replace(/^\$ agentkit .*$/m, `$ ${oneLineUsage(definition, names)}`);
    return fillValueNames(text, names);
  }
}

function valueNamesOf(owner: unknown): ValueNames | undefined {
  return (owner as { valueNames?: ValueNames } | undefined)?.valueNames;
}

/** Build a CLI with the given commands registered (default: every command, each module loaded). */
export async function buildCli(entries: readonly CommandEntry[] = commands, colors = false): Promise<Cli<AgentkitContext>> {
  const cli = new AgentkitCli({ binaryLabel: 'agentkit', binaryName: 'agentkit', binaryVersion: VERSION, enableColors: colors });
  const classes: Array<CommandClass<AgentkitContext>> = await Promise.all(entries.map((entry) => entry.load()));
  for (const commandClass of new Set(classes)) cli.register(commandClass);
  return cli;
}

/** Run one invocation; returns the exit code instead of exiting. */
export async function runCli(argv: string[], context: Partial<AgentkitContext> = {}): Promise<number> {
  const full: AgentkitContext = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    colorDepth: 1,
    cwd: process.cwd(),
    ...context,
  };
  const route = dispatch(argv, commands);
  switch (route.kind) {
    case 'help':
      // Bare `agentkit` is a usage mistake (exit 2, on stderr); `agentkit --help` is a request (exit 0, on stdout).
      (argv.length === 0 ? full.stderr : full.stdout).write(topLevelHelp(commands, VERSION));
      return argv.length === 0 ? 2 : 0;
    case 'version':
      full.stdout.write(`${VERSION}\n`);
      return 0;
    case 'unknown':
      full.stderr.write(`error: ${route.message}\n`);
      return 2;
  }
  // Colors only for a person at a terminal: never when piped, captured, or NO_COLOR is set.
  const tty = (full.stdout as { isTTY?: boolean }).isTTY === true;
  const colors = tty && full.env.NO_COLOR === undefined && full.env.FORCE_COLOR !== '0';
  const cli = await buildCli(route.kind === 'all' ? commands : route.entries, colors);
  const definitions = cli.definitions();
  const definition = definitionFor(argv, definitions);
  const args = bindNegativeNumbers(argv, definition);
  let command;
  try {
    command = cli.process(args, full);
  } catch (error) {
    // Unknown option, missing option or argument, failed option validation: all usage errors, one line, exit 2.
    const owner = definition && (await ownerOf(definition, route.kind === 'all' ? commands : route.entries));
    const names = valueNamesOf(owner);
    full.stderr.write(`error: ${usageErrorLine(describeRefusal(error, args, definition, names), definition, names)}\n`);
    return 2;
  }
  try {
    return await cli.run(command, full);
  } catch (error) {
    return reportFailure(error, full);
  }
}

/** The command class behind a definition (already loaded: this only reads the cache of `import()`). */
async function ownerOf(definition: { path: string }, entries: readonly CommandEntry[]): Promise<unknown> {
  const entry = entries.find((e) => `agentkit ${e.paths[0]!.join(' ')}` === definition.path);
  return entry ? entry.load() : undefined;
}

function isMain(): boolean {
  if (!process.argv[1]) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      // A command is done when runCli resolves; a runner's pool or timer must not keep the process alive. Exit once
      // both streams have flushed what was written.
      process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
    },
    (error: unknown) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
