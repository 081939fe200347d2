/**
 * A plain-text table: columns padded to their widest cell, two spaces apart, numeric columns right-aligned, and the
 * whole table fitted to 100 columns: id columns are cut first (to 12 characters), then the widest text column, each
 * cut cell ending in `…`. A `whole` column (the handle the next command takes: the execution id `resume` needs, the
 * trace id `replay show` needs) is never cut, so a row can always be acted on without `--json`. `--json` is the
 * full-width alternative of every command that prints one.
 */

export const TABLE_WIDTH = 100;
const ID_WIDTH = 12;
const MIN_WIDTH = 8;

export interface TableOptions {
  /** Indexes of right-aligned (numeric) columns; they are never cut. */
  readonly right?: readonly number[];
  /** Indexes of id columns, cut first (to 12 characters) when the table is too wide. */
  readonly ids?: readonly number[];
  /** Indexes of columns never cut (the row's handle: what a person copies into the next command). */
  readonly whole?: readonly number[];
  /** Widest line allowed (default 100). */
  readonly width?: number;
}

/** Format `header` and `rows` as lines no wider than the width (second form: the indexes of right-aligned columns). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, options: TableOptions | readonly number[] = {}): string[] {
  const {
    right = [],
    ids = [],
    whole = [],
    width = TABLE_WIDTH,
  } = Array.isArray(options) ? { right: options as readonly number[] } : (options as TableOptions);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  for (const i of ids) if (total() > width) widths[i] = Math.max(header[i]!.length, Math.min(widths[i]!, ID_WIDTH, widths[i]! - (total() - width)));
  while (total() > width) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (right.includes(i) || whole.includes(i) || w <= Math.max(MIN_WIDTH, header[i]!.length)) return;
      if (widest < 0 || w > widths[widest]!) widest = i;
    });
    if (widest < 0) break;
    widths[widest] = Math.max(MIN_WIDTH, header[widest]!.length, widths[widest]! - (total() - width));
  }
  const cut = (cell: string, w: number) => (cell.length > w ? `${cell.slice(0, w - 1)}…` : cell);
  const format = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right.includes(i) ? cut(c, widths[i]!).padStart(widths[i]!) : cut(c, widths[i]!).padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [format(header), ...rows.map(format)];
}
