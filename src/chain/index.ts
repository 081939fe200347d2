/** Chains: nodes over shared JSON state, conditional edges, capped cycles, checkpointed, pausable, resumable, forkable. */
export { Chain, type ChainOptions, type ForkOptions, type ResumeOptions, type RunOptions } from './chain.js';
export { ChainCycleError, ChainError, ChainRoutingError } from './errors.js';
export type { Condition, EdgeOptions, NodeContext, NodeFunction, NodeOptions, Runner } from './graph.js';
