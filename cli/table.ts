/** A plain-text table: columns padded to their widest cell, two spaces apart, numeric columns right-aligned. */

/** Format `header` and `rows` as lines; `right` lists the indexes of right-aligned columns. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, right: readonly number[] = []): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: readonly string[]) =>
    cells.map((c, i) => (right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [format(header), ...rows.map(format)];
}
