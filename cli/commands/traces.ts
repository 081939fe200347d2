/**
 * Trace commands, all reading the local store directly: `traces list`, `traces export`, and `export-trace` (one
 * self-contained JSON file, the same document as the UI's Export dialog).
 */
import { Command, Option, UsageError } from 'clipanion';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TraceStore } from '../../src/tracing/trace-store.js';
import type { TraceSummary } from '../../src/types.js';
import { AgentkitCommand } from '../base.js';
import { pruneAge } from '../prune-age.js';
import { namedStore } from '../store-path.js';
import { unfinishedExecutionTraces } from '../durability/prune-keep.js';
import { EvalStore } from '../../src/eval/store.js';
import { outputWidth, table } from '../table.js';
import { ID_FORMS, resolveTraceId } from '../ids.js';
import { cutList, cutNotice, parseLimit } from '../list-cut.js';

/** `traces list [--last-hours N] [--json]` */
export class TracesListCommand extends AgentkitCommand {
  static override paths = [['traces', 'list']];

  static override usage = Command.Usage({
    category: 'Traces',
    description: 'List the traces of the last hours from the local store',
    details: [
      'Lists every trace that started in the window (the last 24 hours unless `--last-hours` says otherwise), newest first, with no row limit unless `--limit <n>` asks for the newest n: trace id, root span name, status (`ERROR` when any span failed, `paused` for a run waiting for a person that was not resumed yet), span count and start time (UTC). When `--limit` cut the list, `showing <n>, more available` follows on stderr (`--json`: `more_available: true`).',
      'The store is `--db` (a file or a `postgres://...?schema=<name>` URL), else `AGENTKIT_LOCAL_DB` (either), else `./.agentkit/local.db`. Prints `No traces found.` when there are none. `--json` prints `{ items, count, more_available }`.',
      '`--process` (Postgres stores, where a fleet writes) keeps the traces written by one process: its `service.instance.id`, its service name (`OTEL_SERVICE_NAME`) or its host name.',
    ].join('\n\n'),
    examples: [
      ['List the last 24 hours', '$0 traces list'],
      ['List the last week as JSON', '$0 traces list --last-hours 168 --json'],
      ['The 20 newest', '$0 traces list --limit 20'],
      ['The traces replica-2 wrote to a shared store', '$0 traces list --db "postgres://app@db/prod?schema=agentkit" --process replica-2'],
    ],
  });

  // Parsed in run(), not by a typanion validator: loading typanion would cost this command a tenth of its start-up.
  lastHours = Option.String('--last-hours', { description: 'Window in hours (default 24)' });
  json = Option.Boolean('--json', false, { description: 'Print JSON instead of a table' });
  db = Option.String('--db', { description: 'Store: a file or a postgres://...?schema=<name> URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)' });
  process = Option.String('--process', { description: 'Only traces written by this process: instance id, service name or host (Postgres stores)' });
  limit = Option.String('--limit', { description: 'At most this many traces, the newest (default: all of the window)' });

  async run(): Promise<void> {
    const limit = parseLimit(this.limit);
    const lastHours = this.lastHours === undefined ? 24 : Number(this.lastHours);
    if (this.lastHours !== undefined && (this.lastHours.trim() === '' || Number.isNaN(lastHours))) {
      throw new UsageError(`invalid value for --last-hours: expected a number (got ${JSON.stringify(this.lastHours)})`);
    }
    if (!(lastHours > 0)) throw new UsageError(`--last-hours must be a positive number of hours, got ${lastHours}`);
    const store = new TraceStore({ env: this.context.env, cwd: this.context.cwd, dbPath: namedStore(this.context.cwd, this.db, { readOnly: true }) });
    let items: TraceSummary[];
    let more: boolean;
    try {
      const read = await store.listTraces({
        lastHours,
        ...(this.process === undefined ? {} : { process: this.process }),
        ...(limit === undefined ? {} : { limit: limit + 1 }),
      });
      ({ items, more } = cutList(read, limit));
    } finally {
      await store.close();
    }
    if (this.json) {
      this.out(JSON.stringify({ items, count: items.length, more_available: more }, null, 2));
      return;
    }
    if (items.length === 0) {
      this.out('No traces found.');
      return;
    }
    for (const line of traceTable(items, outputWidth(this.context.stdout))) this.out(line);
    if (more) this.err(cutNotice(items.length));
  }
}

function traceTable(items: TraceSummary[], width: number): string[] {
  // A run waiting for a person reads `paused` (its span status stays an OpenTelemetry status).
  const rows = items.map((s) => [s.trace_id, s.name, s.run_status ?? s.status, String(s.span_count), s.start_time.slice(0, 19).replace('T', ' ')]);
  return table(['TRACE ID', 'NAME', 'STATUS', 'SPANS', 'TIME'], rows, { right: [3], ids: [0], whole: [4], width });
}

/** `traces export <trace_id> [--format json]` */
export class TracesExportCommand extends AgentkitCommand {
  static override paths = [['traces', 'export']];

  static override usage = Command.Usage({
    category: 'Traces',
    description: 'Print one trace as JSON',
    details: [
      'Prints the trace (`trace_id`, `name`, `status`, `start_time`, `end_time`, `metadata`, `spans` ordered by start time) as JSON on stdout. The only format is `json`; there is no output-file option (redirect stdout, or use `export-trace`).',
      `An unknown trace id prints an error and exits 1. ${ID_FORMS}`,
    ].join('\n\n'),
    examples: [['Export a trace', '$0 traces export 4bf92f3577b34da6a3ce929d0e0e4736 > trace.json']],
  });

  traceId = Option.String({ name: 'trace_id' });
  format = Option.String('--format', 'json', { description: 'Output format (only json)' });
  db = Option.String('--db', { description: 'Store: a file or a postgres://...?schema=<name> URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)' });

  async run(): Promise<void> {
    if (this.format !== 'json') throw new UsageError(`unsupported format '${this.format}': the only format is json`);
    const store = new TraceStore({ env: this.context.env, cwd: this.context.cwd, dbPath: namedStore(this.context.cwd, this.db, { readOnly: true }) });
    try {
      this.out(JSON.stringify(await store.getTrace(await resolveTraceId(store, this.traceId)), null, 2));
    } finally {
      await store.close();
    }
  }
}

/** `traces prune --older-than <duration> | --older-than-hours N [--process <p>] [--json] [--db <path|url>]` */
export class TracesPruneCommand extends AgentkitCommand {
  static override paths = [['traces', 'prune']];

  static override usage = Command.Usage({
    category: 'Traces',
    description: 'Delete the traces of runs that started before a given age',
    details: [
      "Deletes each run's trace (its spans, guardrail events, attachments and favorite mark) when the run started longer ago than `--older-than` (a duration: `30d`, `12h`, `90m`, `45s`) or `--older-than-hours`. Runs are judged one by one, by their own start: two runs recorded under one caller's trace id are separate traces here.",
      'Never pruned, whatever their age: the traces of an execution that is paused (a pending interrupt) or not over (it holds a lease: running, or waiting for recovery), traces marked favorite or carrying a note, and traces an eval case cites.',
      'Prints `pruned <n> trace(s)`; `--json` prints `{ pruned }`. The store is `--db` (a file or a `postgres://...?schema=<name>` URL), else `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`; the default store may not exist yet (nothing to prune); a `--db` file that does not exist is refused. Traces are deleted in short batches (Postgres: a few hundred per statement; SQLite: one short write transaction per batch, sized to stay near 200 ms), so no lock is held for long; `--process` keeps the deletion to traces one process wrote.',
    ].join('\n\n'),
    examples: [
      ['Delete traces older than 30 days', '$0 traces prune --older-than 30d'],
      ['From another store, as JSON', '$0 traces prune --older-than-hours 24 --json --db prod/local.db'],
      ['What one replica wrote, on a shared store', '$0 traces prune --older-than 7d --process replica-2 --db "postgres://app@db/prod?schema=agentkit"'],
    ],
  });

  olderThan = Option.String('--older-than', { description: 'Age of the runs to delete: <n>d, <n>h, <n>m or <n>s' });
  olderThanHours = Option.String('--older-than-hours', { description: 'Age in hours of the runs to delete' });
  json = Option.Boolean('--json', false, { description: 'Print JSON instead of text' });
  db = Option.String('--db', {
    description: 'Store to prune: a file or a postgres://...?schema=<name> URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)',
  });
  process = Option.String('--process', { description: 'Only traces written by this process: instance id, service name or host (Postgres stores)' });

  async run(): Promise<void> {
    const ageMs = pruneAge(this.olderThan, this.olderThanHours);
    // A named store must exist (a mistyped path is refused, not reported as empty); the default one may not yet.
    const store = new TraceStore({ env: this.context.env, cwd: this.context.cwd, dbPath: namedStore(this.context.cwd, this.db, { readOnly: true }) });
    let pruned: number;
    try {
      const keep = await unfinishedExecutionTraces(this.db === undefined ? undefined : store.dbPath, this.context);
      // Traces an eval case cites stay; the eval family's owner names them (a SQLite prune checks them in its own DELETE).
      if (store.engine === 'postgres') {
        const evals = new EvalStore({ dbPath: store.dbPath });
        try {
          for (const id of await evals.citedTraceIds()) keep.add(id);
        } finally {
          await evals.close();
        }
      }
      pruned = await store.prune(ageMs, { keep, ...(this.process === undefined ? {} : { process: this.process }) });
    } finally {
      await store.close();
    }
    this.out(this.json ? JSON.stringify({ pruned }) : `pruned ${pruned} trace${pruned === 1 ? '' : 's'}`);
  }
}

/** `export-trace [<trace_id>] --trace-id <id> [--output trace.json] [--include-attachments] [--include-checkpoint-state] [--db <path>]` */
export class ExportTraceCommand extends AgentkitCommand {
  static override paths = [['export-trace']];

  static override usage = Command.Usage({
    category: 'Traces',
    description: 'Write one trace to a self-contained JSON file',
    details: [
      'Reads the local store directly and writes one JSON document (`export_version`, `exported_at`, `sdk_version`, `trace`, `spans`, `checkpoints`, `multimodal_attachments`): the same JSON as the UI Export dialog, checked against the contract before it is written. Payload attributes of each span are split into `input` and `output`.',
      "Checkpoints of the trace's execution are listed when the same store holds them (a file or a Postgres URL); their state blocks (`state_snapshot`, node input and output, interrupt context) only with `--include-checkpoint-state`. Attachments are listed (SQLite stores: a Postgres store keeps none yet); their bytes (base64) only with `--include-attachments`.",
      'The trace is named by `--trace-id <id>` or by the argument (`export-trace <id>`, as `traces export` takes it). The file is written with mode 0600 (it holds prompts and tool payloads). An unknown trace id prints an error, writes nothing and exits 1.',
      ID_FORMS,
    ].join('\n\n'),
    examples: [
      ['Export to trace.json', '$0 export-trace --trace-id 4bf92f3577b34da6a3ce929d0e0e4736'],
      ['The same, by the tail of the id', '$0 export-trace a3ce929d0e0e4736'],
      [
        'Export everything from another store',
        '$0 export-trace --trace-id 4bf92f3577b34da6a3ce929d0e0e4736 --output run.json --include-attachments --include-checkpoint-state --db prod/local.db',
      ],
    ],
  });

  traceIdArg = Option.String({ name: 'trace_id', required: false });
  traceIdFlag = Option.String('--trace-id', { description: "The trace to export (the spec's flag; the id may also be given as the argument)" });
  output = Option.String('--output,-o', 'trace.json', { description: 'File to write (default trace.json)' });
  includeAttachments = Option.Boolean('--include-attachments', false, { description: 'Embed attachment bytes (base64)' });
  includeCheckpointState = Option.Boolean('--include-checkpoint-state', false, { description: 'Embed full checkpoint state blocks' });
  db = Option.String('--db', {
    description: 'Store to read: a file or a postgres://...?schema=<name> URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)',
  });

  async run(): Promise<void> {
    const traceId = this.traceIdFlag ?? this.traceIdArg;
    if (traceId === undefined) throw new UsageError('missing required option --trace-id <trace_id> (or give the trace id as the argument)');
    if (this.traceIdFlag !== undefined && this.traceIdArg !== undefined && this.traceIdFlag !== this.traceIdArg) {
      throw new UsageError(`two different trace ids given ('${this.traceIdArg}' and --trace-id '${this.traceIdFlag}'); give one`);
    }
    const store = new TraceStore({ env: this.context.env, cwd: this.context.cwd, dbPath: namedStore(this.context.cwd, this.db, { readOnly: true }) });
    // Loaded here, not at the top: `traces list` shares this module and must start fast.
    const { exportTrace } = await import('../../src/replay/export-trace.js');
    let document: Awaited<ReturnType<typeof exportTrace>>;
    try {
      document = await exportTrace(store, await resolveTraceId(store, traceId), {
        includeAttachments: this.includeAttachments,
        includeCheckpointState: this.includeCheckpointState,
      });
    } finally {
      await store.close();
    }
    const file = path.resolve(this.context.cwd, this.output);
    await writeFile(file, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    this.out(`wrote ${file}`);
  }
}
