/**
 * What Swarm and Supervisor need of the agents they coordinate: the durable Agent's surface (see docs/durability.md),
 * named structurally so a member may come from another copy of agentkit than the coordinator (a target file loaded
 * next to a global CLI), as runner kinds are (src/runner-kind.ts).
 */
import type { Tool } from '../tools/tool.js';
import type { AgentResult, Resume } from '../types.js';

export interface MemberRunOptions {
  context?: unknown;
  signal?: AbortSignal;
}

export interface MemberResumeOptions extends MemberRunOptions {
  resumeValue?: Resume | null;
  /** Scope shape detection to rows under this agent path (one member's subtree of a shared execution). */
  agentPathPrefix?: string;
}

/** An Agent as a Swarm member or a Supervisor worker. */
export interface MemberAgent {
  readonly name: string;
  readonly tools: readonly Tool[];
  /** Run inside the enclosing execution scope: its execution id, checkpointer and agent path. */
  run(input: string, options?: MemberRunOptions): Promise<AgentResult>;
  resume(executionId: string, options?: MemberResumeOptions): Promise<AgentResult>;
  /** A copy with these options replaced (tools added, the agent path label changed). */
  clone(patch: { tools?: readonly Tool[]; agentPathLabel?: string }): MemberAgent;
}

/** True for an object that looks like an Agent a coordinator can drive. */
export function isMemberAgent(value: unknown): value is MemberAgent {
  const candidate = value as Partial<Record<keyof MemberAgent, unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.name === 'string' &&
    Array.isArray(candidate.tools) &&
    typeof candidate.run === 'function' &&
    typeof candidate.resume === 'function' &&
    typeof candidate.clone === 'function'
  );
}
