/**
 * A model that answers with canned turns, in order. When the script runs out the next call fails with
 * ScriptExhaustedError instead of repeating the last turn (which would loop a tool-calling agent until
 * `maxIterations`, hiding the real mistake): a test that needs N turns scripts N turns.
 */
import { LLMProviderError } from '../llm/errors.js';
import type { ChatRequest } from '../llm/types.js';
import { DeterministicModel, type DeterministicModelOptions } from './deterministic-model.js';
import type { Turn } from './turn.js';

/** A scripted model was called more times than it has turns. */
export class ScriptExhaustedError extends LLMProviderError {
  constructor(call: number, turns: number) {
    super(
      'scripted',
      null,
      `ScriptedModel: call ${call} but the script has ${turns} turn${turns === 1 ? '' : 's'}; script one turn per model call (a tool-calling agent needs a final text turn)`,
      { attempts: 1 },
    );
  }
}

/** A deterministic model that plays `turns` in order: strings are text turns, objects may call tools. */
export class ScriptedModel extends DeterministicModel {
  readonly provider = 'scripted';
  private readonly turns: readonly Turn[];

  constructor(turns: readonly Turn[], options: DeterministicModelOptions = {}) {
    super('scripted-model', options);
    this.turns = [...turns];
  }

  /** Turns not yet played. */
  get remaining(): number {
    return Math.max(0, this.turns.length - this.calls);
  }

  protected async turnFor(_request: ChatRequest, call: number): Promise<Turn> {
    const turn = this.turns[call - 1];
    if (turn === undefined) throw new ScriptExhaustedError(call, this.turns.length);
    return turn;
  }
}
