/**
 * `faithfulness`: is every claim of the output supported by the case's retrieved context (`context`, a string, or
 * `contexts`, a list)? A model first lists the output's claims, then judges each against the context; the score is
 * the share of supported claims (1 when the output makes none) and the case passes at `threshold` (default 0.7).
 * A case without context, or a model that answers off-format, errors the case: it cannot be judged.
 */
import { systemMessage, userMessage } from '../llm/messages.js';
import type { ChatModel } from '../llm/types.js';
import { inputText } from './dataset.js';
import { firstJsonObject } from './judge-reply.js';
import type { Scorer } from './scorer.js';

export interface FaithfulnessOptions {
  model: ChatModel;
  /** Share of supported claims needed to pass (default 0.7). */
  threshold?: number;
}

/** The faithfulness scorer. */
export function faithfulness(options: FaithfulnessOptions): Scorer {
  const threshold = options.threshold ?? 0.7;
  if (!options.model || typeof options.model.complete !== 'function') throw new TypeError('faithfulness: a judge model is required');
  if (!(threshold >= 0 && threshold <= 1)) throw new TypeError(`faithfulness: threshold must be between 0 and 1, got ${threshold}`);
  const ask = async (system: string, user: string) =>
    firstJsonObject(
      (await options.model.complete({ messages: [systemMessage(system), userMessage(user)], settings: { temperature: 0 } })).text,
      'faithfulness',
    );
  return {
    name: 'faithfulness',
    async score({ input, output, case: testCase }) {
      const contexts = contextsOf(testCase);
      const extracted = await ask(
        'List every factual claim the answer makes, each as one short standalone sentence. Reply with JSON only: {"claims": ["..."]}',
        `Question:\n${inputText(input)}\n\nAnswer:\n${output}`,
      );
      if (!Array.isArray(extracted.claims)) throw new Error('faithfulness: the claim list has no "claims" array');
      const claims = extracted.claims.map(String);
      if (claims.length === 0) return { passed: true, score: 1, reason: 'the output makes no claims' };
      const judged = await ask(
        'For each claim, say whether the context supports it. Reply with JSON only: {"verdicts": [{"claim": "...", "supported": true or false}]} in the order given.',
        `Context:\n${contexts.map((c, i) => `[${i + 1}] ${c}`).join('\n')}\n\nClaims:\n${claims.map((c, i) => `${i + 1}. ${c}`).join('\n')}`,
      );
      if (!Array.isArray(judged.verdicts) || judged.verdicts.length !== claims.length) {
        throw new Error(`faithfulness: expected ${claims.length} verdict(s), got ${Array.isArray(judged.verdicts) ? judged.verdicts.length : 'none'}`);
      }
      const supported = judged.verdicts.filter((v) => (v as { supported?: unknown } | null)?.supported === true).length;
      const score = supported / claims.length;
      return { passed: score >= threshold, score, reason: `${supported} of ${claims.length} claims supported by the context` };
    },
  };
}

function contextsOf(testCase: Record<string, unknown>): string[] {
  const raw = testCase.contexts ?? testCase.context;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' && raw !== '' ? [raw] : [];
  if (list.length === 0) throw new Error('faithfulness: the case has no "context" or "contexts"');
  return list.map((c) => (typeof c === 'string' ? c : JSON.stringify(c)));
}
