/**
 * `copyStore` (`agentkit store copy --from <path> --to <url>`, issue 38): move an existing local.db into a Postgres
 * store once. Copies the families a Postgres store holds: every execution (checkpoints, decision rows, pending
 * interrupts, idempotency records; ./checkpoints.ts), every span with the redaction key (tracing/copy-spans.ts), and
 * the prompt family (prompts/store/copy.ts), the eval runs with their cases (eval/copy.ts), favorites and notes
 * (annotations/), UI replay forks (forks/) and the knowledge bases kept as files beside it (kb/copy.ts).
 * Families a Postgres store does not hold yet stay in the file and are reported (`left_in_file`).
 *
 * Idempotent and resumable: run again, it adds only what is missing. The source is opened as any agentkit command
 * opens it (an older local.db is migrated first); nothing in it is changed by the copy itself. Run it before the
 * replicas start writing to the target (a replica that has read the target's redaction key keeps it).
 */
import { existsSync, statSync } from 'node:fs';
import { parseStoreValue, storeLabel } from '../config/store-value.js';
import { PostgresCheckpointer } from '../durability/postgres-checkpointer.js';
import { SQLiteCheckpointer } from '../durability/sqlite-checkpointer.js';
import { ConfigError } from '../errors.js';
import { fileOnlyRows } from '../store/family-counts.js';
import { openLocalStore } from '../store/open.js';
import { openStore } from '../store/store-handle.js';
import { copySpans, type SpanCopyResult } from '../tracing/copy-spans.js';
import { copyCheckpoints, type CheckpointCopyResult } from './checkpoints.js';
import { copyPrompts, type PromptCopyResult } from '../prompts/store/copy.js';
import { annotationStoreOf } from '../annotations/index.js';
import { forkStoreOf } from '../forks/index.js';
import { copyEvalRuns, type EvalCopyResult } from '../eval/copy.js';
import { copyKnowledgeBases, type KbCopyResult } from '../kb/copy.js';
import { kbCatalogOf } from '../kb/knowledge-base.js';

export interface StoreCopyResult {
  /** The source file and the target, as messages name them (no password). */
  from: string;
  to: string;
  checkpoints: CheckpointCopyResult;
  spans: SpanCopyResult;
  /** Prompt rows the target did not hold yet. */
  prompts: PromptCopyResult;
  /** Eval runs (and their cases) the target did not hold yet. */
  evals: EvalCopyResult;
  /** Favorites and notes the target did not hold yet (annotations/). */
  annotations: number;
  /** UI replay forks the target did not hold yet (forks/). */
  forks: number;
  /** Knowledge bases kept as files beside the source (`kb/<name>/kb.sqlite`): documents the target did not hold. */
  kb: KbCopyResult;
  /** Families the target does not hold, with their row counts in the source (they stay in the file). */
  left_in_file: Record<string, number>;
}

export interface StoreCopyOptions {
  /** Directory a relative `from` resolves against (default: the process's). */
  cwd?: string;
  /** Progress: the phase and how far it got (executions, then span rows). */
  onProgress?: (phase: 'checkpoints' | 'spans', done: number) => void;
}

/** Copy every row of a family owner's `from` into `to` (rows it holds already are kept); both closed after. */
async function copyRows<Row>(
  from: { all(): Promise<Row[]>; close(): Promise<void> },
  to: { importRows(rows: readonly Row[]): Promise<number>; close(): Promise<void> },
): Promise<number> {
  try {
    return await to.importRows(await from.all());
  } finally {
    await from.close();
    await to.close();
  }
}

/**
 * Copy the SQLite store `from` (a file path) into the Postgres store `to` (a `postgres://...?schema=` URL). Throws
 * ConfigError (one line) when `from` is not an existing file or `to` is not a Postgres URL.
 */
export async function copyStore(from: string, to: string, options: StoreCopyOptions = {}): Promise<StoreCopyResult> {
  const cwd = options.cwd ?? process.cwd();
  const source = parseStoreValue(from, cwd);
  if (source.engine !== 'sqlite') throw new ConfigError(`--from must be a local store file (a SQLite local.db), not a URL: ${storeLabel(source)}`);
  if (!existsSync(source.path) || !statSync(source.path).isFile()) throw new ConfigError(`store not found: ${source.path} does not exist`);
  const target = parseStoreValue(to, cwd);
  if (target.engine !== 'postgres') {
    throw new ConfigError(`--to must be a postgres://...?schema=<name> URL (to copy a file, copy the file): ${storeLabel(target)}`);
  }
  const fromCheckpointer = new SQLiteCheckpointer(source.path);
  const store = openStore(target, { min: 0, max: 2 });
  const toCheckpointer = new PostgresCheckpointer(store, { minPoolSize: 0, maxPoolSize: 2 });
  try {
    await fromCheckpointer.setup();
    await toCheckpointer.setup();
    const checkpoints = await copyCheckpoints(fromCheckpointer, toCheckpointer, { onProgress: (n) => options.onProgress?.('checkpoints', n) });
    const spans = await copySpans(source.path, store, { onProgress: (n) => options.onProgress?.('spans', n) });
    const db = openLocalStore(source.path);
    let left_in_file: Record<string, number>;
    let prompts: PromptCopyResult;
    let evals: EvalCopyResult;
    try {
      prompts = await copyPrompts(db, store);
      evals = await copyEvalRuns(db, source.path, store);
      left_in_file = fileOnlyRows(db);
    } finally {
      db.close();
    }
    const annotations = await copyRows(annotationStoreOf(source.path), annotationStoreOf(to));
    const forks = await copyRows(forkStoreOf(source.path), forkStoreOf(to));
    const fromKb = kbCatalogOf({ dbPath: source.path, env: {} });
    const toKb = kbCatalogOf({ dbPath: to, env: {}, cwd });
    let kb: KbCopyResult;
    try {
      kb = await copyKnowledgeBases(fromKb, toKb);
    } finally {
      await fromKb.close();
      await toKb.close();
    }
    return { from: storeLabel(source), to: storeLabel(target), checkpoints, spans, prompts, evals, annotations, forks, kb, left_in_file };
  } finally {
    await fromCheckpointer.close();
    await toCheckpointer.close();
    await store.close();
  }
}
