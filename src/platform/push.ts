/**
 * `agentkit platform push` (docs/adr/0054): rows written while not connected are local-only and never leave the
 * machine on their own; a push sends the local-only rows of the current project on request, oldest first, and marks
 * them sent (a second push finds nothing). `dryRun` lists exactly the rows a push would send and sends nothing.
 */
import type { Checkpointer, UnsyncedCheckpoint } from '../durability/checkpointer.js';
import { supportsPush } from '../durability/checkpointer.js';
import { ConfigError } from '../errors.js';
import { clientFor, type Connection } from './current-connection.js';
import { PlatformError } from './errors.js';
import { toWire } from './wire.js';

/** One row a push sends (or, dry, would send). */
export interface PushedRow {
  execution_id: string;
  checkpoint_id: string;
  node_id: string;
  status: string;
  created_at: string;
}

/** What a push did. */
export interface PushResult {
  /** The project the rows belong to ('' is the key's default project). */
  project: string;
  /** The rows sent, or with `dryRun` the rows that would be sent, oldest first. */
  rows: PushedRow[];
  /** Rows the Platform accepted (0 on a dry run). */
  sent: number;
  /** Rows the Platform refused on payload grounds, id -> reason: quarantined, never pushed again. */
  rejected: Record<string, string>;
}

export interface PushOptions {
  /** Only rows written at or after this ISO time. */
  since?: string | null;
  dryRun?: boolean;
}

const BATCH = 200;

/**
 * Send (or list, `dryRun`) the local-only rows of `connection`'s project in `checkpointer`'s store. Throws
 * ConfigError when the store cannot push, and the Platform's error when it refuses or cannot be reached (rows sent
 * before that stay sent; the rest stay local-only for the next push).
 */
export async function pushLocalRows(checkpointer: Checkpointer, connection: Connection, options: PushOptions = {}): Promise<PushResult> {
  if (!supportsPush(checkpointer)) throw new ConfigError('this checkpointer cannot list local-only rows: nothing to push');
  const project = connection.project ?? '';
  const result: PushResult = { project, rows: [], sent: 0, rejected: {} };
  const client = options.dryRun ? null : clientFor(connection);
  let after = 0;
  for (;;) {
    const batch = await checkpointer.fetchLocalOnly(BATCH, project, { since: options.since ?? null, afterSequence: after });
    if (batch.length === 0) return result;
    after = batch.at(-1)!.sequence;
    result.rows.push(...batch.map(describe));
    if (!client) continue;
    const answer = await client.ingestCheckpoints(
      batch.map((row) => toWire(row.checkpoint, row.sequence)),
      project || null,
    );
    const rejected = Object.fromEntries(answer.rejected.map((r) => [r.id, r.reason]));
    await checkpointer.markPushed(answer.accepted, rejected);
    result.sent += answer.accepted.length;
    Object.assign(result.rejected, rejected);
    if (answer.accepted.length === 0 && answer.rejected.length === 0) {
      throw new PlatformError(`Platform at ${connection.target} acknowledged none of the rows pushed`, null, null);
    }
  }
}

function describe(row: UnsyncedCheckpoint): PushedRow {
  const c = row.checkpoint;
  return { execution_id: c.execution_id, checkpoint_id: c.checkpoint_id, node_id: c.node_id, status: c.status, created_at: c.created_at };
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * `--since`: an ISO 8601 time, or a duration back from `now` (`90s`, `30m`, `12h`, `7d`, `2w`). Returns the ISO UTC
 * time; throws ConfigError naming the value otherwise.
 */
export function parseSince(value: string, now: Date = new Date()): string {
  const duration = /^(\d+)\s*([smhdw])$/.exec(value.trim());
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNITS[duration[2]!]!).toISOString();
  if (/^\d{4}-\d{2}-\d{2}/.test(value.trim())) {
    const time = new Date(value.trim());
    if (!Number.isNaN(time.getTime())) return time.toISOString();
  }
  throw new ConfigError(`--since '${value}' is neither an ISO time (2026-11-28T09:00:00Z) nor a duration (90s, 30m, 12h, 7d, 2w)`);
}
