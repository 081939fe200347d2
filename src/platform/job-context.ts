/** The per-job frame of `jobScope`: defined in the base layer (../config/job-context.ts), where tracing reads it. */
export { currentJob, type JobFrame, jobStorage } from '../config/job-context.js';
