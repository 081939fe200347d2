#!/usr/bin/env node
/**
 * The `agentkit` CLI. `runCli` is the whole program: it parses with clipanion, prints usage errors on stderr with
 * exit 2, and returns the command's exit code. The conformance suite calls it in-process with captured streams; the
 * binary calls it with the real ones.
 */
import { Builtins, Cli } from 'clipanion';
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { VERSION } from '../src/version.js';
import { reportFailure } from './base.js';
import { commands } from './commands/index.js';
import type { AgentkitContext } from './context.js';

/** Build the CLI with every command registered. */
export function buildCli(colors = false): Cli<AgentkitContext> {
  const cli = new Cli<AgentkitContext>({
    binaryLabel: 'agentkit',
    binaryName: 'agentkit',
    binaryVersion: VERSION,
    enableColors: colors,
  });
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  for (const command of commands) cli.register(command);
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
  // Colors only for a person at a terminal: never when piped, captured, or NO_COLOR is set.
  const tty = (full.stdout as { isTTY?: boolean }).isTTY === true;
  const cli = buildCli(tty && full.env.NO_COLOR === undefined && full.env.FORCE_COLOR !== '0');
  if (argv.length === 0) {
    full.stderr.write(cli.usage(null));
    return 2;
  }
  let command;
  try {
    command = cli.process(argv, full);
  } catch (error) {
    // Unknown command, unknown option, missing argument, failed option validation: all usage errors.
    full.stderr.write(cli.error(error instanceof Error ? error : new Error(String(error)), { command: null }));
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
