/** `listExecutions`: executions with where each stands (./execution-state.ts), for `agentkit executions list` and the UI. */
import type { Checkpointer } from '../durability/checkpointer.js';
import { supportsRecovery } from '../durability/recovery-store.js';
import { ConfigError } from '../errors.js';
import { standingOf, type ExecutionState } from './execution-state.js';

/** One execution as listed. */
export interface ExecutionListItem {
  execution_id: string;
  state: ExecutionState;
  recoverable: boolean;
  reason: string | null;
  chain_name: string;
  agent_path: string | null;
  last_node_id: string;
  updated_at: string;
  runner_key: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  recover_attempts: number;
}

/**
 * The most recently written executions of `checkpointer`'s store (at most `limit` read, default 100), with their
 * state; only those in `state` when given. ConfigError for a checkpointer without the recovery protocol.
 */
export async function listExecutions(checkpointer: Checkpointer, options: { state?: ExecutionState; limit?: number } = {}): Promise<ExecutionListItem[]> {
  if (!supportsRecovery(checkpointer)) throw new ConfigError('this checkpointer cannot list executions (it does not implement the recovery protocol)');
  const records = await checkpointer.listExecutions({ limit: options.limit ?? 100 });
  const now = Date.now();
  const items = records.map((record): ExecutionListItem => {
    const standing = standingOf(record, now);
    return {
      execution_id: record.execution_id,
      ...standing,
      chain_name: record.chain_name,
      agent_path: record.agent_path,
      last_node_id: record.last_node_id,
      updated_at: record.updated_at,
      runner_key: record.lease?.runner_key ?? null,
      lease_owner: record.lease?.owner ?? null,
      lease_expires_at: record.lease?.expires_at ?? null,
      recover_attempts: record.lease?.recover_attempts ?? 0,
    };
  });
  return options.state === undefined ? items : items.filter((item) => item.state === options.state);
}
