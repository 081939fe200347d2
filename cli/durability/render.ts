/** Plain-text rendering for the durability commands: aligned tables and one-line JSON previews. */
import { isRunEnd } from '../../src/durability/run-end.js';
import type { Checkpoint } from '../../src/types.js';
import { table as fitTable, type TableOptions } from '../table.js';

/** Columns padded to their widest cell, two spaces apart, no trailing spaces, fitted to 100 columns (cli/table.ts). */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, options: TableOptions = {}): string {
  return fitTable(headers, rows, options).join('\n');
}

/** Compact JSON, cut to `max` characters with an ellipsis. */
export function preview(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** A result's output as a person reads it: strings as they are, null as empty, anything else as JSON. */
export function outputText(output: unknown): string {
  if (output === null || output === undefined) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/**
 * Where an execution stands, from its rows: `completed` / `failed` (its terminal row), `paused` (latest row
 * interrupted), else `incomplete` (running, or stopped by a crash: resumable without a value).
 */
export function executionState(rows: readonly Checkpoint[]): 'completed' | 'failed' | 'paused' | 'incomplete' {
  const last = rows[rows.length - 1];
  if (!last) return 'incomplete';
  if (isRunEnd(last)) return last.run_status === 'failed' ? 'failed' : 'completed';
  return last.status === 'interrupted' ? 'paused' : 'incomplete';
}
