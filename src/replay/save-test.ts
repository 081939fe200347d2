/**
 * Regression test records: one JSON object per line with exactly the spec's four fields (`input`,
 * `expected_output`, `trace_id`, `created_at`), appended to a JSONL dataset that `agentkit eval run` reads as is.
 * The file and its folder are created when missing; earlier lines are never rewritten. A file whose last line lacks
 * its newline gets one first, so the new record always starts a line of its own.
 */
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { utcNow } from '../store/time.js';
import type { RegressionTestRecord } from '../types.js';

export interface SaveAsTestOptions {
  /** Fed to the agent under test. */
  input: string;
  /** Fed to the scorer. */
  expectedOutput: string;
  /** Provenance (default: the rerun's trace id). */
  sourceTraceId?: string | null;
}

/** Append one record to `file`; returns the record written. ConfigError for a missing input, expected output or trace id. */
export function appendRegressionRecord(file: string, record: { input: unknown; expectedOutput: unknown; traceId: unknown }): RegressionTestRecord {
  if (typeof file !== 'string' || file === '') throw new ConfigError('saveAsTest needs a file path');
  if (typeof record.input !== 'string') throw new ConfigError('saveAsTest needs input as a string');
  if (typeof record.expectedOutput !== 'string') throw new ConfigError('saveAsTest needs expectedOutput as a string');
  if (typeof record.traceId !== 'string' || record.traceId === '')
    throw new ConfigError('saveAsTest needs a trace id: pass sourceTraceId (the rerun had no trace)');
  const line: RegressionTestRecord = { input: record.input, expected_output: record.expectedOutput, trace_id: record.traceId, created_at: utcNow() };
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const prefix = existsSync(file) && !endsWithNewline(file) ? '\n' : '';
  appendFileSync(file, `${prefix}${JSON.stringify(line)}\n`, { encoding: 'utf8', mode: 0o600 });
  return line;
}

function endsWithNewline(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}
