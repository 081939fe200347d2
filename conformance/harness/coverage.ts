/**
 * Which spec rows have a passing scenario, per backend and surface. Scenarios record into this process-wide table as
 * they finish. Each test file runs in its own process (scripts/test.mjs): its records are saved to a file
 * (`saveRecords`), and the runner merges every file's (./report.ts) and writes the report after the last one.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SPEC_ROWS, type SpecRowId } from '../spec-rows.js';
import type { BackendKind } from './backends.js';

export type Surface = 'sdk' | 'cli' | 'http';
export const SURFACES: readonly Surface[] = ['sdk', 'cli', 'http'];

type Outcome = 'pass' | 'fail';
/** backend ('any' for storage-free scenarios) -> surface -> outcome; a failure is never overwritten by a pass. */
const results = new Map<SpecRowId, Map<string, Outcome>>();

interface Recorded {
  rows: readonly SpecRowId[];
  backend: BackendKind | 'any';
  surface: Surface;
  passed: boolean;
}
/** Every call of `record`, in order, for `saveRecords`. */
const recorded: Recorded[] = [];

/** Record one scenario variant's outcome for the rows it proves. */
export function record(rows: readonly SpecRowId[], backend: BackendKind | 'any', surface: Surface, passed: boolean): void {
  recorded.push({ rows, backend, surface, passed });
  for (const row of rows) {
    const cells = results.get(row) ?? new Map<string, Outcome>();
    const key = `${backend}/${surface}`;
    if (cells.get(key) !== 'fail') cells.set(key, passed ? 'pass' : 'fail');
    results.set(row, cells);
  }
}

/** Write this process's records to `file` (JSON) for the runner to merge. */
export async function saveRecords(file: string): Promise<void> {
  await writeFile(file, JSON.stringify(recorded));
}

/** Record again what `saveRecords` wrote (another process's scenarios). */
export async function loadRecords(file: string): Promise<void> {
  for (const r of JSON.parse(await readFile(file, 'utf8')) as Recorded[]) record(r.rows, r.backend, r.surface, r.passed);
}

/** True once any scenario has recorded (the runner only reports coverage when the conformance suite ran). */
export function hasRecords(): boolean {
  return results.size > 0;
}

interface RowCoverage {
  id: string;
  kind: string;
  text: string;
  /** backend -> surfaces with a passing scenario (and no failing one). */
  passing: Record<string, Surface[]>;
  failing: string[];
  covered: boolean;
}

function rowCoverage(): RowCoverage[] {
  return SPEC_ROWS.map((row) => {
    const cells = results.get(row.id as SpecRowId) ?? new Map<string, Outcome>();
    const passing: Record<string, Surface[]> = {};
    const failing: string[] = [];
    for (const backend of row.storage ? ['sqlite', 'postgres'] : ['any', 'sqlite', 'postgres']) {
      for (const surface of SURFACES) {
        const outcome = cells.get(`${backend}/${surface}`) ?? (row.storage ? undefined : cells.get(`any/${surface}`));
        if (outcome === 'pass') (passing[backend] ??= []).includes(surface) || passing[backend]!.push(surface);
        if (outcome === 'fail') failing.push(`${backend}/${surface}`);
      }
    }
    const covered = row.storage ? Boolean(passing.sqlite?.length && passing.postgres?.length) : Boolean(passing.any?.length || passing.sqlite?.length);
    return { id: row.id, kind: row.kind, text: row.text, passing, failing: [...new Set(failing)], covered };
  });
}

function cell(surfaces: Surface[] | undefined): string {
  return SURFACES.map((s) => (surfaces?.includes(s) ? s : '-'.repeat(s.length))).join(' ');
}

/**
 * Write `<dir>/coverage.json` and `<dir>/coverage.md`; return the text to print: one line per row
 * (`sqlite[sdk cli http] postgres[...]`), then the count of covered rows per kind.
 */
export async function writeCoverage(dir: string): Promise<string> {
  const rows = rowCoverage();
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'coverage.json'), `${JSON.stringify({ rows }, null, 2)}\n`);
  const lines = rows.map((row) => {
    const storage = SPEC_ROWS.find((r) => r.id === row.id)!.storage;
    const where = storage
      ? `sqlite[${cell(row.passing.sqlite)}] postgres[${cell(row.passing.postgres)}]`
      : `any   [${cell([...(row.passing.any ?? []), ...(row.passing.sqlite ?? [])])}]${' '.repeat(27)}`;
    const mark = row.failing.length ? 'FAIL' : row.covered ? ' ok ' : '    ';
    return `${mark} ${where} ${row.id}${row.failing.length ? `  (failing: ${row.failing.join(', ')})` : ''}`;
  });
  const kinds = ['route', 'transition', 'error', 'cli'] as const;
  const byKind = kinds.map((kind) => {
    const of = rows.filter((r) => r.kind === kind);
    return `${kind} ${of.filter((r) => r.covered).length}/${of.length}`;
  });
  const covered = rows.filter((r) => r.covered).length;
  const summary = `spec coverage: ${covered} of ${rows.length} rows covered on every backend (${byKind.join(', ')})`;
  const md = ['# Conformance coverage', '', summary, '', '```', ...lines, '```', ''].join('\n');
  await writeFile(path.join(dir, 'coverage.md'), md);
  return [`spec rows (ok = a passing scenario on every backend it applies to):`, ...lines, summary].join('\n');
}
