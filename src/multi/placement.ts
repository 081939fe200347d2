/**
 * Where a coordinator (Swarm, Supervisor) run or resume sits: joined to the enclosing scope's execution when it runs
 * under the same execution id (a Chain node hosting it), else an execution of its own; and its base agent path
 * (`swarm:<name>`, `supervisor:<name>`, below the scope's path when joined).
 */
import type { Checkpointer } from '../durability/checkpointer.js';
import { ChainCheckpointError } from '../durability/errors.js';
import { joinAgentPath, type ExecutionScope } from '../scope/scope.js';

export interface CoordinatorPlacement {
  /** True when `scope` is this execution's: the coordinator's rows go under the scope's agent path. */
  joined: boolean;
  basePath: string;
}

export function placeCoordinator(scope: ExecutionScope | undefined, executionId: string, segment: string): CoordinatorPlacement {
  const joined = scope !== undefined && scope.executionId === executionId;
  return { joined, basePath: joinAgentPath(joined ? scope.agentPath : null, segment) };
}

/** A fresh run under an execution id the caller chose must not write into an execution that already has rows. */
export async function refuseUsedExecutionId(checkpointer: Checkpointer, executionId: string): Promise<void> {
  if (await checkpointer.getLast(executionId)) {
    throw new ChainCheckpointError(`execution '${executionId}' already has checkpoints; resume() it, or run with a new executionId`);
  }
}
