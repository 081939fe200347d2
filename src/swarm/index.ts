/** Swarm: agents handing a conversation to one another, durable at every handoff. */
export { DEFAULT_MAX_HANDOFFS, Swarm, type SwarmOptions, type SwarmResumeOptions, type SwarmRunOptions } from './swarm.js';
export { SwarmError } from './errors.js';
export { handoffToolName, type HandoffRequest } from './handoff.js';
export type { SwarmState } from './state.js';
