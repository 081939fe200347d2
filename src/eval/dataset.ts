/**
 * Eval datasets: JSONL (one case per line, blank lines skipped), CSV (a header row, one case per row), a JSON array
 * file, or an in-memory array. A case needs `input` (a string or a list of content parts) and takes
 * `expected_output` (or the older `expected`); every other key is kept and handed to scorers. A regression-test
 * record written by replay (`input`, `expected_output`, `trace_id`, `created_at`) is a valid case as it is.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EvalError } from './errors.js';

/** A content part of a multimodal input; file paths are resolved against the dataset's directory when loaded. */
export type EvalContentPart = { type: 'text'; text: string } | { type: 'image' | 'pdf'; path: string };

/** One case as loaded: the dataset's keys, with `expected_output` filled from `expected` when only that is set. */
/** A case's input: text, content parts, or (for Chain targets) a JSON object passed through as it is. */
export type EvalInput = string | EvalContentPart[] | { [key: string]: unknown };

export interface EvalDatasetCase {
  input: EvalInput;
  expected_output?: string;
  [key: string]: unknown;
}

/** A loaded dataset: its cases in file order and the name runs record for it. */
export interface LoadedDataset {
  name: string;
  cases: EvalDatasetCase[];
}

/** What `evaluate()` accepts as a dataset: a file path (.jsonl, .csv, .json) or the cases themselves. */
export type DatasetSource = string | ReadonlyArray<Record<string, unknown>>;

/**
 * Load a dataset. Relative paths resolve against `cwd`. Throws EvalError naming the file and line (or index) of the
 * first case that is not an object with an `input`, of any line that is not JSON, and for a missing file.
 */
export function loadDataset(source: DatasetSource, options: { cwd?: string; name?: string } = {}): LoadedDataset {
  if (typeof source !== 'string') {
    if (!Array.isArray(source)) throw new EvalError('dataset must be a file path or an array of cases');
    return { name: options.name ?? 'inline', cases: source.map((item, i) => toCase(item, `case ${i}`, null)) };
  }
  const file = path.resolve(options.cwd ?? process.cwd(), source);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EvalError(code === 'ENOENT' ? `dataset not found: ${file}` : `dataset ${file} could not be read: ${(error as Error).message}`);
  }
  const name = options.name ?? path.basename(file);
  const dir = path.dirname(file);
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return { name, cases: csvCases(text, file).map((row, i) => toCase(row, `${file} row ${i + 2}`, dir)) };
  if (ext === '.json') return { name, cases: jsonArrayCases(text, file).map((item, i) => toCase(item, `${file} item ${i}`, dir)) };
  return { name, cases: jsonlCases(text, file, dir) };
}

function jsonlCases(text: string, file: string, dir: string): EvalDatasetCase[] {
  const cases: EvalDatasetCase[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new EvalError(`${file} line ${i + 1} is not JSON: ${(error as Error).message}`);
    }
    cases.push(toCase(value, `${file} line ${i + 1}`, dir));
  }
  return cases;
}

function csvCases(text: string, file: string): Record<string, unknown>[] {
  try {
    return parseCsv(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, unknown>[];
  } catch (error) {
    throw new EvalError(`${file} is not valid CSV: ${(error as Error).message}`);
  }
}

function jsonArrayCases(text: string, file: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EvalError(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new EvalError(`${file} must hold a JSON array of cases`);
  return value;
}

function toCase(value: unknown, where: string, dir: string | null): EvalDatasetCase {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new EvalError(`${where}: a case must be a JSON object with an "input" key`);
  const item = { ...(value as Record<string, unknown>) };
  if (!('input' in item) || item.input === null || item.input === undefined) throw new EvalError(`${where}: the case has no "input"`);
  item.input = inputOf(item.input, where, dir);
  const expected = item.expected_output ?? item.expected;
  if (expected === undefined || expected === null || expected === '') delete item.expected_output;
  else item.expected_output = typeof expected === 'string' ? expected : JSON.stringify(expected);
  return item as EvalDatasetCase;
}

function inputOf(input: unknown, where: string, dir: string | null): EvalInput {
  if (typeof input === 'string') return input;
  if (typeof input !== 'object' || input === null) return JSON.stringify(input);
  if (!Array.isArray(input)) return input as { [key: string]: unknown };
  return input.map((part, i): EvalContentPart => {
    const p = part as Record<string, unknown> | null;
    if (p && p.type === 'text' && typeof p.text === 'string') return { type: 'text', text: p.text };
    if (p && (p.type === 'image' || p.type === 'pdf') && typeof p.path === 'string') {
      return { type: p.type as 'image' | 'pdf', path: dir === null ? p.path : path.resolve(dir, p.path) };
    }
    throw new EvalError(`${where}: input part ${i} must be {"type":"text","text":...} or {"type":"image"|"pdf","path":...}`);
  });
}

/** The case's input as one text (content parts joined), for scorers and prompts. */
export function inputText(input: EvalInput): string {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return JSON.stringify(input);
  return input.map((p) => (p.type === 'text' ? p.text : `[${p.type}: ${path.basename(p.path)}]`)).join('\n');
}
