/**
 * Telling runners apart without `instanceof`: a target file may import another copy of agentkit than the CLI that
 * loads it (a project's own install next to a global one), so kinds are read from the object's shape. Runners that
 * declare `kind` ('agent' | 'chain' | 'swarm' | 'supervisor') are taken at their word.
 */
export type RunnerKind = 'agent' | 'chain' | 'swarm' | 'supervisor';

const KINDS: ReadonlySet<string> = new Set(['agent', 'chain', 'swarm', 'supervisor']);

/** The kind of runner `value` is, or null when it is none. */
export function runnerKind(value: unknown): RunnerKind | null {
  if (value === null || typeof value !== 'object') return null;
  const candidate = value as Record<string, unknown>;
  if (typeof candidate.run !== 'function') return null;
  if (typeof candidate.kind === 'string' && KINDS.has(candidate.kind)) return candidate.kind as RunnerKind;
  if (typeof candidate.addNode === 'function' && typeof candidate.connect === 'function') return 'chain';
  if (typeof candidate.stream === 'function' && 'llm' in candidate && Array.isArray(candidate.tools)) return 'agent';
  return null;
}

/** The runner's name (`name` property), or `fallback`. */
export function runnerName(value: unknown, fallback: string): string {
  const name = (value as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== '' ? name : fallback;
}
