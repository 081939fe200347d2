/** Helpers shared by the prompt-store contract cases. */
import { PromptRegistry } from '../registry.js';
import type { PromptStore } from '../store/types.js';

/** A registry on `store` (the cases check the registry's behaviour on the store under test). Not closed by the cases. */
export function registryOn(store: PromptStore): PromptRegistry {
  return new PromptRegistry({ promptStore: store });
}

/** Times as the family stores them: ISO-8601 UTC with microseconds. */
export const STORED_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** `fn`'s rejection (fails when it resolves). */
export async function rejection(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
