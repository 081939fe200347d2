/** Supervisor: a model delegating tasks to worker agents, durable across pauses and crashes inside workers. */
export {
  DEFAULT_MAX_DELEGATION_ROUNDS,
  Supervisor,
  type SupervisorOptions,
  type SupervisorResumeOptions,
  type SupervisorRunOptions,
  type Worker,
} from './supervisor.js';
export { delegateToolName } from './delegate.js';
