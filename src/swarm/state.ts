/**
 * The swarm's resumable state, saved at every `handoff:N` boundary (before member N runs) as the row's
 * `state_snapshot`, field names as the reference SDK wrote them.
 */
import { ChainCheckpointError } from '../durability/errors.js';
import { isPlainObject, type JsonRecord } from '../durability/json.js';
import type { Checkpoint, ToolCallRecord } from '../types.js';

export interface SwarmState {
  /** The boundary number: 0 before the entrypoint runs, +1 per handoff. */
  iteration: number;
  active_agent: string;
  /** What the active agent is asked (the user's input, then each handoff's message). */
  current_input: string;
  original_input: string;
  shared_context: JsonRecord;
  handoff_count: number;
  /** The agents that were active, in order. */
  path: string[];
  last_reason: string | null;
  accumulated_tool_calls: ToolCallRecord[];
  total_tokens: number;
}

export function initialState(entrypoint: string, input: string): SwarmState {
  return {
    iteration: 0,
    active_agent: entrypoint,
    current_input: input,
    original_input: input,
    shared_context: {},
    handoff_count: 0,
    path: [entrypoint],
    last_reason: null,
    accumulated_tool_calls: [],
    total_tokens: 0,
  };
}

/** The state saved in a handoff row; ChainCheckpointError when the row does not hold one. */
export function stateFromRow(row: Checkpoint): SwarmState {
  const s = row.state_snapshot as Record<string, unknown>;
  const ok =
    Number.isInteger(s.iteration) &&
    typeof s.active_agent === 'string' &&
    typeof s.current_input === 'string' &&
    typeof s.original_input === 'string' &&
    isPlainObject(s.shared_context) &&
    Number.isInteger(s.handoff_count) &&
    Array.isArray(s.path) &&
    (s.last_reason === null || typeof s.last_reason === 'string') &&
    Array.isArray(s.accumulated_tool_calls) &&
    typeof s.total_tokens === 'number';
  if (!ok) {
    throw new ChainCheckpointError(`checkpoint '${row.checkpoint_id}' (${row.node_id}) does not hold a swarm state; was it written by another runner?`);
  }
  return structuredClone(s) as unknown as SwarmState;
}
