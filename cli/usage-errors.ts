/**
 * Usage errors as one line: what was wrong, then the command's one-line usage. clipanion reports a missing required
 * option as "Command not found", a negative number as an option name, and prints the whole usage; these functions
 * read its definitions instead and say what the user has to change.
 */
import type { Definition } from 'clipanion';
import { oneLineUsage, optionsOf, positionalsOf, valueName, type ValueNames } from './usage.js';

const NEGATIVE_NUMBER = /^-(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** The tokens of an invocation after the command path, split into option tokens (with their values) and positionals. */
interface Split {
  readonly path: string[];
  readonly options: string[];
  readonly positionals: string[];
  /** Whether the arguments already hold a `--`. */
  readonly separator: boolean;
}

function split(argv: readonly string[], definition: Definition): Split {
  const pathLength = definition.path.split(' ').length - 1;
  const takesValue = new Set(
    optionsOf(definition)
      .filter((o) => o.takesValue)
      .flatMap((o) => o.names),
  );
  const path = argv.slice(0, pathLength);
  const options: string[] = [];
  const positionals: string[] = [];
  let separator = false;
  for (let i = pathLength; i < argv.length; i++) {
    const token = argv[i]!;
    if (separator) positionals.push(token);
    else if (token === '--') separator = true;
    else if (token.startsWith('-') && !NEGATIVE_NUMBER.test(token)) {
      options.push(token);
      if (takesValue.has(token) && i + 1 < argv.length) options.push(argv[++i]!);
    } else positionals.push(token);
  }
  return { path, options, positionals, separator };
}

/**
 * Let negative numbers through clipanion, which reads `-1` as an option name: `--last-hours -1` becomes
 * `--last-hours=-1`, and a negative positional (`replay inspect <trace> -1`) moves after a `--`. The command then
 * validates the value and says what range it accepts.
 */
export function bindNegativeNumbers(argv: readonly string[], definition: Definition | undefined): string[] {
  if (!definition || !argv.some((token) => NEGATIVE_NUMBER.test(token))) return [...argv];
  const parts = split(argv, definition);
  const options: string[] = [];
  for (let i = 0; i < parts.options.length; i++) {
    const token = parts.options[i]!;
    const next = parts.options[i + 1];
    const valued = optionsOf(definition).some((o) => o.takesValue && o.names.includes(token));
    if (valued && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      options.push(`${token}=${next}`);
      i++;
    } else options.push(token);
  }
  const negativePositional = parts.positionals.some((token) => NEGATIVE_NUMBER.test(token));
  if (negativePositional && !parts.separator) return [...parts.path, ...options, '--', ...parts.positionals];
  return [...parts.path, ...options, ...(parts.separator ? ['--'] : []), ...parts.positionals];
}

/** The definition an invocation was meant for: the one whose path the arguments start with, longest first. */
export function definitionFor(argv: readonly string[], definitions: readonly Definition[]): Definition | undefined {
  const matching = definitions.filter((d) => {
    const words = d.path.split(' ').slice(1);
    return words.every((word, i) => argv[i] === word);
  });
  return matching.sort((a, b) => b.path.length - a.path.length)[0];
}

/** What was wrong with an invocation clipanion refused (without the usage; see usageErrorLine). */
export function describeRefusal(error: unknown, argv: readonly string[], definition: Definition | undefined, overrides: ValueNames = {}): string {
  if (!definition) {
    const first = argv.find((token) => token !== '--');
    return first === undefined ? firstLine(error) : `unknown command or option '${first}'; run 'agentkit --help' for the list of commands`;
  }
  const given = new Set(argv.map((token) => token.split('=')[0]!));
  const missing = optionsOf(definition).filter((o) => o.required && !o.names.some((name) => given.has(name)));
  if (missing.length > 0) {
    return `missing required option${missing.length > 1 ? 's' : ''} ${missing.map((o) => `${o.name}${o.takesValue ? ` <${valueName(o.name, overrides)}>` : ''}`).join(', ')}`;
  }
  const reason = reasonOf(error);
  let match: RegExpMatchArray | null;
  if ((match = reason.match(/^(?:Unsupported|Invalid) option name \("(.*)"\)/))) return `unknown option ${match[1]}`;
  if ((match = reason.match(/^Extraneous positional argument \("(.*)"\)/))) return `unexpected argument '${match[1]}'`;
  if ((match = reason.match(/^Not enough arguments to option (\S+?)\.?$/))) return `option ${match[1]} needs a value <${valueName(match[1]!, overrides)}>`;
  if (/^Not enough positional arguments/.test(reason)) {
    const count = split(argv, definition).positionals.length;
    const wanted = positionalsOf(definition)
      .filter((p) => p.required)
      .slice(count);
    if (wanted.length > 0) return `missing argument${wanted.length > 1 ? 's' : ''} ${wanted.map((p) => `<${p.name}>`).join(' ')}`;
  }
  return reason ? lowerFirst(reason.replace(/\.$/, '')) : 'the arguments do not match the command';
}

/** One line: `<what was wrong>; usage: <one-line usage>`. */
export function usageErrorLine(what: string, definition: Definition | undefined, overrides: ValueNames = {}): string {
  return definition ? `${what}; usage: ${oneLineUsage(definition, overrides)}` : what;
}

/** The reason clipanion gives for its best candidate (validator failures are plain UsageErrors). */
function reasonOf(error: unknown): string {
  const candidates = (error as { candidates?: Array<{ reason: string | null }> } | null)?.candidates;
  if (Array.isArray(candidates)) {
    const reason = candidates.find((candidate) => candidate.reason)?.reason;
    return reason ? reason.split('\n')[0]!.trim() : '';
  }
  return firstLine(error);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return lowerFirst((text.split('\n').find((line) => line.trim() !== '') ?? text).trim().replace(/\.$/, ''));
}

function lowerFirst(text: string): string {
  // "Invalid value for --limit" -> "invalid value for --limit"; leave names and acronyms ("URL ...") alone.
  return /^[A-Z][a-z]/.test(text) ? `${text[0]!.toLowerCase()}${text.slice(1)}` : text;
}
