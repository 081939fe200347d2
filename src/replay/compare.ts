/**
 * Where a rerun diverged from its source, step by step. Steps are compared in start order: the first index where
 * the span names differ, or a model step's response (text and tool calls) or request messages differ, is the divergence. An agent
 * step's output is only known after everything inside it ran, so an agent whose output differs counts only when
 * nothing else diverged (otherwise the root agent, step 0, would always be reported). Tool-call ids are not compared
 * (models number them per instance). When one list is a prefix of the other, the divergence is the shorter length;
 * identical lists give null.
 */
import { diffLines } from 'diff';
import type { ComparisonResult, ReplayStep } from '../types.js';
import { canonicalJson } from './canonical.js';

const MODEL_KEYS = ['gen_ai.response.content', 'gen_ai.response.tool_calls'] as const;

/** The first index where `original` and `rerun` diverge, or null. */
export function divergedAt(original: readonly ReplayStep[], rerun: readonly ReplayStep[]): number | null {
  const overlap = Math.min(original.length, rerun.length);
  let agentOutput: number | null = null;
  for (let i = 0; i < overlap; i++) {
    const a = original[i]!;
    const b = rerun[i]!;
    if (a.span_name !== b.span_name) return i;
    if (a.span_name.startsWith('llm.') && MODEL_KEYS.some((k) => !sameModelOutput(k, a.output[k], b.output[k]))) return i;
    // A model asked something else (a changed prompt or input) diverged there, even when it answered the same.
    if (a.span_name.startsWith('llm.') && !sameRequest(a.input[REQUEST_KEY], b.input[REQUEST_KEY])) return i;
    if (agentOutput === null && a.span_name.startsWith('agent.') && !same(a.output['agent.output'], b.output['agent.output'])) agentOutput = i;
  }
  return original.length !== rerun.length ? overlap : agentOutput;
}

const REQUEST_KEY = 'gen_ai.request.messages';

/** Requests compared as messages without tool-call ids (unrecorded requests, payloads off, compare equal). */
function sameRequest(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return true;
  if (same(a, b)) return true;
  const strip = (messages: unknown[]) =>
    messages.map((m) => {
      const { tool_call_id: _id, tool_calls: calls, ...rest } = (m ?? {}) as Record<string, unknown>;
      return Array.isArray(calls)
        ? { ...rest, tool_calls: calls.map((c) => ({ name: (c as { name?: unknown })?.name, arguments: (c as { arguments?: unknown })?.arguments })) }
        : rest;
    });
  return canonicalJson(strip(a)) === canonicalJson(strip(b));
}

/** Equal values; the cheap checks first (the common case is equal text or equal JSON in the same key order). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b) || canonicalJson(a) === canonicalJson(b);
}

/** Model outputs compared with tool calls stripped of their ids (models number them per instance, not per run). */
function sameModelOutput(key: (typeof MODEL_KEYS)[number], a: unknown, b: unknown): boolean {
  if (same(a, b)) return true;
  if (key !== 'gen_ai.response.tool_calls' || !Array.isArray(a) || !Array.isArray(b)) return false;
  const strip = (calls: unknown[]) =>
    calls.map((c) => ({
      name: (c as { name?: unknown })?.name,
      arguments: (c as { arguments?: unknown })?.arguments,
      raw_arguments: (c as { raw_arguments?: unknown })?.raw_arguments,
    }));
  return canonicalJson(strip(a)) === canonicalJson(strip(b));
}

/** The comparison of two step lists. */
export function compareSteps(original: ReplayStep[], rerun: ReplayStep[] | null): ComparisonResult {
  return { original_steps: original, new_steps: rerun, diverged_at: rerun === null ? null : divergedAt(original, rerun) };
}

/**
 * A human-readable account: `No divergence: ...` or `Diverged at step <n> (<span>): ...` followed by a line diff
 * (`- ` original, `+ ` rerun) of that step's output.
 */
export function describeComparison(comparison: ComparisonResult): string {
  const { original_steps: original, new_steps: rerun, diverged_at: at } = comparison;
  if (rerun === null) return 'The rerun has no trace to compare (tracing was off).';
  if (at === null) return `No divergence: the rerun's ${rerun.length} steps match the original's.`;
  const a = original[at];
  const b = rerun[at];
  if (!a || !b) {
    const longer = a ? 'original' : 'rerun';
    const extra = (a ? original : rerun).slice(at).map((s) => `  [${s.step}] ${s.span_name}`);
    return [`Diverged at step ${at}: the ${longer} has ${extra.length} more step${extra.length === 1 ? '' : 's'}:`, ...extra].join('\n');
  }
  if (a.span_name !== b.span_name) return `Diverged at step ${at}: the original ran ${a.span_name}, the rerun ran ${b.span_name}.`;
  // Same answer to another request: show what was asked differently.
  const asked = outputText(a) === outputText(b);
  const lines = [`Diverged at step ${at} (${a.span_name}): the ${asked ? 'request' : 'output'} changed.`];
  const [before, after] = asked ? [requestText(a), requestText(b)] : [outputText(a), outputText(b)];
  for (const part of diffLines(before, after)) {
    const mark = part.added ? '+ ' : part.removed ? '- ' : '  ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push(`${mark}${line}`);
  }
  return lines.join('\n');
}

function outputText(step: ReplayStep): string {
  const content = step.output['gen_ai.response.content'] ?? step.output['agent.output'];
  const calls = step.output['gen_ai.response.tool_calls'];
  const parts: string[] = [];
  if (content !== undefined && content !== '') parts.push(typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  if (calls !== undefined) parts.push(`tool calls: ${JSON.stringify(calls, null, 2)}`);
  return `${parts.join('\n') || JSON.stringify(step.output, null, 2)}\n`;
}

function requestText(step: ReplayStep): string {
  const messages = step.input[REQUEST_KEY];
  if (!Array.isArray(messages)) return '\n';
  return `${messages.map((m) => `${String((m as { role?: unknown }).role)}: ${String((m as { content?: unknown }).content ?? '')}`).join('\n')}\n`;
}
