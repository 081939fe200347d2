/** `agentkit/testing`: helpers for testing agents deterministically, with no API key and no network. */
// First: refuse an unsupported Node.js before any native module loads.
import '../node-support-guard.js';
export { TimeoutError, withTimeout } from './timeout.js';
export {
  checkpointerContract,
  runContractCase,
  type CheckpointerContractInitializer,
  type ContractCase,
  type ContractStore,
} from '../durability/contract/index.js';
export {
  annotationStoreContract,
  runAnnotationContractCase,
  type AnnotationContractCase,
  type AnnotationContractInitializer,
  type AnnotationContractStore,
} from '../annotations/contract.js';
export {
  evalStoreContract,
  runEvalContractCase,
  type EvalContractCase,
  type EvalContractInitializer,
  type EvalContractStore,
} from '../eval/store-contract.js';
export type { EvalRunStore } from '../eval/store-types.js';
export {
  forkStoreContract,
  runForkContractCase,
  type ForkContractCase,
  type ForkContractInitializer,
  type ForkContractStore,
} from '../forks/contract.js';
export { kbStoreContract, runKbContractCase, type KbContractCase, type KbContractInitializer, type KbContractStore } from '../kb/contract.js';
export {
  promptStoreContract,
  runPromptContractCase,
  type PromptContractCase,
  type PromptContractInitializer,
  type PromptContractStore,
} from '../prompts/contract/index.js';
export {
  platformStoreContract,
  runPlatformContractCase,
  type PlatformContractCase,
  type PlatformContractInitializer,
  type PlatformContractStore,
} from '../platform/server/contract/index.js';
export { ScriptedModel, ScriptExhaustedError } from './scripted-model.js';
export { FunctionModel, type TurnFunction } from './function-model.js';
export { DeterministicModel, type DeterministicModelOptions, type ReceivedRequest } from './deterministic-model.js';
export { estimateTokens, type ScriptedToolCall, type Turn } from './turn.js';
