/**
 * What `ForkedReplay.modifyPrompt` accepts, turned into the rerun's system prompt. Replay sits beside the prompt
 * registry in the feature layer and may not import it, so a registry version is taken by its shape: a reference made
 * by `registry.ref(...)` (the runtime's `RegistryPrompt`), or a loaded version (`name`, `version`, `render(vars)`).
 * Both become a `RegistryPrompt`, so the rerun's agent span records which version ran, as a normal run's does.
 */
import { isRegistryPrompt, type RegistryPrompt } from '../agent/registry-prompt.js';
import { ConfigError } from '../errors.js';

/** A version loaded from a prompt registry (`await registry.load(name, { version })`), by its shape. */
export interface LoadedPromptVersion {
  readonly name: string;
  readonly version: number;
  render(variables?: Readonly<Record<string, unknown>>): string;
}

function isLoadedVersion(value: unknown): value is LoadedPromptVersion {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<LoadedPromptVersion>;
  return typeof candidate.name === 'string' && typeof candidate.version === 'number' && typeof candidate.render === 'function';
}

/** The system prompt a rerun uses for `prompt`; throws ConfigError for anything else. */
export function promptModification(prompt: unknown, variables: Readonly<Record<string, unknown>>): string | RegistryPrompt {
  if (typeof prompt === 'string' || isRegistryPrompt(prompt)) return prompt;
  if (isLoadedVersion(prompt)) {
    // Render now: a missing variable is reported by modifyPrompt, not half-way into the rerun.
    const text = prompt.render(variables);
    const { name, version } = prompt;
    return { registryPrompt: true, promptName: name, resolve: async () => ({ text, name, version }) };
  }
  throw new ConfigError(
    'modifyPrompt needs the new system prompt as a string, a registry reference (registry.ref(name, { version })) or a loaded version (registry.load(name, { version }))',
  );
}
