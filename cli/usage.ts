/**
 * How the CLI describes a command's shape: value names for options (`--db-path <path>`, never clipanion's `#0`), the
 * one-line usage a usage error ends with, and the command's `--help` text with the value names filled in. Pure text
 * functions over clipanion's definitions, so they cost nothing at start-up.
 */
import type { Definition } from 'clipanion';

/**
 * The value name shown after an option that takes a value. An option not listed here shows its own name
 * (`--schema <schema>`); a command can override any of these with a static `valueNames` record.
 */
export const VALUE_NAMES: Readonly<Record<string, string>> = {
  '--db-path': 'path',
  '--db': 'path',
  '--trace-db': 'path',
  '--checkpoint-db': 'path',
  '--auth-file': 'path',
  '--output': 'file',
  '--out': 'file',
  '--file': 'file',
  '--dataset': 'file',
  '--save-test': 'file',
  '--json': 'path',
  '--prompt-dir': 'dir',
  '--path': 'dir',
  '--runner': 'target',
  '--agent': 'target',
  '--connection-string': 'url',
  '--judge-base-url': 'url',
  '--target': 'url',
  '--project': 'name',
  '--limit': 'n',
  '--timeout': 'seconds',
  '--top-k': 'n',
  '--concurrency': 'n',
  '--step': 'n',
  '--since': 'n',
  '--last-hours': 'hours',
  '--max-body-bytes': 'bytes',
  '--max-error-rate': 'rate',
  '--tolerance': 'number',
  '--judge-threshold': 'number',
  '--value': 'json',
  '--scorers': 'list',
  '--fail-under': 'rule',
  '--trace-id': 'trace_id',
  '--variable': 'name=value',
  '--var': 'name=value',
  '--from': 'version',
  '--to': 'version',
  '--prompt': 'text',
  '--input': 'text',
  '--auth-token': 'token',
  '--api-key': 'key',
  '--judge-model': 'model',
  '--judge-criteria': 'text',
  '--judge-rubric': 'text',
  '--judge-scale': 'scale',
  '--run-name': 'name',
  '--schema': 'name',
  '--pattern': 'regex',
};

export type ValueNames = Readonly<Record<string, string>>;

/** The value name of `--flag` (without brackets). */
export function valueName(flag: string, overrides: ValueNames = {}): string {
  return overrides[flag] ?? VALUE_NAMES[flag] ?? flag.replace(/^-+/, '');
}

/** `-o,--output #0` -> the long name `--output` (the first `--` name, else the first name). */
function longName(names: string): string {
  const all = names.split(',');
  return all.find((name) => name.startsWith('--')) ?? all[0]!;
}

/**
 * Replace clipanion's `#0` placeholders in any usage or help text with value names, then realign the option list
 * (its padding was computed for `#0`) and wrap its descriptions to 100 columns.
 */
export function fillValueNames(text: string, overrides: ValueNames = {}): string {
  const filled = text
    .replace(/<((?:-{1,2}[\w-]+,?)+) #0>/g, (_m, names: string) => `${names} <${valueName(longName(names), overrides)}>`)
    .replace(/((?:-{1,2}[\w-]+,?)+) #0/g, (_m, names: string) => `${names} <${valueName(longName(names), overrides)}>`);
  return alignOptions(filled);
}

const OPTION_LINE = /^ {2}(-\S*(?: <[^>]+>)?) {2,}(\S.*)$/;

function alignOptions(text: string): string {
  const lines = text.split('\n');
  const width = Math.max(0, ...lines.map((line) => line.match(OPTION_LINE)?.[1]?.length ?? 0));
  if (width === 0) return text;
  const indent = 2 + width + 2;
  return lines
    .flatMap((line) => {
      const match = line.match(OPTION_LINE);
      if (!match) return [line];
      const described = wrapWords(match[2]!, Math.max(40, 100 - indent));
      return [`  ${match[1]!.padEnd(width + 2)}${described[0]}`, ...described.slice(1).map((rest) => `${' '.repeat(indent)}${rest}`)];
    })
    .join('\n');
}

function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}

/** An option of a command, read from its clipanion definition. */
export interface OptionShape {
  /** Every name (`--output`, `-o`). */
  readonly names: readonly string[];
  /** The preferred (long) name. */
  readonly name: string;
  /** Whether it takes a value. */
  readonly takesValue: boolean;
  readonly required: boolean;
}

/** The options of a command definition. */
export function optionsOf(definition: Definition): OptionShape[] {
  return definition.options.map((option) => {
    const [names = ''] = option.definition.split(' ');
    return {
      names: names.split(','),
      name: longName(names),
      takesValue: option.definition.includes(' #0'),
      required: option.required,
    };
  });
}

/** The positional argument names of a definition (`<execution_id>`, `[name]`), in order, with whether each is required. */
export function positionalsOf(definition: Definition): Array<{ name: string; required: boolean }> {
  const rest = definition.usage.slice(definition.path.length).trim();
  const found: Array<{ name: string; required: boolean }> = [];
  // Options are `[--x #0]` or `<--x #0>`; positionals are `<name>`, `[name]` or `...`.
  for (const match of rest.matchAll(/<([^<>-][^<>]*)>|\[([^[\]-][^[\]]*)\]/g)) {
    if (match[1] !== undefined) found.push({ name: match[1], required: true });
    else if (match[2] !== undefined) found.push({ name: match[2], required: false });
  }
  return found;
}

/**
 * The command's one-line usage: its path, its required options with value names, its positionals and `[options]`
 * when it has optional ones, e.g. `agentkit resume <execution_id> --runner <target> [options]`.
 */
export function oneLineUsage(definition: Definition, overrides: ValueNames = {}): string {
  const options = optionsOf(definition);
  const required = options.filter((o) => o.required).map((o) => (o.takesValue ? `${o.name} <${valueName(o.name, overrides)}>` : o.name));
  const positionals = positionalsOf(definition).map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`));
  const optional = options.some((o) => !o.required) ? ['[options]'] : [];
  return [definition.path, ...positionals, ...required, ...optional].join(' ');
}
