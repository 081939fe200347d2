/**
 * Scorers by name. `evaluate()` and `agentkit eval run` take a list of names, Scorer objects and functions; names
 * resolve here with their options. An unknown name is an EvalError that lists every available name.
 */
import type { ChatModel } from '../llm/types.js';
import { contains, exactMatch, jsonValid, regexMatch } from './builtins.js';
import { EvalError } from './errors.js';
import { faithfulness } from './faithfulness.js';
import { llmJudge, type LlmJudgeOptions } from './llm-judge.js';
import type { Scorer, ScorerFunction } from './scorer.js';
import { scorer as fromFunction } from './scorer.js';

/** Every built-in scorer name. */
export const BUILTIN_SCORERS = ['exact_match', 'contains', 'regex_match', 'json_valid', 'llm_judge', 'faithfulness'] as const;

/** Options of the scorers named by string. */
export interface ScorerOptions {
  /** The model `llm_judge` and `faithfulness` use when named by string. */
  judgeModel?: ChatModel;
  /** `llm_judge` settings (criteria, rubric, scale, threshold). */
  llmJudge?: Omit<LlmJudgeOptions, 'model' | 'name'>;
  /** `faithfulness` pass threshold (default 0.7). */
  faithfulnessThreshold?: number;
  /** `regex_match` pattern (default: the case's `pattern`, else its expected output). */
  pattern?: string;
}

/** A scorer as `evaluate()` accepts it. */
export type ScorerSpec = string | Scorer | ScorerFunction;

/** Resolve scorer specs to scorers. Throws EvalError for an unknown name, a missing judge model, or duplicate names. */
export function resolveScorers(specs: ReadonlyArray<ScorerSpec>, options: ScorerOptions = {}): Scorer[] {
  if (!Array.isArray(specs) || specs.length === 0) throw new EvalError(`no scorers given; available: ${BUILTIN_SCORERS.join(', ')}`);
  const scorers = specs.map((spec, i) => resolveOne(spec, i, options));
  const seen = new Set<string>();
  for (const s of scorers) {
    if (seen.has(s.name)) throw new EvalError(`scorer '${s.name}' is listed twice`);
    seen.add(s.name);
  }
  return scorers;
}

function resolveOne(spec: ScorerSpec, index: number, options: ScorerOptions): Scorer {
  if (typeof spec === 'function') return wrap(() => fromFunction(spec.name || `custom_${index + 1}`, spec));
  if (spec && typeof spec === 'object' && typeof spec.name === 'string' && typeof spec.score === 'function') return spec;
  if (typeof spec !== 'string') throw new EvalError(`scorer ${index + 1} is neither a name, a Scorer ({ name, score }) nor a function`);
  switch (spec) {
    case 'exact_match':
      return exactMatch;
    case 'contains':
      return contains;
    case 'json_valid':
      return jsonValid;
    case 'regex_match':
      return wrap(() => regexMatch({ pattern: options.pattern }));
    case 'llm_judge':
      return wrap(() => llmJudge({ ...options.llmJudge, model: needModel(spec, options) }));
    case 'faithfulness':
      return wrap(() => faithfulness({ model: needModel(spec, options), threshold: options.faithfulnessThreshold }));
    default:
      throw new EvalError(`unknown scorer '${spec}'; available: ${BUILTIN_SCORERS.join(', ')}`);
  }
}

function needModel(name: string, options: ScorerOptions): ChatModel {
  if (!options.judgeModel) throw new EvalError(`scorer '${name}' needs a judge model: pass scorerOptions.judgeModel (SDK) or --judge-model (CLI)`);
  return options.judgeModel;
}

function wrap(build: () => Scorer): Scorer {
  try {
    return build();
  } catch (error) {
    throw error instanceof EvalError ? error : new EvalError((error as Error).message);
  }
}
