/** How safe a tool is to run again during replay: `read_only`, `idempotent` or `side_effecting` (the default). */
import { ConfigError } from '../errors.js';
import type { ReplayClass } from '../../generated/types/resources.js';

export type { ReplayClass };

export const REPLAY_CLASSES: readonly ReplayClass[] = ['read_only', 'idempotent', 'side_effecting'];

export const DEFAULT_REPLAY_CLASS: ReplayClass = 'side_effecting';

/** The replay class, defaulted; anything else than the three names is a ConfigError naming the tool. */
export function replayClassOf(value: unknown, toolName: string): ReplayClass {
  if (value === undefined || value === null) return DEFAULT_REPLAY_CLASS;
  if (typeof value === 'string' && (REPLAY_CLASSES as readonly string[]).includes(value)) return value as ReplayClass;
  throw new ConfigError(`tool '${toolName}': replay_class must be one of ${REPLAY_CLASSES.join(', ')}, got ${JSON.stringify(value)}`);
}
