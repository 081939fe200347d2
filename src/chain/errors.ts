/** Errors a chain raises about its own graph and execution (storage errors are ChainCheckpointError, in durability/). */
import { AgentkitError } from '../errors.js';

/** The chain is misbuilt (unknown node, duplicate id, ambiguous edges) or a run broke a chain-wide rule (step guard). */
export class ChainError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('chain_error', message, options);
  }
}

/** A capped edge was about to be taken more often than its `maxIterations`: the cycle did not exit. */
export class ChainCycleError extends AgentkitError {
  constructor(message: string) {
    super('chain_cycle_error', message);
  }
}

/** With `strictRouting`, a node's conditional edges all declined and there was no unconditional edge to fall back on. */
export class ChainRoutingError extends AgentkitError {
  constructor(message: string) {
    super('chain_routing_error', message);
  }
}
