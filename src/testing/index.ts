/** `agentkit/testing`: helpers for testing agents deterministically, with no API key and no network. */
export { TimeoutError, withTimeout } from './timeout.js';
export {
  checkpointerContract,
  runContractCase,
  type CheckpointerContractInitializer,
  type ContractCase,
  type ContractStore,
} from '../durability/contract/index.js';
