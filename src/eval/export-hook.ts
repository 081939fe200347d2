/**
 * How connected mode plugs eval export into `evaluate()` without evaluate importing the Platform: the Platform's
 * `connect()` and `jobScope()` install an exporter (../platform/eval-outbox.ts); `evaluate()` asks it whether a run
 * is queued and sends the queue after each run. With none installed the process was never connected: a run is
 * local-only (stored synced, `local_only = 1`): consent is taken when the run is written, never later (ADR 0054).
 */
import type { EvalStore } from './store.js';

/** What one send did. */
export interface EvalExportOutcome {
  sent: number;
  rejected: Array<{ id: string; reason: string }>;
  /** Why sending stopped early (the runs stay queued), or null. */
  error: string | null;
}

export interface EvalRunExporter {
  /** Should a run persisted now be queued for export (stored with `synced = 0`)? */
  queue(env: Record<string, string | undefined>): boolean;
  /** The project in effect now ('' for the key's default), stamped on a run persisted now. */
  project(env: Record<string, string | undefined>): string;
  /** Send the store's queued runs when connected with export on, else null. Never throws. */
  send(store: EvalStore, env: Record<string, string | undefined>): Promise<EvalExportOutcome | null>;
}

let exporter: EvalRunExporter | null = null;

/** Install (or, with null, remove) the exporter `evaluate()` uses. Connected mode installs one. */
export function setEvalRunExporter(next: EvalRunExporter | null): void {
  exporter = next;
}

/** AGENTKIT_EXPORT_EVALS as `env` has it: export is on unless it is `0` or `false`. */
export function exportEnabledByEnv(env: Record<string, string | undefined>): boolean {
  const value = env.AGENTKIT_EXPORT_EVALS?.trim().toLowerCase();
  return value !== '0' && value !== 'false';
}

/** Should a run persisted now be queued for export? */
export function queueRunForExport(env: Record<string, string | undefined>): boolean {
  return exporter ? exporter.queue(env) : false;
}

/** The project a run persisted now belongs to: the connection's, else AGENTKIT_PROJECT, else '' (the default). */
export function currentRunProject(env: Record<string, string | undefined>): string {
  return exporter ? exporter.project(env) : (env.AGENTKIT_PROJECT?.trim() ?? '');
}

/** Send the store's queued runs through the installed exporter; null when none is installed or it sent nothing. */
export async function sendQueuedRuns(store: EvalStore, env: Record<string, string | undefined>): Promise<EvalExportOutcome | null> {
  return exporter ? exporter.send(store, env) : null;
}
