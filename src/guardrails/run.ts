/**
 * Running the guardrails of one position: blocking ones in order (the first to fail stops the run), then the
 * non-blocking ones together. Each check runs in a `guardrail.<name>` span and leaves one `guardrail_events` row
 * (outcome `passed`, `blocked`, `warned` or `errored`, with the trace id and the agent's name) in the run's store,
 * whether tracing is on or off.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { timeOrderedId } from '../durability/time-ordered-id.js';
import { utcNow } from '../store/time.js';
import { GUARDRAIL_ATTR, SPAN } from '../tracing/attributes.js';
import { agentkitTracer, storedTraceId, traceWriter } from '../tracing/setup.js';
import { preciseNow } from '../tracing/clock.js';
import type { GuardrailEventRow } from '../tracing/writer.js';
import { GuardrailBlockedError } from './errors.js';
import type { Guardrail, GuardrailContext, GuardrailPosition } from './guardrail.js';

export type GuardrailOutcome = GuardrailEventRow['outcome'];

/** Where a run's guardrails report to. */
export interface GuardrailRunContext {
  agentName: string;
  executionId: string;
  context: unknown;
  signal: AbortSignal;
  /** The store the run's trace and guardrail events go to. */
  dbPath: string;
}

/** One guardrail's result. */
export interface GuardrailResult {
  name: string;
  outcome: GuardrailOutcome;
  message: string | null;
}

/** Whether any of `guardrails` checks at `position` (a caller skips building the text to check when none does). */
export function hasGuardrails(guardrails: readonly Guardrail[], position: GuardrailPosition): boolean {
  for (const g of guardrails) if (g.position === position) return true;
  return false;
}

/**
 * Check `text` with every guardrail of `position`. Returns each result; throws GuardrailBlockedError after recording
 * when a blocking guardrail fails (or errors with `onError: 'block'`).
 */
export async function runGuardrails(
  guardrails: readonly Guardrail[],
  position: GuardrailPosition,
  text: string,
  run: GuardrailRunContext,
): Promise<GuardrailResult[]> {
  const here = guardrails.filter((g) => g.position === position);
  if (here.length === 0) return [];
  const context: GuardrailContext = { agentName: run.agentName, executionId: run.executionId, position, context: run.context, signal: run.signal };
  const results: GuardrailResult[] = [];
  for (const g of here.filter((g) => g.blocking)) {
    const result = await checkOne(g, text, context, run);
    results.push(result);
    if (result.outcome === 'blocked') throw new GuardrailBlockedError(g.name, position, result.message ?? '');
  }
  const together = here.filter((g) => !g.blocking);
  if (together.length > 0) results.push(...(await Promise.all(together.map((g) => checkOne(g, text, context, run)))));
  return results;
}

async function checkOne(g: Guardrail, text: string, context: GuardrailContext, run: GuardrailRunContext): Promise<GuardrailResult> {
  return agentkitTracer().startActiveSpan(
    SPAN.guardrail(g.name),
    { attributes: { [GUARDRAIL_ATTR.name]: g.name, [GUARDRAIL_ATTR.position]: g.position, [GUARDRAIL_ATTR.blocking]: g.blocking }, startTime: preciseNow() },
    async (span) => {
      let outcome: GuardrailOutcome;
      let message: string | null = null;
      try {
        const verdict = await g.check(text, context);
        outcome = verdict.passed ? 'passed' : g.blocking ? 'blocked' : 'warned';
        message = verdict.message ?? null;
      } catch (error) {
        if (context.signal.aborted) {
          span.end(preciseNow());
          throw context.signal.reason;
        }
        message = error instanceof Error ? error.message : String(error);
        // An errored blocking check blocks unless told to allow: the text was not checked.
        outcome = g.blocking && g.onError === 'block' ? 'blocked' : 'errored';
        if (outcome === 'blocked') message = `the check failed: ${message}`;
        else span.recordException(error instanceof Error ? error : new Error(message));
      }
      span.setAttribute(GUARDRAIL_ATTR.outcome, outcome);
      if (message !== null) span.setAttribute(GUARDRAIL_ATTR.message, message);
      span.setStatus(outcome === 'passed' || outcome === 'warned' ? { code: SpanStatusCode.OK } : { code: SpanStatusCode.ERROR, message: message ?? outcome });
      const recording = span.isRecording();
      traceWriter().enqueueGuardrailEvent(run.dbPath, {
        // Time-ordered (UUID v7): the table's primary key takes each event at its end, not on a random page.
        event_id: timeOrderedId(),
        trace_id: recording ? storedTraceId(span) : null,
        span_id: recording ? span.spanContext().spanId : null,
        agent_name: run.agentName,
        guardrail_name: g.name,
        position: g.position,
        outcome,
        blocking: g.blocking,
        message,
        created_at: utcNow(),
      });
      span.end(preciseNow());
      return { name: g.name, outcome, message };
    },
  );
}
