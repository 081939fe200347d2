/** The execution scope executors run steps in, and the one way to persist a pause. See ./scope.ts for the protocol. */
export {
  bindResumeValue,
  childScope,
  currentScope,
  joinAgentPath,
  runInScope,
  withoutResumeValue,
  type ExecutionScope,
} from './scope.js';
export { pendingSummary, recordInterrupt, type InterruptedStep } from './record-interrupt.js';
