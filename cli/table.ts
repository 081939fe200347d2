/**
 * A plain-text table: columns padded to their widest cell, two spaces apart, numeric columns right-aligned, fitted to
 * a width. Commands pass `outputWidth(stdout)`: the terminal's columns on a terminal, no limit when piped (piped
 * output is never cut: scripts and `grep` see every character). Called without a width, a table fits 100 columns.
 *
 * When the table is too wide, id columns are cut first (to 12 characters: the tail of a time-ordered trace id, whose
 * head is a clock every run of a minute shares, else the head), then the widest other text column, each cut cell
 * marked `…`; `wrap` columns (long text a person must read whole: a reason) wrap within their column, and shrink only
 * after every other column has; `whole` columns (the row's handle, its time) are never cut.
 */

export const TABLE_WIDTH = 100;
const ID_WIDTH = 12;
const MIN_WIDTH = 5;
const TIME_ORDERED_TRACE_ID = /^[0-9a-f]{32}$/;

export interface TableOptions {
  /** Indexes of right-aligned (numeric) columns; they are never cut. */
  readonly right?: readonly number[];
  /** Indexes of id columns, cut first (to 12 characters) when the table is too wide. */
  readonly ids?: readonly number[];
  /** Indexes of columns never cut (the row's handle: what a person copies into the next command; a time). */
  readonly whole?: readonly number[];
  /** Indexes of columns whose text wraps within the column instead of being cut (shrunk after the others). */
  readonly wrap?: readonly number[];
  /** Widest line allowed (default 100; `Infinity`: never cut). */
  readonly width?: number;
}

/** The width tables printed on `stream` fit: its columns when it is a terminal, else no limit (piped: never cut). */
export function outputWidth(stream: unknown): number {
  const tty = stream as { isTTY?: boolean; columns?: number } | null;
  return tty?.isTTY && typeof tty.columns === 'number' && tty.columns > 0 ? tty.columns : Number.POSITIVE_INFINITY;
}

/** Format `header` and `rows` as lines no wider than the width (second form: the indexes of right-aligned columns). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, options: TableOptions | readonly number[] = {}): string[] {
  const {
    right = [],
    ids = [],
    whole = [],
    wrap = [],
    width = TABLE_WIDTH,
  } = Array.isArray(options) ? { right: options as readonly number[] } : (options as TableOptions);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  // A column narrower than its header cuts the header too: on an 80-column terminal every column counts.
  const floor = (i: number) => Math.min(widths[i]!, MIN_WIDTH);
  for (const i of ids) if (total() > width) widths[i] = Math.min(widths[i]!, Math.max(ID_WIDTH, widths[i]! - (total() - width)));
  // Other text columns give way first, the widest first; then the wrapping ones.
  for (const shrinkable of [(i: number) => !wrap.includes(i), (i: number) => wrap.includes(i)]) {
    while (total() > width) {
      let widest = -1;
      widths.forEach((w, i) => {
        // An id keeps its 12 characters: 11 of them are a prefix or suffix every command takes (cli/ids.ts).
        if (!shrinkable(i) || ids.includes(i) || right.includes(i) || whole.includes(i) || w <= floor(i)) return;
        if (widest < 0 || w > widths[widest]!) widest = i;
      });
      if (widest < 0) break;
      widths[widest] = Math.max(floor(widest), widths[widest]! - (total() - width));
    }
  }
  const cut = (cell: string, w: number, i: number) => {
    if (cell.length <= w) return cell;
    if (ids.includes(i) && TIME_ORDERED_TRACE_ID.test(cell)) return `…${cell.slice(cell.length - (w - 1))}`;
    return `${cell.slice(0, w - 1)}…`;
  };
  const pad = (cell: string, i: number) => (right.includes(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!));
  const format = (cells: readonly string[]): string[] => {
    const columns = header.map((_, i) => {
      const cell = cells[i] ?? '';
      return wrap.includes(i) ? wrapText(cell, widths[i]!) : [cut(cell, widths[i]!, i)];
    });
    const height = Math.max(...columns.map((c) => c.length));
    return Array.from({ length: height }, (_, line) =>
      columns
        .map((c, i) => pad(c[line] ?? '', i))
        .join('  ')
        .trimEnd(),
    );
  };
  return [...format(header), ...rows.flatMap(format)];
}

/** `text` in lines of at most `width` characters, broken after a space, `_`, `-` or `/` when one is near, else hard. */
export function wrapText(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const window = rest.slice(0, width);
    const soft = Math.max(window.lastIndexOf(' '), window.lastIndexOf('_'), window.lastIndexOf('-'), window.lastIndexOf('/'));
    const at = soft >= Math.floor(width / 2) ? soft + 1 : width;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest.length > 0) lines.push(rest);
  return lines;
}
