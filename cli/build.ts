/**
 * The clipanion side of the CLI, loaded by cli/main.ts only when a command runs: the Cli subclass that puts value
 * names in every usage text, and the helpers main needs once clipanion has refused or run an invocation.
 */
import { Cli, type CommandClass } from 'clipanion';
import { VERSION } from '../src/version.js';
import { commands, type CommandEntry } from './commands/index.js';
import type { AgentkitContext } from './context.js';
import { fillValueNames, oneLineUsage, type ValueNames } from './usage.js';

export { reportFailure } from './base.js';
export { bindNegativeNumbers, definitionFor, describeRefusal, usageErrorLine } from './usage-errors.js';

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

export function valueNamesOf(owner: unknown): ValueNames | undefined {
  return (owner as { valueNames?: ValueNames } | undefined)?.valueNames;
}

/** Build a CLI with the given commands registered (default: every command, each module loaded). */
export async function buildCli(entries: readonly CommandEntry[] = commands, colors = false): Promise<Cli<AgentkitContext>> {
  const cli = new AgentkitCli({ binaryLabel: 'agentkit', binaryName: 'agentkit', binaryVersion: VERSION, enableColors: colors });
  const classes: Array<CommandClass<AgentkitContext>> = await Promise.all(entries.map((entry) => entry.load()));
  for (const commandClass of new Set(classes)) cli.register(commandClass);
  return cli;
}

/** The command class behind a definition (already loaded: this only reads the cache of `import()`). */
export async function ownerOf(definition: { path: string }, entries: readonly CommandEntry[]): Promise<unknown> {
  const entry = entries.find((e) => `agentkit ${e.paths[0]!.join(' ')}` === definition.path);
  return entry ? entry.load() : undefined;
}
