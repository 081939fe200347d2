/**
 * `agent.fork(executionId, options)`: a new execution branched from a checkpoint of an agent run (default its last
 * executed step; never the terminal row). With `input` the branch is a fresh conversation asking that instead; without,
 * it continues the restored history (balanced: calls that had not run are answered with a note) from the checkpoint's
 * turn: a turn row re-issues its model call, a tool row asks the model again after that turn's results. The branch
 * starts with a `__fork_origin__` row whose `parent_checkpoint_id` names the source checkpoint, and writes its own
 * terminal row. The source execution is not touched.
 */
import { randomUUID } from 'node:crypto';
import type { CheckpointWrite } from '../../durability/checkpointer.js';
import { ChainCheckpointError } from '../../durability/errors.js';
import { FORK_ORIGIN, latestForkable, restoreIfMissing } from '../../durability/run-end.js';
import { balanceToolMessages } from './balance.js';
import { firstUserInput, placeRun, type DurableAgent, type Plan } from './plan.js';
import { loopState, savedMessages } from './restore.js';
import { agentStepOf, turnState } from './rows.js';

export interface AgentForkOptions {
  /** The checkpoint to branch from (default: the last executed step of the run; never the terminal row). */
  checkpointId?: string | null;
  /** Ask this instead: the branch is a fresh conversation (system prompt, input). Without it the saved history continues. */
  input?: string;
  context?: unknown;
  /** The branch's execution id (default a new uuid); refused when it already has checkpoints. */
  branchExecutionId?: string;
  signal?: AbortSignal;
}

/** The plan of a fork and its origin row (written before the branch runs). */
export async function planFork(agent: DurableAgent, executionId: string, options: AgentForkOptions): Promise<{ plan: Plan; origin: CheckpointWrite }> {
  const checkpointer = agent.checkpointer ?? placeRun(agent, executionId).checkpointer;
  if (!checkpointer)
    throw new ChainCheckpointError(`agent '${agent.name}' has no checkpointer, so there is nothing to fork; construct it with { checkpointer }`);
  if (options.input !== undefined && typeof options.input !== 'string') throw new ChainCheckpointError(`fork input of agent '${agent.name}' must be a string`);
  await restoreIfMissing(checkpointer, executionId);
  const base = await latestForkable(checkpointer, executionId, { checkpointId: options.checkpointId });
  if (!base) {
    const which = options.checkpointId != null ? ` / checkpoint '${options.checkpointId}'` : '';
    throw new ChainCheckpointError(`No checkpoint found to fork for execution '${executionId}'${which}: the run holds no executed step to branch from`);
  }
  const step = agentStepOf(base);
  if (!step) {
    throw new ChainCheckpointError(
      `cannot fork agent '${agent.name}' from checkpoint '${base.checkpoint_id}': node '${base.node_id}' written by '${base.chain_name}' is not an agent step (turn:N or turn:N/tool:<name>)`,
    );
  }
  const forkId = options.branchExecutionId ?? randomUUID();
  if (options.branchExecutionId !== undefined && (await checkpointer.getLast(forkId))) {
    throw new ChainCheckpointError(`execution '${forkId}' already has checkpoints; give the branch a new branchExecutionId`);
  }
  const placement = { ...placeRun(agent, forkId), checkpointer };
  const originRow = (state: CheckpointWrite['state_snapshot'], turn: number): CheckpointWrite => ({
    execution_id: forkId,
    chain_name: agent.name,
    node_id: FORK_ORIGIN,
    node_index: turn,
    status: 'completed',
    step_type: 'fork_origin',
    parent_checkpoint_id: base.checkpoint_id,
    state_snapshot: state,
    iteration: turn,
    node_input: { source_execution_id: executionId, source_checkpoint_id: base.checkpoint_id, input: options.input ?? null },
    agent_path: placement.agentPath,
  });
  if (options.input !== undefined) {
    return { plan: { placement, start: { kind: 'input', input: options.input, history: [] } }, origin: originRow({ input: options.input }, 0) };
  }
  const messages = balanceToolMessages(savedMessages(base));
  // A tool row's turn already has the model's answer (its calls): the branch asks the model again after it.
  const savedTurn = typeof base.state_snapshot.turn === 'number' ? base.state_snapshot.turn : 0;
  const turn = step.kind === 'tool' ? step.turn + 1 : step.kind === 'turn' ? step.turn : savedTurn;
  return {
    plan: { placement, start: { kind: 'state', input: firstUserInput(messages), state: loopState(messages, turn) } },
    origin: originRow(turnState(messages, turn), turn),
  };
}
