/** The replay class of a runner's tool by name, across an Agent, a Swarm's members or a Supervisor's workers. */
import type { ReplayClass } from '../tools/replay-class.js';

interface ToolLike {
  name?: unknown;
  replayClass?: unknown;
}

function toolsOf(agent: unknown): ToolLike[] {
  const tools = (agent as { tools?: unknown } | null)?.tools;
  return Array.isArray(tools) ? (tools as ToolLike[]) : [];
}

/** Every tool the runner's agents carry (read from its shape, not its class). */
function runnerTools(runner: unknown): ToolLike[] {
  const r = runner as { agents?: unknown; workers?: unknown };
  if (r.agents instanceof Map) return [...(r.agents as Map<string, unknown>).values()].flatMap(toolsOf);
  if (Array.isArray(r.workers)) return (r.workers as Array<{ agent?: unknown }>).flatMap((worker) => toolsOf(worker.agent));
  return toolsOf(runner);
}

/** The replay class of `runner`'s tool `name`; null when it has no such tool. */
export function replayClassOf(runner: unknown, name: string): ReplayClass | null {
  const found = runnerTools(runner).find((tool) => tool.name === name);
  return found ? ((found.replayClass as ReplayClass | undefined) ?? 'side_effecting') : null;
}
