/**
 * Curating datasets from traces: one case per `agent.<name>` span (a root run, or an agent nested in a chain, swarm
 * or supervisor) in the window. Good filters (`all`, `favorites`, `noted`) take the captured output as
 * `expected_output` and skip runs with no output (they broke or paused); failure filters (`guardrail`, `failed`)
 * mark the case `needs_review` with an empty `expected_output`, the captured `actual_output` and a `reason`.
 * Spans without a captured input (payload capture off) cannot become cases and are counted as skipped.
 */
import { annotationStoreOf } from '../annotations/index.js';
import type Database from 'better-sqlite3';
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { localStoreValue, type Where } from '../config/paths.js';
import { utcNow } from '../store/time.js';
import { AGENT_ATTR } from '../tracing/attributes.js';
import { TraceStore } from '../tracing/trace-store.js';
import { EvalUsageError } from './errors.js';
import { writeFileAtomic } from '../config/atomic-file.js';

/** The curate filters. */
export const CURATE_FILTERS = ['all', 'favorites', 'noted', 'guardrail', 'failed'] as const;
export type CurateFilter = (typeof CURATE_FILTERS)[number];

export interface CurateOptions extends Where {
  filter?: CurateFilter;
  /** Only spans of this agent name. */
  agent?: string;
  /** Only spans started in the last this many hours. */
  sinceHours?: number;
  /** At most this many cases, the newest (default 200). */
  limit?: number;
  dbPath?: string;
}

/** One curated case (a dataset line). */
export interface CuratedCase {
  input: unknown;
  expected_output: string;
  trace_id: string;
  span_id: string;
  agent_name: string;
  source: string;
  created_at: string;
  needs_review?: true;
  actual_output?: string;
  reason?: string;
}

export interface CurateResult {
  cases: CuratedCase[];
  /** Matching spans that could not become cases (no captured input, or no output for a good filter). */
  skipped: number;
}

const FAILING_GUARDRAIL_OUTCOMES = ['blocked', 'warned', 'errored', 'fail', 'failed'];

interface SpanPick {
  trace_id: string;
  span_id: string;
  name: string;
  status: string;
  start_time: string;
  attributes: string;
}

/** Build cases from the store's traces. Throws EvalUsageError for an unknown filter or a bad window or limit. */
export async function curate(options: CurateOptions = {}): Promise<CurateResult> {
  const filter = options.filter ?? 'all';
  if (!(CURATE_FILTERS as readonly string[]).includes(filter)) throw new EvalUsageError(`unknown filter '${filter}'; filters: ${CURATE_FILTERS.join(', ')}`);
  const limit = options.limit ?? 200;
  if (!Number.isInteger(limit) || limit < 1) throw new EvalUsageError(`limit must be a positive integer, got ${String(limit)}`);
  if (options.sinceHours !== undefined && !(options.sinceHours > 0))
    throw new EvalUsageError(`since must be a positive number of hours, got ${String(options.sinceHours)}`);
  const store = new TraceStore({ dbPath: options.dbPath ?? localStoreValue(options), cwd: options.cwd });
  if (store.engine === 'sqlite') {
    const marked = filter === 'favorites' || filter === 'noted' ? await annotatedIds(store, filter) : [];
    return store.read((db) => pick(db, filter, options, limit, marked), { cases: [], skipped: 0 });
  }
  try {
    return await pickPg(store, filter, options, limit);
  } finally {
    await store.close();
  }
}

/**
 * A Postgres store holds spans and annotations (favorites, notes: the annotations owner names the traces), not yet
 * guardrail events (ADR 0017): every filter but `guardrail`.
 */
async function pickPg(store: TraceStore, filter: CurateFilter, options: CurateOptions, limit: number): Promise<CurateResult> {
  if (filter === 'guardrail') {
    throw new EvalUsageError(
      "filter 'guardrail' needs guardrail events, which a Postgres store does not hold yet; use --filter all, failed, favorites or noted",
    );
  }
  const traceIds = filter === 'favorites' || filter === 'noted' ? await annotatedIds(store, filter) : undefined;
  const rows = await store.pgAgentSpans({
    agent: options.agent,
    cutoff: options.sinceHours !== undefined ? new Date(Date.now() - options.sinceHours * 3_600_000).toISOString() : undefined,
    failedOnly: filter === 'failed',
    traceIds,
    limit,
  });
  const reasons = new Map<string, string>();
  if (filter === 'failed') {
    for (const id of new Set(rows.map((r) => r.trace_id))) reasons.set(id, `failed spans: ${(await store.pgErrorSpanNames(id)).join(', ')}`);
  }
  return casesOf(rows, filter, reasons);
}

/** The traces marked favorite, or noted, in `store` (the annotations owner answers). */
async function annotatedIds(store: TraceStore, filter: 'favorites' | 'noted'): Promise<string[]> {
  const annotations = annotationStoreOf(store.dbPath);
  try {
    return [...(filter === 'favorites' ? await annotations.favorites() : await annotations.noted())];
  } finally {
    await annotations.close();
  }
}

/** `marked`: the traces `favorites` or `noted` keeps (annotatedIds). */
function pick(db: Database.Database, filter: CurateFilter, options: CurateOptions, limit: number, marked: readonly string[]): CurateResult {
  const where = ["s.name LIKE 'agent.%'"];
  const params: Record<string, unknown> = { limit };
  if (options.agent !== undefined) {
    where.push('s.name = @name');
    params.name = `agent.${options.agent}`;
  }
  if (options.sinceHours !== undefined) {
    where.push('s.start_time >= @cutoff');
    params.cutoff = new Date(Date.now() - options.sinceHours * 3_600_000).toISOString();
  }
  if (filter === 'favorites' || filter === 'noted') {
    where.push('s.trace_id IN (SELECT value FROM json_each(@marked))');
    params.marked = JSON.stringify(marked);
  }
  if (filter === 'guardrail')
    where.push(`s.trace_id IN (SELECT trace_id FROM guardrail_events WHERE outcome IN (${FAILING_GUARDRAIL_OUTCOMES.map((o) => `'${o}'`).join(', ')}))`);
  if (filter === 'failed') where.push("s.trace_id IN (SELECT trace_id FROM spans WHERE status = 'ERROR')");
  const rows = (
    db
      .prepare(
        `SELECT s.trace_id, s.span_id, s.name, s.status, s.start_time, s.attributes FROM spans s WHERE ${where.join(' AND ')} ORDER BY s.start_time DESC, s.rowid DESC LIMIT @limit`,
      )
      .all(params) as SpanPick[]
  ).reverse();
  const failure = filter === 'guardrail' || filter === 'failed';
  return casesOf(rows, filter, failure ? reasonsOf(db, filter, rows) : new Map<string, string>());
}

/** Cases from picked spans, oldest first; `reasons` by trace id for the failure filters. */
function casesOf(rows: readonly SpanPick[], filter: CurateFilter, reasons: Map<string, string>): CurateResult {
  const failure = filter === 'guardrail' || filter === 'failed';
  const createdAt = utcNow();
  const cases: CuratedCase[] = [];
  let skipped = 0;
  for (const row of rows) {
    const attributes = JSON.parse(row.attributes) as Record<string, unknown>;
    const input = attributes[AGENT_ATTR.input];
    const output = typeof attributes[AGENT_ATTR.output] === 'string' ? (attributes[AGENT_ATTR.output] as string) : '';
    if (input === undefined || input === null || input === '' || (!failure && output === '')) {
      skipped++;
      continue;
    }
    const base = {
      input,
      trace_id: row.trace_id,
      span_id: row.span_id,
      agent_name: row.name.slice('agent.'.length),
      source: `curated:${filter}`,
      created_at: createdAt,
    };
    cases.push(
      failure
        ? { ...base, expected_output: '', needs_review: true, actual_output: output, reason: reasons.get(row.trace_id) ?? filter }
        : { ...base, expected_output: output },
    );
  }
  return { cases, skipped };
}

function reasonsOf(db: Database.Database, filter: 'guardrail' | 'failed', rows: SpanPick[]): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const id of new Set(rows.map((r) => r.trace_id))) {
    if (filter === 'guardrail') {
      const events = db
        .prepare(
          `SELECT guardrail_name, outcome, message FROM guardrail_events WHERE trace_id = ? AND outcome IN (${FAILING_GUARDRAIL_OUTCOMES.map((o) => `'${o}'`).join(', ')}) ORDER BY created_at`,
        )
        .all(id) as Array<{ guardrail_name: string; outcome: string; message: string | null }>;
      reasons.set(id, events.map((e) => `guardrail ${e.guardrail_name} ${e.outcome}${e.message ? `: ${e.message}` : ''}`).join('; '));
    } else {
      const failed = db.prepare("SELECT name FROM spans WHERE trace_id = ? AND status = 'ERROR' ORDER BY start_time").all(id) as Array<{ name: string }>;
      reasons.set(id, `failed spans: ${failed.map((f) => f.name).join(', ')}`);
    }
  }
  return reasons;
}

/**
 * Write cases as JSONL: appended to `file` with `append`, else replacing it atomically (a temporary file renamed over
 * it). New files are created 0600: curated cases hold what users sent.
 */
export function writeJsonl(file: string, cases: readonly object[], options: { append?: boolean } = {}): void {
  const text = cases.map((c) => `${JSON.stringify(c)}\n`).join('');
  if (options.append) {
    const fd = openSync(file, 'a+', 0o600);
    try {
      // A file whose last line lacks its newline would glue the first new case onto it.
      const size = fstatSync(fd).size;
      const last = Buffer.alloc(1);
      const glued = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
      writeSync(fd, glued ? `\n${text}` : text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return;
  }
  writeFileAtomic(file, text, { mode: 0o600 });
}
