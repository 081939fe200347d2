/**
 * Tools by name. Tools join a registry when they are constructed; replay rebuilds an agent from a trace by looking
 * its tools up here by name. The process-global default registry is the one the spec names; a job scope can make
 * another registry current for the work it runs (`withToolRegistry`), typically an overlay whose lookups fall back to
 * the default, so tools created inside the job stay job-local. Last registration of a name wins.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tool } from './tool.js';

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  /** `parent`: consulted for names this registry does not hold (an overlay over the default registry). */
  constructor(private readonly parent?: ToolRegistry) {}

  /** Add or replace the tool registered under its name. */
  register(tool: Tool): void {
    this.tools.set(tool.name, tool);
  }

  /** Remove a name from this registry (not from its parent); true if it was there. */
  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  /** The tool registered under `name` here or in a parent. */
  get(name: string): Tool | undefined {
    return this.tools.get(name) ?? this.parent?.get(name);
  }

  /** Every name visible from this registry, sorted. */
  names(): string[] {
    return [...new Set([...(this.parent?.names() ?? []), ...this.tools.keys()])].sort();
  }
}

/** The process-global default registry. */
export const defaultToolRegistry = new ToolRegistry();

const current = new AsyncLocalStorage<ToolRegistry>();

/** The registry tools join and are looked up in: the one made current by `withToolRegistry`, else the default. */
export function currentToolRegistry(): ToolRegistry {
  return current.getStore() ?? defaultToolRegistry;
}

/** Run `fn` (and everything it awaits or starts) with `registry` current. */
export function withToolRegistry<T>(registry: ToolRegistry, fn: () => T): T {
  return current.run(registry, fn);
}
