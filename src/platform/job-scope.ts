/**
 * `jobScope(options, fn)`: request isolation for a process serving many jobs. Inside `fn` (and everything it awaits
 * or starts) the Platform connection is the job's (fields it omits inherit the process-global connection), tools are
 * looked up in a job-local registry overlaying the global one (the job's win on a name clash; tools created inside
 * stay job-local), spans carry the job's project id (`agentkit.project_id`), and the normalize/framework flags are
 * the job's. Concurrent jobs never see each other's state: each is its own AsyncLocalStorage frame.
 */
import { registerSecret } from '../config/secrets.js';
import { ToolRegistry, defaultToolRegistry, withToolRegistry } from '../tools/registry.js';
import type { Tool } from '../tools/tool.js';
import { resolveConnection } from './current-connection.js';
import { loadCredentials, normalizeTarget } from './credentials.js';
import { installEvalExport } from './eval-outbox.js';
import { jobStorage, type JobFrame } from './job-context.js';
import { flushLeftovers, installReplication } from './replication.js';
import { installClaimArbiter } from './claim-arbiter.js';
import { installRestore, restoreEnabled } from './restore.js';

export interface JobScopeOptions {
  apiKey?: string;
  target?: string;
  project?: string;
  /** Tools visible only to this job, overlaying the global registry. */
  tools?: ReadonlyArray<Tool>;
  /**
   * Normalize the spans written inside the job: agentkit's canonical attribute keys are added next to the keys other
   * instrumentations use (`tool.name` -> `agentkit.tool.name`, ...; see tracing/normalize.ts). Default: off.
   */
  normalize?: boolean;
  /** The framework the job runs (`langgraph`, ...): recorded as `agentkit.framework` on the root span of its traces. */
  framework?: string;
}

/** Run `fn` as one job; returns what it returns. */
export function jobScope<T>(options: JobScopeOptions, fn: () => T): T {
  if (options.apiKey) registerSecret(options.apiKey);
  installReplication();
  installClaimArbiter();
  installRestore();
  installEvalExport();
  const frame: JobFrame = {
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.target ? { target: normalizeTarget(options.target) } : {}),
    ...(options.project ? { project: options.project } : {}),
    ...(options.normalize !== undefined ? { normalize: options.normalize } : {}),
    ...(options.framework !== undefined ? { framework: options.framework } : {}),
  };
  const registry = new ToolRegistry(defaultToolRegistry);
  for (const tool of options.tools ?? []) registry.register(tool);
  return withToolRegistry(registry, () => jobStorage.run(frame, fn));
}

/**
 * Run `fn` connected with the saved credentials (environment first, then the credentials file) when the process is
 * not connected already: how `agentkit` commands that restore or replicate (resume) use `agentkit connect`'s
 * credentials for their own work, scoped to that work, without connecting the scripts they load process-wide. Like
 * `connect()`, it flushes rows a previous process left unsent (stores opened inside flush when they open).
 */
export function withSavedConnection<T>(env: Record<string, string | undefined>, fn: () => T): T {
  const restoreFromPlane = restoreEnabled(env);
  const saved = resolveConnection() ? null : loadCredentials({ env });
  const scoped = () => jobStorage.run({ ...jobStorage.getStore(), restoreFromPlane }, fn);
  if (!saved) return scoped();
  return jobScope({ apiKey: saved.apiKey, target: saved.target, ...(saved.project ? { project: saved.project } : {}) }, () => {
    // The command's connection starts like `connect()`: rows a previous process left unsent go out off its path.
    flushLeftovers();
    return scoped();
  });
}
