/**
 * A knowledge base as an agent tool. The model calls it with `query` (and optionally `top_k`); the result lists the
 * chunks (id, source, heading, page, score, full content: never truncated). Each call runs a `retrieval.<kb>` span
 * recording `retrieval.query`, `retrieval.doc_ids` (the chunk ids), `retrieval.result_count` and `retrieval.mode`,
 * the keys replay reads as a retrieval step's input and output.
 */
import path from 'node:path';
import Type from 'typebox';
import { withSpan } from '../tracing/spans.js';
import { Tool, type ToolOptions } from '../tools/tool.js';
import type { JsonObject } from '../llm/messages.js';
import type { KnowledgeBase } from './knowledge-base.js';
import type { SearchMode } from './search.js';

export interface KbToolOptions extends Partial<Pick<ToolOptions, 'name' | 'description' | 'registry' | 'timeoutMs'>> {
  /** Chunks returned when the model does not ask for a number (default 4). */
  topK?: number;
  /** Search mode (default: the base's). */
  mode?: SearchMode;
}

/** Span and attribute names of retrieval. */
export const RETRIEVAL_ATTR = {
  query: 'retrieval.query',
  docIds: 'retrieval.doc_ids',
  resultCount: 'retrieval.result_count',
  mode: 'retrieval.mode',
  kb: 'retrieval.kb',
} as const;

const PARAMETERS = Type.Object({
  query: Type.String({ description: 'What to look for, in words likely to appear in the documents' }),
  top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'How many passages to return' })),
});

class KnowledgeBaseTool extends Tool {
  readonly toolType = 'kb';
  readonly origin = 'kb';

  constructor(
    private readonly kb: KnowledgeBase,
    private readonly options: KbToolOptions,
  ) {
    super({
      name: options.name ?? `search_${kb.name.replace(/[^A-Za-z0-9_-]/g, '_')}`,
      description: options.description ?? `Search the '${kb.name}' knowledge base and return the most relevant passages with their sources.`,
      parameters: PARAMETERS,
      replayClass: 'read_only',
      timeoutMs: options.timeoutMs,
      registry: options.registry,
    });
  }

  protected override config(): JsonObject {
    const config: JsonObject = { kb: this.kb.name, top_k: this.options.topK ?? 4 };
    if (this.options.mode) config.mode = this.options.mode;
    return config;
  }

  async execute(args: JsonObject): Promise<unknown> {
    const query = String(args.query ?? '');
    const topK = typeof args.top_k === 'number' ? args.top_k : (this.options.topK ?? 4);
    await this.kb.ready();
    const mode = this.options.mode ?? this.kb.defaultMode;
    return withSpan(`retrieval.${this.kb.name}`, {}, async (span) => {
      span.setAttributes({ [RETRIEVAL_ATTR.query]: query, [RETRIEVAL_ATTR.mode]: mode, [RETRIEVAL_ATTR.kb]: this.kb.name });
      const hits = await this.kb.search(query, { topK, mode });
      span.setAttributes({ [RETRIEVAL_ATTR.docIds]: JSON.stringify(hits.map((h) => h.id)), [RETRIEVAL_ATTR.resultCount]: hits.length });
      return hits.map((h) => ({
        id: h.id,
        source: path.basename(h.source),
        heading: h.heading,
        page: h.page,
        score: Number(h.score.toFixed(4)),
        content: h.content,
      }));
    });
  }
}

/** Build the retrieval tool of `kb`. */
export function knowledgeBaseTool(kb: KnowledgeBase, options: KbToolOptions = {}): Tool {
  return new KnowledgeBaseTool(kb, options);
}
