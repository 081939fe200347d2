/**
 * An embedder speaking the OpenAI embeddings protocol (`POST <base_url>/embeddings` with `{ model, input: [...] }`,
 * answered with `{ data: [{ index, embedding }] }`): OpenAI itself, Azure-style gateways, Ollama, vLLM, LocalAI, TEI.
 * Requests are batched, retried on 429/5xx like model calls, and the key never appears in errors or in the knowledge
 * base (only the base URL and model are recorded).
 */
import { ConfigError } from '../errors.js';
import { LLMProviderError } from '../llm/errors.js';
import { postJson, readText, safeUrl } from '../llm/http.js';
import { DEFAULT_RETRY_POLICY } from '../llm/retry.js';
import { normalise, type Embedder, type EmbedderSpec } from './embedder.js';

export interface OpenAIEmbedderOptions {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Model name, e.g. `text-embedding-3-small`. */
  model: string;
  /** Bearer key (omit for local servers that need none). */
  apiKey?: string;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Per request, in ms (default 60 000). */
  timeoutMs?: number;
  /** Expected vector size; learned from the first response when omitted. */
  dimensions?: number;
}

const PROVIDER = 'embeddings';

export class OpenAIEmbedder implements Embedder {
  private readonly options: OpenAIEmbedderOptions;
  private dims: number;

  constructor(options: OpenAIEmbedderOptions) {
    try {
      const url = new URL(options.baseUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new ConfigError(`embedding base URL must be an http(s) URL, got ${JSON.stringify(safeUrl(options.baseUrl))}`);
    }
    if (!options.model) throw new ConfigError('an embedding model name is required');
    this.options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    this.dims = options.dimensions ?? 0;
  }

  get spec(): EmbedderSpec {
    return { kind: 'openai', model: this.options.model, dimensions: this.dims, base_url: this.options.baseUrl };
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const batch = this.options.batchSize ?? 64;
    const vectors: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += batch) vectors.push(...(await this.request(texts.slice(at, at + batch), signal)));
    return vectors;
  }

  private async request(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const url = `${this.options.baseUrl}/embeddings`;
    const transport = { provider: PROVIDER, timeoutMs: this.options.timeoutMs ?? 60_000, retry: DEFAULT_RETRY_POLICY };
    const headers: Record<string, string> = this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {};
    const sent = await postJson(transport, url, headers, { model: this.options.model, input }, signal);
    let body: unknown;
    try {
      const text = await readText(sent.response, sent.deadline, transport, safeUrl(url), sent.attempts, signal);
      body = JSON.parse(text);
    } catch (error) {
      if (error instanceof LLMProviderError) throw error;
      throw new LLMProviderError(PROVIDER, sent.response.status, `${PROVIDER}: the response of POST ${safeUrl(url)} is not JSON`, { cause: error });
    } finally {
      sent.deadline.clear();
    }
    return this.vectors(body, input.length, safeUrl(url));
  }

  private vectors(body: unknown, count: number, where: string): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw new LLMProviderError(
        PROVIDER,
        200,
        `${PROVIDER}: POST ${where} returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} inputs`,
      );
    }
    const ordered = [...data].sort((a, b) => Number((a as { index?: number }).index ?? 0) - Number((b as { index?: number }).index ?? 0));
    return ordered.map((item) => {
      const embedding = (item as { embedding?: unknown }).embedding;
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((v) => typeof v === 'number')) {
        throw new LLMProviderError(PROVIDER, 200, `${PROVIDER}: POST ${where} returned an embedding that is not a list of numbers`);
      }
      if (this.dims === 0) this.dims = embedding.length;
      if (embedding.length !== this.dims)
        throw new LLMProviderError(PROVIDER, 200, `${PROVIDER}: POST ${where} returned ${embedding.length} dimensions, expected ${this.dims}`);
      return normalise(Float32Array.from(embedding as number[]));
    });
  }
}
