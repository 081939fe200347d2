/** Rows and assertions shared by the contract cases. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { CheckpointWrite } from '../checkpointer.js';

/** A fresh execution id per case, so cases never depend on each other's rows. */
export function newExecutionId(): string {
  return `exec-${randomUUID()}`;
}

/** A completed chain-node row of `executionId`. */
export function nodeRow(executionId: string, nodeId: string, extra: Partial<CheckpointWrite> = {}): CheckpointWrite {
  return {
    execution_id: executionId,
    chain_name: 'contract-chain',
    node_id: nodeId,
    node_index: 0,
    step_type: 'node',
    state_snapshot: { visited: [nodeId] },
    ...extra,
  };
}

/** An interrupted row of `executionId` at `nodeId`. */
export function interruptedRow(executionId: string, nodeId = 'approval', extra: Partial<CheckpointWrite> = {}): CheckpointWrite {
  return nodeRow(executionId, nodeId, {
    status: 'interrupted',
    step_type: 'hitl_pause',
    interrupt_reason: 'manager_approval',
    interrupt_context: { amount: 50000 },
    ...extra,
  });
}

/** Assert that `promise` rejects with an agentkit error of this class name and code. */
export async function rejectsWith(promise: Promise<unknown>, name: string, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof Error, `expected an Error, got ${String(error)}`);
    assert.equal(error.name, name);
    assert.equal((error as { code?: unknown }).code, code);
    if (message) assert.match(error.message, message);
    return true;
  });
}

/** An ISO-8601 UTC timestamp with microseconds, as every backend stores them. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A timestamp some time ago, in the stored format. */
export function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString().replace('Z', '000Z');
}
