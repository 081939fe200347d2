#!/usr/bin/env node
/**
 * The `agentkit` CLI. `runCli` is the whole program: a thin dispatcher (cli/dispatch.ts) reads the arguments against
 * the command manifest (cli/commands/index.ts) and loads only the module of the command being run; clipanion then
 * parses. `agentkit`, `--help`, `--version` and `version` load neither clipanion nor any SDK code. Usage errors are one line on
 * stderr (what was wrong, then the command's one-line usage) with exit 2. The conformance suite calls `runCli`
 * in-process with captured streams; the binary calls it with the real ones.
 */
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { nodeSupportProblem } from '../src/node-support.js';
import { VERSION } from '../src/version.js';
import { commands } from './commands/index.js';
import type { AgentkitContext } from './context.js';
import { dispatch, topLevelHelp } from './dispatch.js';
import { versionLine } from './version-line.js';

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
  // `agentkit help <command>` is `agentkit <command> --help`.
  if (argv[0] === 'help' && argv.length > 1) argv = [...argv.slice(1), '--help'];
  const route = dispatch(argv, commands);
  switch (route.kind) {
    case 'help':
      // Bare `agentkit` is a usage mistake (exit 2, on stderr); `agentkit --help` is a request (exit 0, on stdout).
      (argv.length === 0 ? full.stderr : full.stdout).write(topLevelHelp(commands, VERSION));
      return argv.length === 0 ? 2 : 0;
    case 'version':
      full.stdout.write(`${VERSION}\n`);
      return 0;
    case 'command':
      // `agentkit version` is what scripts and bug reports run most: answered without loading clipanion.
      if (argv.length === 1 && argv[0] === 'version') {
        full.stdout.write(`${versionLine()}\n`);
        return 0;
      }
      break;
    case 'unknown':
      full.stderr.write(`error: ${route.message}\n`);
      return 2;
  }
  // Colors only for a person at a terminal: never when piped, captured, or NO_COLOR is set.
  const tty = (full.stdout as { isTTY?: boolean }).isTTY === true;
  const colors = tty && full.env.NO_COLOR === undefined && full.env.FORCE_COLOR !== '0';
  const { buildCli, ownerOf, reportFailure, valueNamesOf, bindNegativeNumbers, definitionFor, describeRefusal, usageErrorLine } = await import('./build.js');
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

function isMain(): boolean {
  if (!process.argv[1]) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

const unsupported = isMain() ? nodeSupportProblem() : null;
if (unsupported) {
  process.stderr.write(`error: ${unsupported}\n`);
  process.exitCode = 1;
} else if (isMain()) {
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
