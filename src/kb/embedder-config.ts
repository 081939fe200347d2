/**
 * Which embedder a knowledge base uses. A new base takes the one given, else an OpenAI-compatible endpoint when
 * `AGENTKIT_KB_EMBEDDING_URL` and `AGENTKIT_KB_EMBEDDING_MODEL` are set, else the local HashingEmbedder. An existing
 * base records its embedder (kind, model, dimensions, base URL; never a key) and is reopened with the same one; the
 * key comes from `AGENTKIT_KB_EMBEDDING_API_KEY`, else `OPENAI_API_KEY`.
 */
import { ConfigError } from '../errors.js';
import { describeEmbedder, HashingEmbedder, sameEmbedder, type Embedder, type EmbedderSpec } from './embedder.js';
import { OpenAIEmbedder } from './openai-embedder.js';

export type Env = Record<string, string | undefined>;

/** The embedder for a base with no recorded one: `given`, else the environment's endpoint, else hashing. */
export function embedderForNewBase(env: Env, given?: Embedder): Embedder {
  if (given) return given;
  const url = env.AGENTKIT_KB_EMBEDDING_URL;
  const model = env.AGENTKIT_KB_EMBEDDING_MODEL;
  if (url && model) return new OpenAIEmbedder({ baseUrl: url, model, apiKey: apiKey(env) });
  if (url || model)
    throw new ConfigError(
      'set both AGENTKIT_KB_EMBEDDING_URL and AGENTKIT_KB_EMBEDDING_MODEL to use an embeddings endpoint (or neither for the local embedder)',
    );
  return new HashingEmbedder();
}

/**
 * The embedder for a base that recorded `spec`: `given` when it is the same embedder, else one rebuilt from the
 * record. Throws ConfigError when `given` differs from the record (vectors of two embedders cannot be compared).
 */
export function embedderForRecorded(name: string, spec: EmbedderSpec, env: Env, given?: Embedder): Embedder {
  if (given) {
    const candidate = given.spec;
    const sameDims = candidate.dimensions === 0 || spec.dimensions === 0 || candidate.dimensions === spec.dimensions;
    if (!sameEmbedder({ ...candidate, dimensions: 0 }, { ...spec, dimensions: 0 }) || !sameDims) {
      throw new ConfigError(
        `knowledge base '${name}' was built with the ${describeEmbedder(spec)} embedder, not ${describeEmbedder(candidate)}: use that embedder, or clear the base first`,
      );
    }
    return given;
  }
  if (spec.kind === 'hashing') return new HashingEmbedder(spec.dimensions);
  if (spec.kind === 'openai' && spec.base_url)
    return new OpenAIEmbedder({ baseUrl: spec.base_url, model: spec.model, apiKey: apiKey(env), dimensions: spec.dimensions || undefined });
  throw new ConfigError(`knowledge base '${name}' was built with the ${describeEmbedder(spec)} embedder: pass that embedder to open it`);
}

function apiKey(env: Env): string | undefined {
  return env.AGENTKIT_KB_EMBEDDING_API_KEY || env.OPENAI_API_KEY || undefined;
}
