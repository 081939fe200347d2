/**
 * Where a run writes (its placement) and how it starts (from the input, from a saved state, or by re-invoking a saved
 * tool call first). `run`, `resume`, `fork` and a chain-hosted resume all come down to one Plan that the Agent executes.
 */
import { randomUUID } from 'node:crypto';
import type { Checkpointer } from '../../durability/checkpointer.js';
import type { Message, ToolCall } from '../../llm/messages.js';
import { currentScope, joinAgentPath } from '../../scope/scope.js';
import type { PendingInterrupt, Resume } from '../../types.js';
import type { RecordedDecision } from '../../durability/decision.js';
import type { LoopState } from '../run-state.js';

/** What the durable layer needs of an Agent. */
export interface DurableAgent {
  readonly name: string;
  readonly checkpointer: Checkpointer | null;
  /** The path segment of this agent: `agent:<name>` unless relabelled (`worker:<role>`). */
  readonly agentPathLabel: string;
  hasTool(name: string): boolean;
}

/** Where a run's rows go. */
export interface Placement {
  executionId: string;
  checkpointer: Checkpointer | null;
  /** The agent's own path (tools run under `<agentPath>/tool:<name>`). */
  agentPath: string;
  /**
   * True when the run owns its execution and writes the terminal row. A run that joined an enclosing scope's
   * execution (a Chain node, a Swarm, a Supervisor) leaves the terminal row to that runner: a `completed` row of the
   * agent in the middle of a chain's execution would make the chain's own resume raise AlreadyResumed.
   */
  owner: boolean;
}

/** How a run starts. */
export type Start =
  | { kind: 'input'; input: string; history: readonly Message[] }
  | { kind: 'state'; input: string; state: LoopState }
  /** `checkpointed`: the call already has its checkpoint (the decision row of its claimed pause): none is written again. */
  | {
      kind: 'tool';
      input: string;
      state: LoopState;
      call: ToolCall;
      resume: { value: Resume; claimed: PendingInterrupt | null; decision?: RecordedDecision | null } | null;
      checkpointed?: boolean;
    };

export interface Plan {
  placement: Placement;
  start: Start;
}

/**
 * The placement of a run of `agent`: inside an enclosing scope whose execution it joins (no `executionId`, or the
 * scope's), the scope's execution id, the scope's checkpointer (else the agent's), and the path
 * `<scope path>/<label>`; otherwise its own execution (`executionId` or a new uuid) under path `<label>`.
 */
export function placeRun(agent: DurableAgent, executionId: string | undefined): Placement {
  const scope = currentScope();
  const id = executionId ?? scope?.executionId ?? randomUUID();
  const joined = scope !== undefined && scope.executionId === id;
  return {
    executionId: id,
    // Joined, the rows go where the execution's runner writes them (its lease's fenced checkpointer, docs/adr/0015).
    checkpointer: (joined ? scope.checkpointer : null) ?? agent.checkpointer ?? scope?.checkpointer ?? null,
    agentPath: joined ? joinAgentPath(scope.agentPath, agent.agentPathLabel) : agent.agentPathLabel,
    owner: !joined,
  };
}

/** The text of the first user message (the run's original input), or ''. */
export function firstUserInput(messages: readonly Message[]): string {
  const first = messages.find((m) => m.role === 'user');
  return first && typeof first.content === 'string' ? first.content : '';
}
