/**
 * `delegate_to_<role>(task)` tools: the supervisor's model hands a task to a worker and reads its answer. Each run of
 * a supervisor gets its own set, bound to that run (its execution, the claimed pause of a resume).
 *
 * What a delegation does, in order:
 *   1. The same delegation already completed in this execution (same role, same task, same position among the run's
 *      delegations to that role; recorded on the worker's terminal row): its answer is returned, the worker does not
 *      run again. This is what lets a resumed supervisor re-issue its model calls without re-running finished workers.
 *   2. The worker has rows under `<supervisor path>/worker:<role>` and its newest one is not a terminal row: it stopped
 *      part-way (paused, or its process died) and is resumed (`agentPathPrefix`); a pause resumes with the claimed
 *      Resume value of this supervisor resume.
 *   3. Otherwise the worker runs the task fresh.
 * A worker that pauses pauses the supervisor (WorkerPaused); one that completes or fails gets a terminal row at its
 * path, so a later delegation to that role starts fresh instead of resuming it. A worker's failure is reported to
 * the model as the tool's error; durability errors (a lost race, an unusable checkpoint) fail the supervisor run.
 */
import { createHash } from 'node:crypto';
import type { Checkpointer } from '../durability/checkpointer.js';
import { AgentkitError } from '../errors.js';
import { isPlainObject } from '../durability/json.js';
import { isRunEnd, runEndRow } from '../durability/run-end.js';
import { bindResumeValue, childScope } from '../scope/scope.js';
import { FunctionTool } from '../tools/function-tool.js';
import type { Tool } from '../tools/tool.js';
import type { AgentResult, PendingInterrupt, Resume } from '../types.js';
import type { MemberAgent } from '../multi/member.js';
import { newestRow, underPath } from '../multi/rows.js';
import { DelegationAborted, WorkerPaused } from './signals.js';

/** A worker as the supervisor sees it. */
export interface WorkerSpec {
  role: string;
  description: string;
  /** The worker agent relabelled `worker:<role>`. */
  agent: MemberAgent;
}

/** One supervisor run (or resume) as its delegate tools see it. */
export interface DelegationRun {
  executionId: string;
  checkpointer: Checkpointer | null;
  /** `supervisor:<name>` (under the enclosing path when nested): workers run at `<basePath>/worker:<role>`. */
  basePath: string;
  context: unknown;
  signal: AbortSignal | undefined;
  /** The claimed pause of a supervisor resume, handed to the worker that paused; null once used. */
  resume: { value: Resume; claimed: PendingInterrupt } | null;
  /** Delegations per role so far in this run. */
  counts: Map<string, number>;
  /** Tokens the workers used in this run. */
  workerTokens: number;
}

/** The tool name of a delegation to `role`. */
export function delegateToolName(role: string): string {
  return `delegate_to_${role}`;
}

const PARAMETERS = {
  type: 'object',
  properties: { task: { type: 'string', description: 'What the worker should do, with everything it needs to know.' } },
  required: ['task'],
  additionalProperties: false,
} as const;

/** One delegate tool per worker, bound to `run`. */
export function delegateTools(supervisor: string, workers: readonly WorkerSpec[], run: DelegationRun): Tool[] {
  return workers.map(
    (worker) =>
      new FunctionTool({
        name: delegateToolName(worker.role),
        description: `Delegate a task to the ${worker.role} worker: ${worker.description}`,
        parameters: PARAMETERS as never,
        registry: false,
        execute: (args: { task: string }) => delegate(supervisor, worker, run, args.task),
      }),
  );
}

async function delegate(supervisor: string, worker: WorkerSpec, run: DelegationRun, task: string): Promise<string> {
  const position = run.counts.get(worker.role) ?? 0;
  run.counts.set(worker.role, position + 1);
  const key = delegationKey(supervisor, worker.role, position, task);
  const checkpointer = run.checkpointer;
  const workerPath = `${run.basePath}/worker:${worker.role}`;
  if (checkpointer) {
    const done = await newestRow(
      checkpointer,
      run.executionId,
      (row) => row.agent_path === workerPath && isRunEnd(row) && isPlainObject(row.node_input) && row.node_input.delegation === key,
    );
    if (done && done.run_status === 'completed' && typeof done.state_snapshot.output === 'string') return done.state_snapshot.output;
  }
  const last = checkpointer ? await newestRow(checkpointer, run.executionId, (row) => underPath(row.agent_path, workerPath)) : null;
  const options = { context: run.context, signal: run.signal };
  let result: AgentResult;
  try {
    // Workers run one level under the supervisor, not under the delegate tool's path, and never see a Resume value
    // meant for someone else.
    result = await childScope({ agentPath: run.basePath, resumeValue: null, resumedInterrupt: null }, () => {
      if (!last || isRunEnd(last)) return worker.agent.run(task, options);
      const prefixed = { ...options, agentPathPrefix: workerPath };
      if (last.status === 'interrupted' && run.resume) {
        const { value, claimed } = run.resume;
        run.resume = null;
        return bindResumeValue(value, claimed, () => worker.agent.resume(run.executionId, prefixed));
      }
      return worker.agent.resume(run.executionId, prefixed);
    });
  } catch (error) {
    if (error instanceof AgentkitError && ['already_resumed', 'chain_checkpoint_error', 'chain_resume_error'].includes(error.code)) {
      throw new DelegationAborted(worker.role, error);
    }
    if (checkpointer && !run.signal?.aborted) {
      await checkpointer.put({
        ...runEndRow({
          executionId: run.executionId,
          chainName: worker.agent.name,
          status: 'failed',
          state: { task },
          nodeIndex: position,
          agentPath: workerPath,
          error,
        }),
        node_input: { delegation: key, task },
      });
    }
    throw error;
  }
  run.workerTokens += result.tokens_used;
  if (result.status === 'paused') throw new WorkerPaused(worker.role, result);
  if (checkpointer) {
    // One row records both that the worker finished (a later delegation starts it fresh) and its answer (a re-run of
    // the supervisor returns it without running the worker again).
    await checkpointer.put({
      ...runEndRow({
        executionId: run.executionId,
        chainName: worker.agent.name,
        status: 'completed',
        state: { task, output: result.output },
        nodeIndex: position,
        agentPath: workerPath,
      }),
      node_input: { delegation: key, task },
    });
  }
  return result.output;
}

/** The idempotency key of the `position`-th delegation of `task` to `role` in a run of `supervisor`. */
function delegationKey(supervisor: string, role: string, position: number, task: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([supervisor, role, position, task]))
    .digest('hex');
  return `delegation:${digest}`;
}
