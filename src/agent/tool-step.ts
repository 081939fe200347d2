/**
 * One tool call inside a `tool.<name>` span: tool-call guardrails, then the tool (validated arguments, errors turned
 * into `Error: ...` results by invokeTool), then the result appended to the history and the run's tool-call records.
 */
import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import { toolMessage, type ToolCall } from '../llm/messages.js';
import { hasGuardrails, runGuardrails } from '../guardrails/run.js';
import { invokeTool, type ToolOutcome } from '../tools/invoke.js';
import { SPAN, TOOL_ATTR } from '../tracing/attributes.js';
import { injectTraceContext } from '../tracing/propagation.js';
import { withSpan } from '../tracing/spans.js';
import { isInterruptSignal } from '../durability/interrupt-signal.js';
import { markPaused, recordDecision } from '../tracing/run-status.js';
import { childScope, currentScope, joinAgentPath } from '../scope/scope.js';
import type { ToolCallRecord } from '../types.js';
import type { AgentRun, LoopState } from './run-state.js';

/** Dispatch `call` (one of the current turn's calls) and append its result; calls the tool-call hooks around it. */
export async function runToolCall(run: AgentRun, state: LoopState, call: ToolCall): Promise<ToolOutcome> {
  // Awaited only when a hook returned a promise (see loop.ts).
  const before = run.hooks.beforeToolCall?.(run, state, call);
  if (before) await before;
  const outcome = await executeToolCall(run, call, state.turn);
  state.messages.push(toolMessage(call.id, call.name, outcome.content, !outcome.ok));
  state.toolCalls.push(toolCallRecord(state.turn, call, outcome));
  run.emit?.({ type: 'tool_result', id: call.id, name: call.name, ok: outcome.ok, content: outcome.content });
  const after = run.hooks.afterToolCall?.(run, state, call, outcome);
  if (after) await after;
  return outcome;
}

/**
 * Run one call in its span and return the outcome, without touching the history (a resumed run re-invokes a saved
 * call through here). Throws GuardrailBlockedError, control-flow signals and the run's abort reason.
 */
export function executeToolCall(run: AgentRun, call: ToolCall, turn: number): Promise<ToolOutcome> {
  const tool = run.tools.get(call.name);
  const attributes: Attributes = {
    [TOOL_ATTR.name]: call.name,
    [TOOL_ATTR.agentkitName]: call.name,
    [TOOL_ATTR.callId]: call.id,
    [TOOL_ATTR.origin]: tool?.origin ?? 'unknown',
    [TOOL_ATTR.turn]: turn,
    ...(tool ? { [TOOL_ATTR.replayClass]: tool.replayClass } : {}),
  };
  return withSpan(SPAN.tool(call.name), {}, async (span) => {
    if (span.isRecording()) {
      if (run.payloads) attributes[TOOL_ATTR.args] = call.raw_arguments ?? JSON.stringify(call.arguments);
      span.setAttributes(attributes);
      // The resumed call of a paused run: the decision is applied here, so the trace shows it here.
      if (run.resumedCall?.callId === call.id) recordDecision(span, run.resumedCall.decision, run.payloads);
    }
    if (hasGuardrails(run.guardrails, 'tool_call'))
      await runGuardrails(run.guardrails, 'tool_call', JSON.stringify({ tool: call.name, arguments: call.arguments }), run);
    const invoke = () =>
      invokeTool(tool, call, {
        toolCallId: call.id,
        toolName: call.name,
        agentName: run.agentName,
        executionId: run.executionId,
        context: run.context,
        signal: run.signal,
        // Read when the tool calls out, in the tool span's context (a REST tool's traceparent is this span's).
        traceHeaders,
      });
    // Inside an execution scope the tool runs one level down: `<agent path>/tool:<name>` (what interrupt() records).
    const scope = currentScope();
    let outcome: ToolOutcome;
    try {
      outcome = await (scope ? childScope({ agentPath: joinAgentPath(scope.agentPath, `tool:${call.name}`) }, invoke) : invoke());
    } catch (error) {
      // A pause is not a failure: the span says paused (and why), its status stays OK.
      if (isInterruptSignal(error)) markPaused(span, error.reason, error.context, run.payloads);
      throw error;
    }
    if (span.isRecording()) recordOutcome(span, run, outcome);
    return outcome;
  });
}

function recordOutcome(span: Span, run: AgentRun, outcome: ToolOutcome): void {
  if (outcome.ok) {
    span.setAttributes(run.payloads ? { [TOOL_ATTR.status]: 'ok', [TOOL_ATTR.result]: outcome.content } : { [TOOL_ATTR.status]: 'ok' });
    return;
  }
  span.setAttributes({ [TOOL_ATTR.status]: 'error', [TOOL_ATTR.error]: outcome.error, ...(outcome.code ? { [TOOL_ATTR.errorCode]: outcome.code } : {}) });
  // The run goes on (the model reads the error), but this step failed: the span says so.
  span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
}

/** The W3C trace context active where the tool runs, as headers; `baggage` only for a tool that asks for it. */
function traceHeaders(options: { baggage?: boolean } = {}): Record<string, string> {
  return injectTraceContext({}, { baggage: options.baggage === true });
}

/** The record of a call as AgentResult lists it: `output` (as JSON) on success, `error` otherwise. */
function toolCallRecord(turn: number, call: ToolCall, outcome: ToolOutcome): ToolCallRecord {
  const record: ToolCallRecord = { iteration: turn, tool_name: call.name, arguments: outcome.arguments, tool_call_id: call.id };
  if (outcome.ok) record.output = jsonValue(outcome.output, outcome.content);
  else record.error = outcome.error;
  return record;
}

function jsonValue(output: unknown, content: string): unknown {
  if (typeof output === 'string' || output === undefined) return output ?? null;
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}
