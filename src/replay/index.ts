/** Agent Replay: a stored trace as steps, a fork at a step, a safe rerun, a comparison, a saved regression test. */
export { Replay, type ReplayLoadOptions, type ReplayOptions } from './replay.js';
export { ForkedReplay, type RerunOptions } from './forked.js';
export { ReplayRunResult, type RerunCounts } from './result.js';
export { ReplayError } from './errors.js';
export { DEFAULT_REPLAY_MODE, REPLAY_MODES, type DeterminismOptions, type ReplayMode } from './mode.js';
export type { ConfigPatch } from './modifications.js';
export type { RebuildSources } from './rebuild.js';
export { compareSteps, describeComparison, divergedAt } from './compare.js';
export { appendRegressionRecord, type SaveAsTestOptions } from './save-test.js';
export { stepsOf } from './steps.js';
export { REPLAY_ATTR } from './span-attributes.js';
export type { ReplayTrace, TraceInput } from './trace-data.js';
export { exportTrace, type ExportOptions } from './export-trace.js';
