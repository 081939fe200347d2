/** The LeaseLost a backend raises when a fenced write finds the execution's lease no longer the writer's. */
import { LeaseLost } from './errors.js';

/** LeaseLost for `executionId`, as a backend reports it (the fenced writer, ./fenced.ts, says which run stopped). */
export function leaseLost(executionId: string): LeaseLost {
  return new LeaseLost(
    `this process no longer holds the lease of execution '${executionId}' (another process took it over, or it expired and was taken); nothing was written`,
  );
}
