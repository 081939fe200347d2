/**
 * A runner definition's key (docs/adr/0050): `<kind>:<name>#<fingerprint>`, the fingerprint a short hash of the kind,
 * the name and the definition's parts (an agent's tool names, a chain's node ids, a swarm's members and their tools, a
 * supervisor's workers and their tools). Recorded on an execution's lease when a run takes it, so that a recovery
 * sweep continues only executions of a definition it serves: another service, or another version of this one,
 * sharing the store does not match.
 *
 * Read from the runner's shape, not its class (a target may load another copy of agentkit).
 */
import { createHash } from 'node:crypto';

interface Named {
  name?: unknown;
  tools?: unknown;
}

function toolNames(agent: Named | undefined): string[] {
  const tools = Array.isArray(agent?.tools) ? (agent.tools as Named[]) : [];
  return tools.map((tool) => String(tool?.name)).sort();
}

/** The parts of `runner`'s definition the fingerprint covers, by kind. */
function definitionParts(runner: Record<string, unknown>): string[] {
  switch (runner.kind) {
    case 'agent':
      return toolNames(runner as Named).map((name) => `tool:${name}`);
    case 'chain':
      return (Array.isArray(runner.nodeIds) ? (runner.nodeIds as unknown[]) : []).map((id) => `node:${String(id)}`).sort();
    case 'swarm': {
      const members = runner.agents instanceof Map ? [...(runner.agents as Map<string, Named>).entries()] : [];
      return members.map(([name, agent]) => `member:${name}:${toolNames(agent).join(',')}`).sort();
    }
    case 'supervisor': {
      const workers = Array.isArray(runner.workers) ? (runner.workers as Array<{ role?: unknown; agent?: Named }>) : [];
      return workers.map((worker) => `worker:${String(worker.role)}:${toolNames(worker.agent).join(',')}`).sort();
    }
    default:
      return [];
  }
}

/** The last key made per runner object, with the definition text it hashed (a chain may gain nodes later). */
const made = new WeakMap<object, { text: string; key: string }>();

/** The key of `runner` (an Agent, Chain, Swarm or Supervisor), or null when it is none of them. */
export function runnerKey(runner: unknown): string | null {
  if (runner === null || typeof runner !== 'object') return null;
  const r = runner as Record<string, unknown>;
  if (typeof r.kind !== 'string' || typeof r.name !== 'string') return null;
  const text = JSON.stringify([r.kind, r.name, definitionParts(r)]);
  // Every run asks for its runner's key: the hash is made once per definition, not per run.
  const known = made.get(runner);
  if (known?.text === text) return known.key;
  const key = `${r.kind}:${r.name}#${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
  made.set(runner, { text, key });
  return key;
}
