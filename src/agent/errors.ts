import { AgentkitError } from '../errors.js';

/** The model was still calling tools when the run reached `maxIterations` model calls. */
export class MaxIterationsError extends AgentkitError {
  readonly agentName: string;
  readonly maxIterations: number;

  constructor(agentName: string, maxIterations: number, lastTools: readonly string[]) {
    super(
      'max_iterations_exceeded',
      `agent '${agentName}' reached maxIterations (${maxIterations}) without a final answer; the model was still calling tools (last turn: ${lastTools.join(', ') || 'none'})`,
    );
    this.agentName = agentName;
    this.maxIterations = maxIterations;
  }
}

/** An agent definition could not be rebuilt from a trace (missing attributes, unknown tools or guardrails). */
export class ReconstructionError extends AgentkitError {
  constructor(message: string, options?: ErrorOptions) {
    super('reconstruction_failed', message, options);
  }
}
