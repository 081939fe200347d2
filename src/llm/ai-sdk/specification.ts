/**
 * Which AI SDK language models agentkit adapts: the `v4` language-model specification of `@ai-sdk/provider` 4.x, the
 * one `ai` 7.x and its provider packages implement. A model of another version is refused at once, in one line,
 * rather than failing later on a shape that does not match.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { ConfigError } from '../../errors.js';

/** The `specificationVersion` agentkit supports. */
export const AI_SDK_SPECIFICATION_VERSION = 'v4';

/** Where the supported version comes from, for messages. */
const SUPPORTED = `'${AI_SDK_SPECIFICATION_VERSION}' (@ai-sdk/provider 4.x, as used by ai 7.x)`;

/**
 * `model` as a V4 language model. Throws ConfigError naming what was given and the supported version: for a model id
 * string, a value that is not a language model, or a model of another specification version.
 */
export function checkLanguageModel(model: unknown): LanguageModelV4 {
  if (typeof model === 'string') {
    throw new ConfigError(`aiSdkModel needs a language model object from a provider package (such as openai.chat('${model}')), not the model id '${model}'`);
  }
  if (model === null || typeof model !== 'object')
    throw new ConfigError(`aiSdkModel needs an AI SDK language model, got ${model === null ? 'null' : typeof model}`);
  const candidate = model as Partial<Record<keyof LanguageModelV4, unknown>>;
  const name = `'${String(candidate.provider)}' model '${String(candidate.modelId)}'`;
  if (candidate.specificationVersion === undefined) {
    throw new ConfigError(
      `aiSdkModel needs an AI SDK language model (an object with specificationVersion, provider, modelId, doGenerate and doStream); this object has no specificationVersion`,
    );
  }
  if (candidate.specificationVersion !== AI_SDK_SPECIFICATION_VERSION) {
    throw new ConfigError(
      `aiSdkModel: unsupported AI SDK specification version ${JSON.stringify(candidate.specificationVersion)} (${name}); agentkit supports ${SUPPORTED}`,
    );
  }
  for (const key of ['provider', 'modelId'] as const) {
    if (typeof candidate[key] !== 'string' || candidate[key] === '') throw new ConfigError(`aiSdkModel: the language model has no ${key} string`);
  }
  for (const key of ['doGenerate', 'doStream'] as const) {
    if (typeof candidate[key] !== 'function') throw new ConfigError(`aiSdkModel: the ${name} has no ${key} method`);
  }
  return model as LanguageModelV4;
}
