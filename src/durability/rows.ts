/**
 * Row shaping shared by every backend: a CheckpointWrite becomes a complete Checkpoint (defaults, id, timestamp,
 * JSON checks) before it reaches SQL, so all backends store the same thing and reject the same bad input.
 */
import { timeOrderedId } from './time-ordered-id.js';
import { redactValue } from '../config/redact.js';
import { ValidationError } from '../errors.js';
import { utcNow } from '../store/time.js';
import type { Checkpoint, PendingInterrupt } from '../types.js';
import type { CheckpointWrite, PendingInterruptWrite } from './checkpointer.js';
import { DEFAULT_LIST_LIMIT } from './checkpointer.js';
import { isPlainObject, nonJsonReason } from './json.js';

const STATUSES = new Set(['completed', 'interrupted', 'failed']);
const STEP_TYPES = new Set(['node', 'llm_call', 'tool_call', 'hitl_pause', 'handoff', 'fork_origin', 'run_end', 'run_start', 'resume']);
const RUN_STATUSES = new Set(['completed', 'failed']);
const TRACE_ID = /^[0-9a-f]{32}$/;

/**
 * The complete row for a write: defaults filled in, every field checked, except that the state is only checked to
 * be a plain object here (its JSON check and masking happen as the checkpointer encodes it, ./stored-state.ts).
 * Throws ValidationError naming the field.
 */
export function completeCheckpoint(write: CheckpointWrite): Checkpoint {
  for (const field of ['execution_id', 'chain_name', 'node_id'] as const) {
    if (typeof write[field] !== 'string' || write[field] === '') invalid(field, 'must be a non-empty string');
  }
  const row: Checkpoint = {
    checkpoint_id: write.checkpoint_id ?? timeOrderedId(),
    execution_id: write.execution_id,
    chain_name: write.chain_name,
    node_id: write.node_id,
    node_index: write.node_index ?? 0,
    status: write.status ?? 'completed',
    step_type: write.step_type ?? null,
    run_status: write.run_status ?? null,
    parent_checkpoint_id: write.parent_checkpoint_id ?? null,
    state_snapshot: write.state_snapshot ?? {},
    node_input: write.node_input ?? null,
    node_output: write.node_output ?? null,
    iteration: write.iteration ?? 0,
    iteration_counters: write.iteration_counters ?? {},
    interrupt_reason: write.interrupt_reason ?? null,
    interrupt_context: write.interrupt_context ?? null,
    agent_path: write.agent_path ?? null,
    created_at: write.created_at ?? utcNow(),
  };
  if (write.trace_id != null) {
    if (typeof write.trace_id !== 'string' || !TRACE_ID.test(write.trace_id)) invalid('trace_id', 'must be 32 lowercase hex digits or null');
    row.trace_id = write.trace_id;
  }
  if (!STATUSES.has(row.status)) invalid('status', `must be completed, interrupted or failed, not ${JSON.stringify(row.status)}`);
  if (row.step_type !== null && !STEP_TYPES.has(row.step_type)) invalid('step_type', `unknown step type ${JSON.stringify(row.step_type)}`);
  if (row.run_status !== null && !RUN_STATUSES.has(row.run_status)) invalid('run_status', `must be completed or failed, not ${JSON.stringify(row.run_status)}`);
  if (!Number.isInteger(row.node_index)) invalid('node_index', 'must be an integer');
  if (!Number.isInteger(row.iteration)) invalid('iteration', 'must be an integer');
  if (!isPlainObject(row.state_snapshot)) invalid('state_snapshot', 'must be a plain object');
  if (row.interrupt_context !== null && !isPlainObject(row.interrupt_context)) invalid('interrupt_context', 'must be a plain object or null');
  for (const key in row.iteration_counters) {
    if (!Object.hasOwn(row.iteration_counters, key)) continue;
    if (!Number.isInteger(row.iteration_counters[key])) invalid('iteration_counters', `${key} must be an integer`);
  }
  // The state is checked and masked as it is encoded, as far as the row stores it (./stored-state.ts): walking the
  // whole state here made every step's cost grow with the history.
  for (const field of ['node_input', 'node_output', 'interrupt_context'] as const) {
    const reason = nonJsonReason(row[field], `$.${field}`);
    if (reason) invalid(field, `is not JSON (${reason})`);
  }
  // A timestamp made here (utcNow) has the format by construction; only a given one is checked.
  if (write.created_at !== undefined) checkTimestamp(row.created_at);
  return redactRow(row);
}

/**
 * The row with registered secrets masked in its payloads: a failed run's error (which may quote a provider's answer
 * quoting the key) and anything a node put in its input or output. Nothing is copied when no secret is registered.
 * The state is masked by the delta writer (./stored-state.ts).
 */
function redactRow(row: Checkpoint): Checkpoint {
  const nodeInput = redactValue(row.node_input);
  const nodeOutput = redactValue(row.node_output);
  const interruptReason = redactValue(row.interrupt_reason);
  const interruptContext = redactValue(row.interrupt_context);
  if (
    nodeInput === row.node_input &&
    nodeOutput === row.node_output &&
    interruptReason === row.interrupt_reason &&
    interruptContext === row.interrupt_context
  ) {
    return row;
  }
  return { ...row, node_input: nodeInput, node_output: nodeOutput, interrupt_reason: interruptReason, interrupt_context: interruptContext };
}

/** The pending row for an interrupted checkpoint: fields default to the checkpoint's. */
export function completePending(checkpoint: Checkpoint, pending: PendingInterruptWrite): PendingInterrupt {
  if (typeof pending.reason !== 'string') invalid('reason', 'must be a string');
  if (!isPlainObject(pending.context)) invalid('context', 'must be a plain object');
  const reason = nonJsonReason(pending.context, '$.context');
  if (reason) invalid('context', `is not JSON (${reason})`);
  const row: PendingInterrupt = {
    execution_id: checkpoint.execution_id,
    chain_name: pending.chain_name ?? checkpoint.chain_name,
    node_id: pending.node_id ?? checkpoint.node_id,
    reason: redactValue(pending.reason),
    context: redactValue(pending.context),
    agent_path: pending.agent_path === undefined ? checkpoint.agent_path : pending.agent_path,
    created_at: pending.created_at ?? checkpoint.created_at,
  };
  checkTimestamp(row.created_at);
  return row;
}

/** A lease request: a non-empty owner and a whole, positive time to live in milliseconds. */
export function checkLease(owner: string, ttlMs: number): void {
  if (typeof owner !== 'string' || owner === '')
    throw new ValidationError('a lease owner must be a non-empty string', [{ path: '/owner', message: 'must be a non-empty string' }]);
  if (!Number.isInteger(ttlMs) || ttlMs < 1) {
    throw new ValidationError(`a lease time to live must be a positive whole number of milliseconds, not ${String(ttlMs)}`, [
      { path: '/ttlMs', message: 'must be a positive integer' },
    ]);
  }
}

/** A positive integer limit (default 100). */
export function listLimit(limit: number | undefined): number {
  const value = limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(value) || value < 1) invalid('limit', `must be a positive integer, not ${String(limit)}`);
  return value;
}

/** The cutoff of `prune(olderThan)` as a stored timestamp (same text format, so text comparison orders correctly). */
export function pruneCutoff(olderThan: number | Date): string {
  let cutoff: Date;
  if (olderThan instanceof Date) cutoff = olderThan;
  else if (typeof olderThan === 'number' && Number.isFinite(olderThan) && olderThan >= 0) cutoff = new Date(Date.now() - olderThan);
  else invalid('olderThan', `must be an age in milliseconds (>= 0) or a Date, not ${String(olderThan)}`);
  if (Number.isNaN(cutoff.getTime())) invalid('olderThan', 'is an invalid Date');
  return cutoff.toISOString().replace('Z', '000Z');
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function checkTimestamp(value: string): void {
  if (!TIMESTAMP.test(value)) invalid('created_at', `must be an ISO-8601 UTC timestamp with microseconds, not ${JSON.stringify(value)}`);
}

/** A ValidationError naming a checkpoint field: `checkpoint field <field> <message>`. */
export function invalid(field: string, message: string): never {
  throw new ValidationError(`checkpoint field ${field} ${message}`, [{ path: `/${field}`, message }]);
}
