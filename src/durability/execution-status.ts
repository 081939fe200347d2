/**
 * Where an execution stands, read from its rows and its lease (docs/adr/0053): what `GET /runs/{execution_id}` of a
 * served agent and a repeat of an idempotent request answer. One reading for every runner kind:
 *
 * - `completed` / `failed`: the latest row is the run's own terminal row (a root `agent_path`, or none for a chain);
 * - `paused`: the latest row is an interrupted checkpoint (its pause, with the pending interrupt it recorded);
 * - `running`: neither, and an unexpired lease is held on the execution (a process is running it now);
 * - `needs_attention`: neither, and nobody holds its lease: the process running it died (recovery continues it).
 */
import type { Checkpoint, PendingInterruptSummary } from '../types.js';
import type { Checkpointer } from './checkpointer.js';
import { executionTraceIds, isRunEnd } from './run-end.js';

export type ExecutionState = 'running' | 'paused' | 'completed' | 'failed' | 'needs_attention';

export interface ExecutionStatus {
  execution_id: string;
  status: ExecutionState;
  /** The final answer when completed (a Chain's non-string output JSON-encoded), else null. */
  output: string | null;
  /** What the run failed with (`<Name>: <message>`) when failed, else null. */
  error: string | null;
  pending_interrupt: PendingInterruptSummary | null;
  /** The execution's traces, oldest first. */
  trace_ids: string[];
  created_at: string;
  updated_at: string;
  /** The execution's rows, oldest first (who owns it: `runnerOfExecution`). */
  rows: Checkpoint[];
}

/** Most rows read for one status (every row is needed for the trace ids; an execution rarely has more). */
const MAX_ROWS = 100_000;

/** The status of `executionId`, or null when it has no rows. `now` for tests (epoch ms). */
export async function readExecutionStatus(checkpointer: Checkpointer, executionId: string, now = Date.now()): Promise<ExecutionStatus | null> {
  const rows = await checkpointer.list(executionId, { limit: MAX_ROWS });
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return null;
  const base = {
    execution_id: executionId,
    output: null,
    error: null,
    pending_interrupt: null,
    trace_ids: executionTraceIds(rows),
    created_at: first.created_at,
    updated_at: last.created_at,
    rows,
  };
  if (isRunEnd(last) && isRootPath(last.agent_path)) {
    if (last.run_status === 'failed') return { ...base, status: 'failed', error: failureOf(last) };
    return { ...base, status: 'completed', output: outputOf(rows) };
  }
  if (last.status === 'interrupted') {
    return {
      ...base,
      status: 'paused',
      pending_interrupt: {
        reason: last.interrupt_reason ?? '',
        context: last.interrupt_context ?? {},
        node_id: last.node_id,
        agent_path: last.agent_path,
      },
    };
  }
  const lease = await checkpointer.leaseOf(executionId);
  const held = lease !== null && Date.parse(lease.expires_at) > now;
  return { ...base, status: held ? 'running' : 'needs_attention' };
}

/** A runner's own rows have no path (a chain) or a one-segment path (`agent:<n>`, `swarm:<n>`, `supervisor:<n>`). */
function isRootPath(agentPath: string | null): boolean {
  return agentPath === null || !agentPath.includes('/');
}

function failureOf(row: Checkpoint): string {
  const output = row.node_output as { error?: unknown } | null;
  return typeof output?.error === 'string' ? output.error : 'the run failed';
}

/**
 * The answer of a completed run: an agent's (or a coordinator's) last assistant message in its terminal row's state;
 * for a chain, the output of its last node (the row before the terminal row), JSON-encoded unless a string.
 */
function outputOf(rows: readonly Checkpoint[]): string {
  const end = rows.at(-1)!;
  if (end.agent_path !== null) {
    const messages = (end.state_snapshot as { messages?: { role?: string; content?: unknown }[] }).messages ?? [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i]!;
      if (message.role === 'assistant' && typeof message.content === 'string') return message.content;
    }
    return '';
  }
  const node = rows.length > 1 ? rows.at(-2)!.node_output : null;
  if (node === null || node === undefined) return '';
  return typeof node === 'string' ? node : JSON.stringify(node);
}
