/**
 * How a rerun treats the model and the tools.
 *
 * Model (`mode`): `live` calls the model on every turn; `recorded` (the default) answers each model call with the
 * response the trace recorded for that turn as long as the request (model, messages, tools, sampling settings)
 * matches the recorded one, and from the first mismatch calls the model for real (`onMiss: 'live'`, the default) or
 * stops with a ReplayError (`onMiss: 'error'`). So "change the prompt, see what changes" costs nothing up to the
 * first call the change affects, and an unchanged rerun calls no model at all.
 *
 * Tools, in every mode, by their `replay_class`: `read_only` tools run; `idempotent` and `side_effecting` tools are
 * answered from the recorded output of the matching call (same tool, same arguments) and never executed unless
 * `allowSideEffects` is true. Such a call with no recorded match stops the rerun with a ReplayError naming the tool.
 * A tool override (`withToolOverride`) answers before any of this.
 */
import type { ReplayMode } from '../../generated/types/resources.js';

export type { ReplayMode };

export const REPLAY_MODES: readonly ReplayMode[] = ['live', 'recorded'];

export const DEFAULT_REPLAY_MODE: ReplayMode = 'recorded';

export interface DeterminismOptions {
  /** What a recorded-mode miss does: go live from there (default) or stop with a ReplayError. */
  onMiss?: 'live' | 'error';
  /** Execute `idempotent` and `side_effecting` tools for real (default false: answered from the trace). */
  allowSideEffects?: boolean;
}

export interface Determinism {
  mode: ReplayMode;
  onMiss: 'live' | 'error';
  allowSideEffects: boolean;
}
