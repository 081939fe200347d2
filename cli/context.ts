/**
 * What every command receives: the standard streams and the environment, plus the working directory. Commands read
 * `env` and `cwd` from here, never from `process`, so the conformance suite can run them in-process side by side.
 */
import type { BaseContext } from 'clipanion';

export interface AgentkitContext extends BaseContext {
  /** Directory relative paths resolve against (default store path, targets, output files). */
  cwd: string;
}
