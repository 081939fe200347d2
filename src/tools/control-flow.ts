/**
 * Errors that steer a run instead of reporting a failure (the durability layer's InterruptSignal is one). The tool
 * loop feeds every other tool error back to the model as `Error: ...`; an error marked here propagates unchanged to
 * the executor that knows what to do with it. Marking is by a registered symbol, so the marking module does not have
 * to import this one.
 */

/** Set `[CONTROL_FLOW] = true` on an error class's instances to let it pass through tool error handling. */
export const CONTROL_FLOW: unique symbol = Symbol.for('agentkit.control-flow') as never;

/** True when `error` is marked as a control-flow signal. */
export function isControlFlowSignal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[CONTROL_FLOW] === true;
}
