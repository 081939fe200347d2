/**
 * The thin dispatcher in front of clipanion: from the raw arguments and the manifest alone (no command module
 * loaded), decide what this invocation is: the top-level help, the version flag, a known command (load just its
 * module), a command group missing its subcommand, or an unknown command.
 */
import type { CommandEntry } from './commands/index.js';

export type Dispatch =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  /** The entries whose path the arguments start with (the longest such path wins). */
  | { readonly kind: 'command'; readonly entries: readonly CommandEntry[] }
  /** No path matches without loading every command (e.g. options before the command name): load them all. */
  | { readonly kind: 'all' }
  | { readonly kind: 'unknown'; readonly message: string };

const HELP = new Set(['-h', '--help', 'help']);

/** Decide what `argv` asks for. */
export function dispatch(argv: readonly string[], commands: readonly CommandEntry[]): Dispatch {
  const first = argv[0];
  if (first === undefined || (HELP.has(first) && argv.length === 1)) return { kind: 'help' };
  if (argv.length === 1 && first === '--version') return { kind: 'version' };
  if (first.startsWith('-')) return { kind: 'all' };
  const words: string[] = [];
  for (const token of argv) {
    if (token.startsWith('-')) break;
    words.push(token);
  }
  let best = 0;
  let entries: CommandEntry[] = [];
  for (const entry of commands) {
    for (const path of entry.paths) {
      if (path.length > words.length || path.length < best || !path.every((word, i) => words[i] === word)) continue;
      if (path.length > best) {
        best = path.length;
        entries = [];
      }
      if (!entries.includes(entry)) entries.push(entry);
    }
  }
  if (entries.length > 0) return { kind: 'command', entries };
  const group = commands.flatMap((entry) => entry.paths).filter((path) => path.length > 1 && path[0] === first);
  if (group.length > 0) {
    const sub = words[1];
    const list = group.map((path) => path.join(' ')).join(', ');
    return {
      kind: 'unknown',
      message: sub === undefined ? `'${first}' needs a subcommand: ${list}` : `unknown command '${first} ${sub}'; '${first}' has: ${list}`,
    };
  }
  const near = closest(
    first,
    commands.map((entry) => entry.paths[0]!.join(' ')),
  );
  return { kind: 'unknown', message: `unknown command '${first}'${near ? ` (did you mean '${near}'?)` : ''}; run 'agentkit --help' for the list of commands` };
}

/** The known command nearest to a mistyped word, when it is close enough to be a typo. */
function closest(word: string, names: readonly string[]): string | null {
  let found: string | null = null;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const name of names) {
    const head = name.split(' ')[0]!;
    const distance = editDistance(word, head);
    if (distance < bestDistance) {
      bestDistance = distance;
      found = name.includes(' ') ? head : name;
    }
  }
  return found;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The top-level help: every command by category with its one-line description, wrapped to fit 100 columns. */
export function topLevelHelp(commands: readonly CommandEntry[], version: string): string {
  const names = commands.map((entry) => entry.paths[0]!.join(' '));
  const width = Math.max(...names.map((name) => name.length)) + 2;
  const lines = [`agentkit ${version}: operate LLM agents in production`, '', 'Usage: agentkit <command> [options]'];
  const categories = [...new Set(commands.map((entry) => entry.category))];
  for (const category of categories) {
    lines.push('', `${category}:`);
    commands.forEach((entry, i) => {
      if (entry.category !== category) return;
      const wrapped = wrap(entry.description, 100 - 2 - width);
      lines.push(`  ${names[i]!.padEnd(width)}${wrapped[0]}`, ...wrapped.slice(1).map((line) => `  ${' '.repeat(width)}${line}`));
    });
  }
  lines.push('', "Run 'agentkit <command> --help' for a command's options and examples.");
  return `${lines.join('\n')}\n`;
}

/** Split text into lines of at most `width` characters at spaces. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}
