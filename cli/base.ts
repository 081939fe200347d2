/**
 * The project base command: `execute` runs the command's `run` and turns every failure into the spec's exit codes
 * with one line on stderr, so no command prints a stack trace or exits 1 for a usage mistake. Every failure line
 * starts with `error: `; a usage error ends with the command's one-line usage.
 */
import { Command, UsageError, type CommandClass } from 'clipanion';
import { maskCredentials } from '../src/config/redact.js';
import { AgentkitError, errorTable, type ErrorCode } from '../src/errors.js';
import type { AgentkitContext } from './context.js';
import { cliErrorText } from './error-text.js';
import { usageErrorLine } from './usage-errors.js';
import type { ValueNames } from './usage.js';

export abstract class AgentkitCommand extends Command<AgentkitContext> {
  /** The command's work; return an exit code or nothing for 0. */
  // biome-ignore lint/suspicious/noConfusingVoidType: clipanion types `execute()` so; a command that only prints returns nothing
  abstract run(): Promise<number | void>;

  async execute(): Promise<number> {
    try {
      return (await this.run()) ?? 0;
    } catch (error) {
      return reportFailure(error, this.context, this.usageLineSource());
    }
  }

  /** This command's definition (for the usage a usage error ends with) and its value-name overrides. */
  private usageLineSource(): UsageSource | undefined {
    const own = this.constructor as CommandClass<AgentkitContext> & { valueNames?: ValueNames };
    const path = ['agentkit', ...(own.paths?.[0] ?? [])].join(' ');
    const definition = this.cli?.definitions().find((d) => d.path === path);
    return definition ? { definition, valueNames: own.valueNames } : undefined;
  }

  /** Write a line to stdout. */
  protected out(line = ''): void {
    this.context.stdout.write(`${line}\n`);
  }

  /** Write a line to stderr. */
  protected err(line: string): void {
    this.context.stderr.write(`${maskCredentials(line)}\n`);
  }
}

/** Where the one-line usage of a usage error comes from. */
export interface UsageSource {
  readonly definition: import('clipanion').Definition;
  readonly valueNames?: ValueNames;
}

/**
 * Print a failure on stderr and return its exit code: 2 for usage errors (with the command's one-line usage when
 * known), the error table's code for ours, else 1.
 */
export function reportFailure(error: unknown, context: Pick<AgentkitContext, 'stderr'>, usage?: UsageSource): number {
  const stderr = { write: (text: string) => context.stderr.write(maskCredentials(text)) };
  return reportUnmasked(error, { stderr }, usage);
}

function reportUnmasked(error: unknown, context: { stderr: { write(text: string): unknown } }, usage?: UsageSource): number {
  if (error instanceof UsageError) {
    context.stderr.write(`error: ${usageErrorLine(error.message, usage?.definition, usage?.valueNames)}\n`);
    return 2;
  }
  if (error instanceof AgentkitError) {
    context.stderr.write(`error: ${cliErrorText(error.code, error.message)}\n`);
    return error.exitCode;
  }
  // An agentkit error from another copy of the package (a runner module with its own install) is not an instance of
  // ours, but its code still says how to exit.
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string' && Object.hasOwn(errorTable, code)) {
    context.stderr.write(`error: ${cliErrorText(code, error.message)}\n`);
    return errorTable[code as ErrorCode].exit;
  }
  const message = error instanceof Error ? error.message : String(error);
  context.stderr.write(`error: ${message}\n`);
  return 1;
}
