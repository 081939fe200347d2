/**
 * Which runner wrote an execution. A paused Swarm or Supervisor's latest row is written by an inner agent (its
 * `chain_name` is that agent's name), so looking a runner up by `chain_name` alone finds the wrong one (the Python
 * SDK's UI did). The root segment of `agent_path` names the outermost runner; rows without one are a chain's.
 */
import type { RunnerKind } from '../../runner-kind.js';
import type { Checkpoint } from '../../types.js';

export interface CheckpointOwner {
  kind: RunnerKind;
  name: string;
}

const ROOT = /^(agent|swarm|supervisor):([^/]+)/;

/**
 * The runner that owns the execution `row` belongs to: `agent:<n>`, `swarm:<n>` or `supervisor:<n>` at the root of
 * its `agent_path`, else the chain named by `chain_name` (a chain's own rows carry no path, and a chain hosting an
 * agent writes `agent:<n>` paths under its execution: pass the execution's first row to tell those apart).
 */
export function runnerOfCheckpoint(row: Pick<Checkpoint, 'agent_path' | 'chain_name'>): CheckpointOwner {
  const match = row.agent_path ? ROOT.exec(row.agent_path) : null;
  if (match) return { kind: match[1] as RunnerKind, name: match[2]! };
  return { kind: 'chain', name: row.chain_name };
}

/**
 * The owner of a whole execution from its rows (oldest first): a row without a path is a chain's, and a chain's rows
 * come first in a chain-hosted run, so the first row decides. Null for no rows.
 */
export function runnerOfExecution(rows: readonly Pick<Checkpoint, 'agent_path' | 'chain_name'>[]): CheckpointOwner | null {
  const first = rows[0];
  if (!first) return null;
  const chainRow = rows.find((row) => row.agent_path === null);
  return chainRow ? { kind: 'chain', name: chainRow.chain_name } : runnerOfCheckpoint(first);
}
