/**
 * Lists that say when they are cut (issue 49, docs/adr/0060): a list command reads one row more than its `--limit`,
 * shows `limit` rows, and says `showing N, more available` on stderr (text) or as `more_available` (JSON objects).
 * Nothing counts the whole table.
 */
import { UsageError } from 'clipanion';

/** The rows to show and whether more were there: `rows` was read with a limit of `limit + 1`. */
export function cutList<T>(rows: readonly T[], limit: number | undefined): { items: T[]; more: boolean } {
  if (limit === undefined || rows.length <= limit) return { items: [...rows], more: false };
  return { items: rows.slice(0, limit), more: true };
}

/** The line a cut list ends with, on stderr: how many rows were shown and that there are more. */
export function cutNotice(shown: number, flag = '--limit'): string {
  return `showing ${shown}, more available (raise ${flag} to see more)`;
}

/** `--limit` given as text (commands that parse it themselves): a whole number of at least 1, or undefined. */
export function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value)) throw new UsageError(`invalid value for --limit: expected a whole number (got ${JSON.stringify(text)})`);
  if (value < 1) throw new UsageError(`invalid value for --limit: expected to be at least 1 (got ${value})`);
  return value;
}
