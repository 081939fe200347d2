/**
 * The runners the local UI may resume, keyed by kind and name. Filled only by the application (`createUiApp`'s
 * `runners`) or the command line (`ui --agent`), never from a request. A paused execution is matched to its runner
 * by the root of its `agent_path` (see `runnerOfExecution`), so paused Swarms and Supervisors find their own runner
 * rather than the inner agent that wrote the latest row.
 */
import { runnerKind, runnerName, type RunnerKind } from '../runner-kind.js';
import type { DecisionOptions } from '../durability/decision.js';
import type { AgentResult, ChainResult, Resume } from '../types.js';

/** What the UI needs of a runner: a kind, a name, and `resume`. */
export interface ResumableRunner {
  name?: string;
  resume(executionId: string, options: { resumeValue?: Resume } & DecisionOptions): Promise<AgentResult | ChainResult>;
}

export class RunnerRegistry {
  private readonly byKey = new Map<string, ResumableRunner>();

  /** Register every runner; throws TypeError for a value that is not an Agent, Chain, Swarm or Supervisor. */
  constructor(runners: Iterable<unknown> = []) {
    for (const runner of runners) this.add(runner);
  }

  /** Register one runner under `<kind>:<name>`; a later runner with the same key replaces the earlier one. */
  add(runner: unknown): { kind: RunnerKind; name: string } {
    const kind = runnerKind(runner);
    if (!kind || typeof (runner as { resume?: unknown }).resume !== 'function') {
      throw new TypeError('a UI runner must be an Agent, Chain, Swarm or Supervisor (an object with run and resume)');
    }
    const name = runnerName(runner, kind);
    this.byKey.set(`${kind}:${name}`, runner as ResumableRunner);
    return { kind, name };
  }

  /** The runner registered for `kind` and `name`, or undefined. */
  get(kind: RunnerKind, name: string): ResumableRunner | undefined {
    return this.byKey.get(`${kind}:${name}`);
  }

  /** `<kind>:<name>` of every registered runner. */
  keys(): string[] {
    return [...this.byKey.keys()];
  }
}
