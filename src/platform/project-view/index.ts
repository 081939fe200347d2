/** One project of a Platform store seen as a trace store and an eval run store (issue 42: `agentkit ui --project`). */
export { ProjectEvalRuns } from './evals.js';
export { ProjectTraceStore } from './traces.js';
