/**
 * Driving one planned run inside the agent's execution scope: checkpoints at the loop's boundaries (through the run
 * hooks), the first re-invoked tool of a resume, pauses turned into a `paused` outcome (the interrupted checkpoint
 * and the pending row in one transaction), and the terminal row when the run owns its execution: `completed` at the
 * end, `failed` when an error escapes (then the error propagates), none on a pause.
 */
import type { Checkpointer } from '../../durability/checkpointer.js';
import { ChainCheckpointError } from '../../durability/errors.js';
import { stopAtBoundary, throwIfLeaseLost } from '../../durability/fenced.js';
import { isInterruptSignal } from '../../durability/interrupt-signal.js';
import { runEndRow } from '../../durability/run-end.js';
import { warnTerminalRowLost } from '../../durability/terminal-row-warning.js';
import { hasGuardrails, runGuardrails } from '../../guardrails/run.js';
import type { ToolCall } from '../../llm/messages.js';
import { recordInterrupt } from '../../scope/record-interrupt.js';
import { bindResumeValue, runInScope } from '../../scope/scope.js';
import type { PendingInterruptSummary } from '../../types.js';
import { runToolLoop } from '../loop.js';
import type { AgentRun, LoopState, RunHooks } from '../run-state.js';
import { runToolCall } from '../tool-step.js';
import { balanceToolMessages } from './balance.js';
import type { Placement, Start } from './plan.js';
import { toolNodeId, toolPath, toolRow, toolState, turnRow, turnState, type AgentRows } from './rows.js';

export type RunOutcome = { status: 'completed'; output: string; state: LoopState } | { status: 'paused'; pending: PendingInterruptSummary; state: LoopState };

/**
 * Run `start` to an answer or a pause. `prepare` builds the opening state of an input start (input guardrails, system
 * prompt). The run's hooks are wrapped so the checkpoint of each boundary is written before the caller's hook runs.
 */
export function driveRun(run: AgentRun, placement: Placement, start: Start, prepare: () => Promise<LoopState>): Promise<RunOutcome> {
  const frame = { executionId: placement.executionId, checkpointer: placement.checkpointer, runnerName: run.agentName, agentPath: placement.agentPath };
  return runInScope(frame, async (): Promise<RunOutcome> => {
    const rows: AgentRows = { executionId: placement.executionId, agentName: run.agentName, agentPath: placement.agentPath };
    const checkpointer = placement.checkpointer;
    let inTool: { turn: number; call: ToolCall; messages: LoopState['messages'] } | null = null;
    // A tool re-invoked with a claimed decision already has its checkpoint: the decision row the claim wrote.
    let claimedToolRow = start.kind === 'tool' && start.checkpointed === true;
    const user = run.hooks;
    // Not async functions: a hook with nothing to wait for returns nothing, and the loop does not wait for it (each
    // promise costs an async hook call; see loop.ts).
    const hooks: RunHooks = {
      beforeTurn(r, state) {
        if (!checkpointer) return user.beforeTurn?.(r, state);
        // The turn's checkpoint is its step boundary: a run whose process shuts down stops here (docs/adr/0051),
        // before the model is asked, so another process asks it again. Tool rows are no such boundary: a tool
        // stopped there would read as crashed inside it.
        const written = checkpointer.put(turnRow(rows, state.messages, state.turn)).then(() => stopAtBoundary(checkpointer));
        return afterWrite(written, user.beforeTurn && (() => user.beforeTurn!(r, state)));
      },
      beforeToolCall(r, state, call) {
        // A tool re-invoked with a claimed decision writes no row first: its run still stops here once its lease is lost.
        if (claimedToolRow) throwIfLeaseLost(checkpointer);
        const write = checkpointer && !claimedToolRow ? checkpointer.put(toolRow(rows, state.messages, state.turn, call)) : undefined;
        claimedToolRow = false;
        // What a pause saves: the history as it stands before the call (nothing is appended until the call returns).
        inTool = { turn: state.turn, call, messages: state.messages };
        if (!write) return user.beforeToolCall?.(r, state, call);
        return afterWrite(write, user.beforeToolCall && (() => user.beforeToolCall!(r, state, call)));
      },
      afterToolCall(r, state, call, outcome) {
        inTool = null;
        return user.afterToolCall?.(r, state, call, outcome);
      },
    };
    run.hooks = hooks;
    let state: LoopState = { messages: [], turn: 0, toolCalls: [], tokensUsed: 0 };
    try {
      state = start.kind === 'input' ? await prepare() : structuredClone(start.state);
      // A re-invoked `endsRun` tool (a Swarm handoff) that succeeds ends the run as it would have in the loop.
      let ended: string | null = null;
      if (start.kind === 'tool') {
        const resume = start.resume;
        const call = () => runToolCall(run, state, start.call);
        const outcome = await (resume ? bindResumeValue(resume.value, resume.claimed, call) : call());
        // The turn's later calls were never dispatched: answer them with a note, then ask the model again.
        state.messages = balanceToolMessages(state.messages);
        if (outcome.ok && run.tools.get(start.call.name)?.endsRun === true) ended = outcome.content;
        else state.turn += 1;
      }
      const output = ended ?? (await runToolLoop(run, state));
      if (hasGuardrails(run.guardrails, 'output')) await runGuardrails(run.guardrails, 'output', output, run);
      if (placement.owner && checkpointer) {
        await checkpointer.put(
          runEndRow({
            executionId: rows.executionId,
            chainName: rows.agentName,
            status: 'completed',
            state: turnState(state.messages, state.turn),
            nodeIndex: state.turn + 1,
            iteration: state.turn,
            agentPath: rows.agentPath,
          }),
        );
      }
      return { status: 'completed', output, state };
    } catch (error) {
      const paused = inTool as { turn: number; call: ToolCall; messages: LoopState['messages'] } | null;
      if (isInterruptSignal(error) && paused) {
        const { turn, call } = paused;
        const pending = await recordInterrupt(error, {
          nodeId: toolNodeId(turn, call.name),
          nodeIndex: turn,
          stateSnapshot: toolState(paused.messages, turn, call),
          nodeInput: call.arguments,
          iteration: turn,
          agentPath: toolPath(rows.agentPath, call.name),
        });
        return { status: 'paused', pending, state };
      }
      const failure = isInterruptSignal(error)
        ? new ChainCheckpointError(
            `agent '${run.agentName}': interrupt('${error.reason}') was raised outside a tool call (in a guardrail, the system prompt or a hook); only a tool can pause an agent`,
            { cause: error },
          )
        : error;
      if (placement.owner && checkpointer) await writeFailed(checkpointer, rows, state, failure);
      throw failure;
    }
  });
}

/**
 * The failed terminal row. If writing it fails, the run's own error is still what the caller sees (a warning is
 * emitted): without the marker the run reads as crashed and resumes the same way, from its last real checkpoint.
 */
async function writeFailed(checkpointer: Checkpointer, rows: AgentRows, state: LoopState, error: unknown): Promise<void> {
  try {
    await checkpointer.put(
      runEndRow({
        executionId: rows.executionId,
        chainName: rows.agentName,
        status: 'failed',
        state: turnState(state.messages, state.turn),
        nodeIndex: state.turn + 1,
        iteration: state.turn,
        agentPath: rows.agentPath,
        error,
      }),
    );
  } catch (storeError) {
    warnTerminalRowLost(rows.executionId, storeError);
  }
}

/** A hook's promise: the checkpoint written, then the caller's own hook if it has one; resolves to nothing. */
function afterWrite(write: Promise<unknown>, next: (() => void | Promise<void>) | undefined): Promise<void> {
  return write.then(next ?? nothing);
}

function nothing(): void {}
