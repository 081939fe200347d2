/**
 * The eval export outbox. A run persisted while connected with export on stays queued (`synced = 0`); a run
 * persisted while not connected or with export off (AGENTKIT_EXPORT_EVALS=0, `connect({ exportEvals: false })`) is
 * stored already synced and local-only, so it is never sent (ADR 0054). After each run, `exportQueuedRuns` sends the queued runs oldest first, in batches, with exactly the payload
 * `agentkit eval export --dry-run` prints (`exportPayload`: aggregates, gate outcome, thresholds, git provenance,
 * per-case verdicts with trace ids; never a case's input, expected or actual output), and marks a run synced only
 * once the Platform accepted it. A failure leaves the rest queued for the next run.
 */
import { setEvalRunExporter, type EvalExportOutcome } from '../eval/export-hook.js';
import { exportPayload } from '../eval/export.js';
import type { EvalStore } from '../eval/store.js';
import { clientFor, exportEvalsEnabled, resolveConnection, type Connection } from './current-connection.js';
import { PlatformForbiddenError } from './errors.js';

export type { EvalExportOutcome };

const BATCH = 10;
const inFlight = new Map<string, Promise<EvalExportOutcome>>();

/**
 * Should a run persisted now be queued for export? Only while connected with export on (the env variable and
 * `connect({ exportEvals })`): a run persisted while not connected is local-only, never sent by a later connection
 * (ADR 0054).
 */
export function queueForExport(env: Record<string, string | undefined> = process.env): boolean {
  return exportEvalsEnabled(resolveConnection(), env);
}

/**
 * Send the store's queued runs when connected with export on (else do nothing and return null). Calls for the same
 * store share one send. Never throws: a failure is reported in `error` and the runs stay queued.
 */
export async function exportQueuedRuns(
  store: EvalStore,
  options: { connection?: Connection | null; env?: Record<string, string | undefined> } = {},
): Promise<EvalExportOutcome | null> {
  const connection = options.connection === undefined ? resolveConnection() : options.connection;
  if (!connection || !exportEvalsEnabled(connection, options.env)) return null;
  const id = `${store.dbPath}\u0000${connection.target}`;
  const running = inFlight.get(id);
  if (running) await running.catch(() => undefined);
  const send = drain(store, connection).finally(() => inFlight.delete(id));
  inFlight.set(id, send);
  return send;
}

async function drain(store: EvalStore, connection: Connection): Promise<EvalExportOutcome> {
  const client = clientFor(connection);
  const outcome: EvalExportOutcome = { sent: 0, rejected: [], error: null };
  const skipped = new Set<string>();
  for (;;) {
    const runs = (await store.unsyncedRuns(BATCH + skipped.size)).runs.filter((run) => !skipped.has(run.run_id)).slice(0, BATCH);
    if (runs.length === 0) return outcome;
    // Each run goes to the project stamped when it was written (ADR 0054): a batch holds one project's runs.
    const project = runs[0]!.project_id ?? '';
    const batch = runs.filter((run) => (run.project_id ?? '') === project);
    try {
      const result = await client.ingestEvalRuns(batch.map(exportPayload), project || null);
      await store.markSynced(result.accepted);
      outcome.sent += result.accepted.length;
      // A run the Platform refuses on payload grounds would be refused again: it leaves the queue, with its reason.
      await store.markSynced(result.rejected.map((r) => r.id));
      outcome.rejected.push(...result.rejected);
      const answered = new Set([...result.accepted, ...result.rejected.map((r) => r.id)]);
      for (const run of batch) if (!answered.has(run.run_id)) skipped.add(run.run_id);
    } catch (error) {
      outcome.error = (error as Error).message;
      // A key names its project (issue 42): a project this key may not write is refused (403) while the runs of
      // other projects still go; the refused ones stay queued for a key of their project.
      if (!(error instanceof PlatformForbiddenError)) return outcome;
      for (const run of batch) skipped.add(run.run_id);
    }
  }
}

let installed = false;

/** Make `evaluate()` queue and send through this outbox (idempotent). `connect()` and `jobScope()` call it. */
export function installEvalExport(): void {
  if (installed) return;
  installed = true;
  setEvalRunExporter({
    queue: queueForExport,
    project: (env) => resolveConnection()?.project ?? env.AGENTKIT_PROJECT?.trim() ?? '',
    send: (store, env) => exportQueuedRuns(store, { env }),
  });
}
