/** Errors of `agentkit migrate`. */
import { ConfigError } from '../errors.js';

/** A legacy source exists but cannot be imported (not SQLite, wrong tables, unreadable YAML); the message names it. */
export class LegacySourceError extends ConfigError {}
