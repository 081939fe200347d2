/**
 * The process-wide set of secret values agentkit knows about: provider API keys, the serve token, REST tool header
 * values, the Platform key. Whatever holds a secret registers it here once; the redactor masks every registered value
 * wherever it appears (error messages, HTTP error details, logs, checkpoints, spans), whatever its length or shape.
 *
 * This is one of the process-global defaults the architecture allows: secrets belong to the process, not to a request.
 */

/** Values shorter than this are not registered: masking a 1-3 character string would mangle ordinary text. */
export const MIN_SECRET_LENGTH = 4;

const known = new Set<string>();
const listeners = new Set<(value: string) => void>();

/**
 * Remember `value` as a secret (trimmed; empty and too-short values are ignored). Idempotent. Listeners (caches of
 * masking patterns) hear about each new value once.
 */
export function registerSecret(value: string | undefined | null): void {
  const secret = value?.trim();
  if (!secret || secret.length < MIN_SECRET_LENGTH || known.has(secret)) return;
  known.add(secret);
  for (const listener of listeners) listener(secret);
}

/** Every registered secret value, longest first (so a longer secret is masked before a shorter one inside it). */
export function knownSecrets(): string[] {
  return [...known].sort((a, b) => b.length - a.length);
}

/** Call `listener` for each secret registered from now on; returns a function that stops it. */
export function onSecretRegistered(listener: (value: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
