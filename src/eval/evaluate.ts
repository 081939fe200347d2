/**
 * `evaluate(target, dataset, scorers, options)`: run every case of a dataset against a target, `concurrency` at a
 * time (default 4), score each output with every scorer, aggregate, optionally decide a gate, and persist the run
 * (default on) in the local store. A case whose target throws or pauses, or whose scorer breaks, is an errored case:
 * unscored, its error text kept; it never ends the run. Usage mistakes (unknown scorer, malformed rule) are thrown
 * before any case runs.
 */
import { randomUUID } from 'node:crypto';
import type { GateResult, Scorecard } from '../../generated/types/resources.js';
import { localStore } from '../config/paths.js';
import { storeValue } from '../config/store-value.js';
import { ConfigError } from '../errors.js';
import { utcNow } from '../store/time.js';
import { loadDataset, type DatasetSource, type EvalDatasetCase } from './dataset.js';
import { checkRuleNames, decideGate, parseRule, type GateRule } from './gate.js';
import { gitProvenance } from './git.js';
import type { EvalCaseRecord, EvalRunRecord } from './records.js';
import { resolveScorers, type ScorerOptions, type ScorerSpec } from './registry.js';
import { buildScorecard, errorRate } from './scorecard.js';
import type { Scorer, ScorerVerdict } from './scorer.js';
import { queueRunForExport, currentRunProject, sendQueuedRuns } from './export-hook.js';
import { EvalStore } from './store.js';
import { flushTraces } from '../tracing/setup.js';
import { adaptTarget, type EvalTarget } from './target.js';

/** Progress after each finished case. */
export interface EvalProgress {
  done: number;
  total: number;
  errored: number;
  elapsedMs: number;
}

export interface EvaluateOptions {
  /** Cases in flight at once (default 4). */
  concurrency?: number;
  runName?: string;
  /** Recorded dataset name (default: the file's name, `inline` for an array). */
  datasetName?: string;
  /** Recorded agent name (default: the runner's `name`, the function's name, else `agent`). */
  agentName?: string;
  /** Store the run in the local store (default true). */
  persist?: boolean;
  /** Where the run is saved instead of a store on `dbPath` (e.g. one over an `EvalRunStore` of your own); not closed here. */
  evalStore?: EvalStore;
  /**
   * The store: a file path or a `postgres://...?schema=` URL (default `AGENTKIT_LOCAL_DB` in `env`, else
   * `./.agentkit/local.db` under `cwd`); the run and its cases' traces go there.
   */
  dbPath?: string;
  env?: Record<string, string | undefined>;
  /** Where relative dataset paths resolve and git provenance is read (default the process's). */
  cwd?: string;
  onProgress?: (progress: EvalProgress) => void;
  /** Options of scorers named by string (judge model, regex pattern, ...). */
  scorerOptions?: ScorerOptions;
  /** Decide a gate: threshold rules (`exact_match.pass_rate=0.8`, `contains`, ...) and the error-rate guard. */
  gate?: { failUnder?: ReadonlyArray<string>; maxErrorRate?: number | null };
  /** Extra metadata stored with the run. */
  metadata?: Record<string, unknown>;
}

/** The outcome of `evaluate()`. */
export interface EvalResults extends EvalRunRecord {
  /** Errored cases over all cases. */
  error_rate: number;
  /** Whether the run was written to the store. */
  persisted: boolean;
  /** The store it was (or would have been) written to. */
  db_path: string;
}

/** Run an eval. Throws EvalError / ConfigError / EvalUsageError for a run that cannot start; never for a case. */
export async function evaluate(
  target: EvalTarget,
  dataset: DatasetSource,
  scorers: ReadonlyArray<ScorerSpec> = ['exact_match'],
  options: EvaluateOptions = {},
): Promise<EvalResults> {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigError(`concurrency must be a positive integer, got ${String(concurrency)}`);
  const maxErrorRate = options.gate?.maxErrorRate ?? null;
  if (maxErrorRate !== null && !(maxErrorRate >= 0 && maxErrorRate <= 1))
    throw new ConfigError(`maxErrorRate must be between 0 and 1, got ${String(maxErrorRate)}`);
  const resolved = resolveScorers(scorers, options.scorerOptions);
  const names = resolved.map((s) => s.name);
  const rules: GateRule[] = (options.gate?.failUnder ?? []).map(parseRule);
  checkRuleNames(rules, names);
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadDataset(dataset, { cwd, name: options.datasetName });
  const runner = adaptTarget(target);
  const dbPath = options.dbPath ?? storeValue(localStore({ env: options.env, cwd }));
  const evalStore = options.persist !== false ? (options.evalStore ?? new EvalStore({ dbPath })) : undefined;
  const runId = randomUUID().replace(/-/g, '');
  const startedAt = utcNow();
  const provenance = gitProvenance(cwd, options.env ?? process.env);

  const started = performance.now();
  const cases: EvalCaseRecord[] = new Array(loaded.cases.length);
  let next = 0;
  let done = 0;
  let errored = 0;
  const worker = async () => {
    for (let i = next++; i < loaded.cases.length; i = next++) {
      const record = await runCase(runner, resolved, loaded.cases[i]!, i, { runId, dbPath });
      cases[i] = record;
      done++;
      if (record.error !== null) errored++;
      options.onProgress?.({ done, total: loaded.cases.length, errored, elapsedMs: performance.now() - started });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, loaded.cases.length)) }, worker));

  // The cases' traces are in the store before the run is: a process that lists the run (the UI on a shared Postgres
  // store, written asynchronously) can open every case's trace, and a CLI run ends with nothing left to write.
  await flushTraces();
  const scorecard: Scorecard = buildScorecard(names, cases);
  const gate: GateResult | null = options.gate ? decideGate(scorecard, rules, maxErrorRate) : null;
  const { git_sha, git_branch } = await provenance;
  const results: EvalResults = {
    run_id: runId,
    run_name: options.runName ?? null,
    dataset_name: loaded.name,
    agent_name: options.agentName ?? runner.name,
    scorers: names,
    started_at: startedAt,
    finished_at: utcNow(),
    scorecard,
    gate,
    thresholds: rules.map((r) => `${r.scorer}.${r.field}=${r.minimum}`),
    git_sha,
    git_branch,
    metadata: { ...options.metadata, concurrency },
    // Queued for export (synced = 0) unless export is disabled now: a run stored while disabled is never sent.
    synced: !queueRunForExport(options.env ?? process.env),
    cases,
    error_rate: errorRate(scorecard),
    persisted: false,
    db_path: dbPath,
  };
  if (evalStore) {
    const { error_rate: _rate, persisted: _persisted, db_path: _db, ...record } = results;
    const store = evalStore;
    // The project in effect now goes with the run (ADR 0054): the export sends it there, whenever it drains.
    let exported: Awaited<ReturnType<typeof sendQueuedRuns>>;
    try {
      await store.saveRun(record, currentRunProject(options.env ?? process.env));
      results.persisted = true;
      // Connected mode: send the queued runs now (never fails the run; what is not accepted stays queued).
      exported = await sendQueuedRuns(store, options.env ?? process.env);
    } finally {
      if (store !== options.evalStore) await store.close();
    }
    if (exported?.error) process.emitWarning(`eval export: ${exported.error}; the run stays queued`, { code: 'AGENTKIT_EVAL_EXPORT' });
    if (exported && exported.rejected.length > 0) {
      process.emitWarning(`eval export: the Platform refused ${exported.rejected.map((r) => `${r.id} (${r.reason})`).join(', ')}`, {
        code: 'AGENTKIT_EVAL_EXPORT',
      });
    }
  }
  return results;
}

async function runCase(
  runner: ReturnType<typeof adaptTarget>,
  scorers: readonly Scorer[],
  testCase: EvalDatasetCase,
  ordinal: number,
  at: { runId: string; dbPath: string },
): Promise<EvalCaseRecord> {
  const record: EvalCaseRecord = {
    case_id: randomUUID().replace(/-/g, ''),
    ordinal,
    input: testCase.input,
    expected_output: testCase.expected_output ?? null,
    actual_output: null,
    trace_id: null,
    per_scorer: {},
    error: null,
    latency_ms: null,
  };
  const started = performance.now();
  try {
    const out = await runner.call(testCase.input, testCase, { runId: at.runId, ordinal, dbPath: at.dbPath });
    record.actual_output = out.output;
    record.trace_id = out.traceId;
  } catch (error) {
    record.error = errorText(error);
    record.trace_id = traceIdOf(error);
    return record;
  } finally {
    record.latency_ms = performance.now() - started;
  }
  const verdicts: Record<string, ScorerVerdict> = {};
  for (const s of scorers) {
    try {
      verdicts[s.name] = await s.score({ input: testCase.input, output: record.actual_output ?? '', expected: testCase.expected_output, case: testCase });
    } catch (error) {
      record.error = `scorer '${s.name}' failed: ${errorText(error)}`;
      return record;
    }
  }
  record.per_scorer = verdicts;
  return record;
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  return message.length > 2000 ? `${message.slice(0, 2000)}...` : message;
}

function traceIdOf(error: unknown): string | null {
  const id = (error as { trace_id?: unknown; traceId?: unknown } | null)?.trace_id ?? (error as { traceId?: unknown } | null)?.traceId;
  return typeof id === 'string' ? id : null;
}
