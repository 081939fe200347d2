/** Evals: datasets, scorers, `evaluate()`, the CI gate, the eval store, run comparison, curation, export preview. */
export { evaluate, type EvalProgress, type EvalResults, type EvaluateOptions } from './evaluate.js';
export { loadDataset, inputText, type DatasetSource, type EvalContentPart, type EvalDatasetCase, type EvalInput, type LoadedDataset } from './dataset.js';
export { scorer, toVerdict, type CustomScore, type ScoreInput, type Scorer, type ScorerFunction, type ScorerVerdict } from './scorer.js';
export { contains, exactMatch, jsonValid, regexMatch } from './builtins.js';
export { llmJudge, type LlmJudgeOptions } from './llm-judge.js';
export { faithfulness, type FaithfulnessOptions } from './faithfulness.js';
export { BUILTIN_SCORERS, resolveScorers, type ScorerOptions, type ScorerSpec } from './registry.js';
export { buildScorecard, errorRate } from './scorecard.js';
export { checkRuleNames, decideGate, gateExitCode, parseRule, type GateRule } from './gate.js';
export { EvalStore, evalRunStoreOf, type EvalRunStore, type EvalStoreOptions } from './store.js';
export type { EvalCaseRecord, EvalRunRecord, EvalRunSummary } from './records.js';
export { compareRuns, type CompareOptions, type EvalComparison, type FlippedCase, type MetricDelta } from './compare.js';
export { curate, writeJsonl, CURATE_FILTERS, type CurateFilter, type CurateOptions, type CurateResult, type CuratedCase } from './curate.js';
export { exportPayload, exportPosture, exportPreview, type ExportPosture, type ExportedEvalRun, type PostureOptions } from './export.js';
export { runReport } from './report.js';
export { adaptTarget, type EvalFunction, type EvalRunnable, type EvalTarget } from './target.js';
export { gitProvenance, type GitProvenance } from './git.js';
export { EvalError, EvalUsageError } from './errors.js';
