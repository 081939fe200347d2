/**
 * Guardrails by name, like tools: they join the current registry when constructed, and an agent rebuilt from a trace
 * finds its guardrails here by name. The default registry is process-global; `withGuardrailRegistry` makes another
 * current for a job. Last registration of a name wins.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Guardrail } from './guardrail.js';

export class GuardrailRegistry {
  private readonly guardrails = new Map<string, Guardrail>();

  /** `parent`: consulted for names this registry does not hold. */
  constructor(private readonly parent?: GuardrailRegistry) {}

  /** Add or replace the guardrail registered under its name. */
  register(guardrail: Guardrail): void {
    this.guardrails.set(guardrail.name, guardrail);
  }

  /** The guardrail registered under `name` here or in a parent. */
  get(name: string): Guardrail | undefined {
    return this.guardrails.get(name) ?? this.parent?.get(name);
  }

  /** Every name visible from this registry, sorted. */
  names(): string[] {
    return [...new Set([...(this.parent?.names() ?? []), ...this.guardrails.keys()])].sort();
  }
}

/** The process-global default registry. */
export const defaultGuardrailRegistry = new GuardrailRegistry();

const current = new AsyncLocalStorage<GuardrailRegistry>();

/** The registry guardrails join and are looked up in. */
export function currentGuardrailRegistry(): GuardrailRegistry {
  return current.getStore() ?? defaultGuardrailRegistry;
}

/** Run `fn` with `registry` current. */
export function withGuardrailRegistry<T>(registry: GuardrailRegistry, fn: () => T): T {
  return current.run(registry, fn);
}
