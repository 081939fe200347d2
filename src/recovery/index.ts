/** Recovery of orphaned executions (docs/adr/0050): the sweep, its settings, and the execution listing. */
export { EXECUTION_STATES, standingOf, type ExecutionStanding, type ExecutionState } from './execution-state.js';
export { listExecutions, type ExecutionListItem } from './list.js';
export { Recoverer, recoverOrphans, recoverSettings, type RecoverableRunner, type RecoverOptions, type RecoveryOutcome } from './recoverer.js';
export { pruneEndedExecutions, type PruneExecutionsOptions, type PruneExecutionsResult } from './prune.js';
