/** Errors of the prompt registry. */
import { ConfigError } from '../errors.js';

/**
 * A prompt cannot be registered or rendered as asked: a missing variable, an unknown fragment, a fragment cycle, a
 * bad name or label. The message names what was wrong. (Unknown prompts, versions and labels are NotFoundError.)
 */
export class PromptError extends ConfigError {}
