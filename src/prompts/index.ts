/** The prompt registry: versioned prompts in the local store, labels, fragments, diffs, and Agent references. */
export {
  PromptRegistry,
  LATEST_LABEL,
  type LoadOptions,
  type PromptRefOptions,
  type PromptRegistryOptions,
  type PromptSummary,
  type RegisterOptions,
  type RegisterResult,
} from './registry.js';
export { PromptVersion, templateVariables, type PromptVersionRecord } from './prompt-version.js';
export { diffVersions, NO_TEMPLATE_CHANGES } from './diff.js';
export { PromptError } from './errors.js';
export type { AddVersionInput, AddVersionResult, FragmentLookup, PromptStore, VersionContent } from './store/index.js';
export { fragmentNames, variableNames } from './template.js';
