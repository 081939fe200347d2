/**
 * A checkpoint row as it travels to and from the Platform (`WireCheckpoint` of spec/platform) and back. The mapping
 * is lossless: restore turns the wire row into the very checkpoint that was replicated (same id, timestamps, JSON).
 */
import type { CheckpointWrite } from '../durability/checkpointer.js';
import type { JsonRecord } from '../durability/json.js';
import type { Checkpoint } from '../types.js';
import type { WireCheckpoint } from './client.js';

/** `agent` for rows an agent wrote (path `agent:...` or a `turn:` node), else `chain`. */
export function resourceType(checkpoint: Pick<Checkpoint, 'agent_path' | 'node_id'>): 'agent' | 'chain' {
  return checkpoint.agent_path?.startsWith('agent:') || checkpoint.node_id.startsWith('turn:') ? 'agent' : 'chain';
}

export function toWire(checkpoint: Checkpoint, sequence?: number): WireCheckpoint {
  return {
    checkpoint_id: checkpoint.checkpoint_id,
    execution_id: checkpoint.execution_id,
    resource_type: resourceType(checkpoint),
    chain_name: checkpoint.chain_name,
    node_id: checkpoint.node_id,
    step_index: checkpoint.node_index,
    status: checkpoint.status,
    step_type: checkpoint.step_type ?? null,
    run_status: checkpoint.run_status ?? null,
    parent_checkpoint_id: checkpoint.parent_checkpoint_id ?? null,
    state_snapshot: checkpoint.state_snapshot as WireCheckpoint['state_snapshot'],
    metadata: {
      node_input: checkpoint.node_input ?? null,
      node_output: checkpoint.node_output ?? null,
      iteration: checkpoint.iteration ?? 0,
      iteration_counters: checkpoint.iteration_counters ?? {},
      interrupt_reason: checkpoint.interrupt_reason ?? null,
      interrupt_context: (checkpoint.interrupt_context ?? null) as WireCheckpoint['metadata']['interrupt_context'],
      agent_path: checkpoint.agent_path ?? null,
    },
    created_at: checkpoint.created_at,
    ...(sequence !== undefined ? { sequence } : {}),
  };
}

/** The checkpoint write that re-creates a replicated row locally. */
export function fromWire(wire: WireCheckpoint): CheckpointWrite & { checkpoint_id: string; created_at: string } {
  return {
    checkpoint_id: wire.checkpoint_id,
    execution_id: wire.execution_id,
    chain_name: wire.chain_name,
    node_id: wire.node_id,
    node_index: wire.step_index,
    status: wire.status,
    step_type: wire.step_type,
    run_status: wire.run_status,
    parent_checkpoint_id: wire.parent_checkpoint_id,
    state_snapshot: wire.state_snapshot as JsonRecord,
    node_input: wire.metadata.node_input,
    node_output: wire.metadata.node_output,
    iteration: wire.metadata.iteration,
    iteration_counters: wire.metadata.iteration_counters,
    interrupt_reason: wire.metadata.interrupt_reason,
    interrupt_context: wire.metadata.interrupt_context as JsonRecord | null,
    agent_path: wire.metadata.agent_path,
    created_at: wire.created_at,
  };
}
