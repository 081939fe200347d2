/**
 * The tools of a rerun: each real tool wrapped so that a rerun never repeats a side effect by accident. An override
 * answers with its canned response; a `read_only` tool (or any tool with `allowSideEffects`) runs; an `idempotent` or
 * `side_effecting` tool is answered from the recorded outcome of the matching call (same tool, same arguments after
 * defaults; each recorded call is used once, then the last match again) and otherwise stops the whole rerun with a
 * ReplayError naming the tool. A guarded tool that cannot be rebound (a Swarm's handoff, a Supervisor's delegate:
 * tools made at run time) needs no callable, since it is only ever answered from the trace: it gets a stand-in.
 * Each tool span of the rerun says where its answer came from.
 */
import { trace } from '@opentelemetry/api';
import type { JsonObject } from '../llm/messages.js';
import { outputText } from '../tools/invoke.js';
import { Tool, type ToolContext } from '../tools/tool.js';
import { TOOL_ATTR } from '../tracing/attributes.js';
import type { Span } from '../types.js';
import { canonicalJson, parseJson } from './canonical.js';
import { ReplayError } from './errors.js';
import { readRedactionHashes, type KeyedHash } from '../tracing/redaction-hash.js';
import { REPLAY_ATTR } from './span-attributes.js';
import { InterruptSignal } from '../durability/interrupt-signal.js';
import { bindResumeValue } from '../scope/scope.js';
import { DECISION_ATTR, decisionOfEvent, INTERRUPT_EVENT, PAUSED, RUN_STATUS_ATTR } from '../tracing/run-status.js';
import type { Resume } from '../types.js';
import type { ReplayMode } from './mode.js';

/** One recorded tool call. */
export interface RecordedToolCall {
  name: string;
  /** The arguments as recorded (null when payloads were off). */
  args: JsonObject | null;
  ok: boolean;
  /** The text the model read: the result on success, the error message otherwise (null when not recorded). */
  text: string | null;
  /** The keyed hash of the unmasked arguments, when the writer masked them (docs/adr/0010). */
  argsHash?: string;
  /** The call paused the run (`interrupt()`): the reason and context it paused with (docs/adr/0059). */
  paused?: { reason: string; context: JsonObject };
}

/** The recorded calls of the `tool.*` spans given, in order. */
export function recordedToolCalls(spans: readonly Span[]): RecordedToolCall[] {
  return spans.map((span) => {
    const a = span.attributes;
    const args = parseJson(a[TOOL_ATTR.args]);
    const ok = a[TOOL_ATTR.status] === 'ok';
    const text = ok ? a[TOOL_ATTR.result] : a[TOOL_ATTR.error];
    const argsHash = readRedactionHashes(a).args;
    const paused = a[RUN_STATUS_ATTR] === PAUSED ? pauseOf(span) : undefined;
    return {
      name: toolNameOf(span),
      args: args && typeof args === 'object' && !Array.isArray(args) ? (args as JsonObject) : null,
      ok,
      text: typeof text === 'string' && (ok || a[TOOL_ATTR.status] === 'error') ? text : null,
      ...(argsHash !== undefined ? { argsHash } : {}),
      ...(paused ? { paused } : {}),
    };
  });
}

function toolNameOf(span: Span): string {
  const name = span.attributes[TOOL_ATTR.name];
  return typeof name === 'string' ? name : span.name.replace(/^tool\./, '');
}

/** The reason and context of a paused call's `agentkit.interrupt` event (context `{}` when payloads were off). */
function pauseOf(span: Span): { reason: string; context: JsonObject } {
  const event = (span.events ?? []).find((e) => e.name === INTERRUPT_EVENT) as { attributes?: Record<string, unknown> } | undefined;
  const reason = event?.attributes?.[DECISION_ATTR.reason];
  const context = parseJson(event?.attributes?.[DECISION_ATTR.context]);
  return {
    reason: typeof reason === 'string' && reason !== '' ? reason : 'replay',
    context: context && typeof context === 'object' && !Array.isArray(context) ? (context as JsonObject) : {},
  };
}

/** The decisions the trace records, per tool, in order: what a rerun's `interrupt()` is answered with in recorded mode. */
export function recordedDecisions(spans: readonly Span[]): Map<string, Resume[]> {
  const out = new Map<string, Resume[]>();
  for (const span of spans) {
    for (const event of span.events ?? []) {
      const decision = decisionOfEvent(event as { name: string; attributes?: Record<string, unknown> });
      if (!decision) continue;
      const name = toolNameOf(span);
      out.set(name, [...(out.get(name) ?? []), { approved: decision.approved, metadata: decision.metadata }]);
    }
  }
  return out;
}

/** What every wrapped tool of one rerun shares. */
export interface ToolGuard {
  recorded: RecordedToolCall[];
  /** Recorded decisions per tool, consumed in order by the tool's live calls in recorded mode. */
  decisions: Map<string, Resume[]>;
  mode: ReplayMode;
  overrides: ReadonlyMap<string, unknown>;
  allowSideEffects: boolean;
  /** Stop the rerun with this error (the tool loop reports tool failures to the model; this one must end the run). */
  stop(error: ReplayError): never;
  /** Counts of answers by source. */
  counts: { live: number; recorded: number; override: number };
  /** The store's keyed hash, to match recorded arguments the writer masked (docs/adr/0010). */
  hash?: KeyedHash;
}

/** A real tool behind the rerun's guard (or an override with no real tool behind it). */
export class ReplayTool extends Tool {
  readonly toolType: string;
  readonly origin: string;
  private readonly used = new Set<number>();

  constructor(
    private readonly real: Tool | null,
    dict: {
      name: string;
      description: string;
      parameters: JsonObject;
      replay_class: Tool['replayClass'];
      tool_type: string;
      origin: string;
      ends_run?: boolean;
    },
    private readonly guard: ToolGuard,
  ) {
    super({
      name: dict.name,
      description: dict.description,
      parameters: real?.parameters ?? dict.parameters,
      replayClass: real?.replayClass ?? dict.replay_class,
      registry: false,
      endsRun: real?.endsRun ?? dict.ends_run === true,
      timeoutMs: real?.timeoutMs,
    });
    this.toolType = real?.toolType ?? dict.tool_type;
    this.origin = real?.origin ?? dict.origin;
  }

  async execute(args: JsonObject, context: ToolContext): Promise<unknown> {
    const span = trace.getActiveSpan();
    const mark = (source: 'live' | 'recorded' | 'override') => {
      this.guard.counts[source]++;
      span?.setAttribute(REPLAY_ATTR.toolSource, source);
    };
    if (this.guard.overrides.has(this.name)) {
      mark('override');
      return outputText(this.guard.overrides.get(this.name));
    }
    if (this.real && (this.replayClass === 'read_only' || this.guard.allowSideEffects)) {
      mark('live');
      const real = this.real;
      // Recorded mode answers the tool's interrupt() with the decision the trace recorded for it (in order); live
      // mode, or no decision left, lets it pause.
      const decision = this.guard.mode === 'recorded' ? this.guard.decisions.get(this.name)?.shift() : undefined;
      return decision ? bindResumeValue(decision, null, () => real.execute(args, context)) : real.execute(args, context);
    }
    const match = this.findRecorded(args);
    if (!match) {
      const why = this.real
        ? `is ${this.replayClass} and the trace has no recorded call with these arguments (${JSON.stringify(args).slice(0, 200)}) to answer it from, so it was not executed`
        : 'cannot be rebound and has no recorded call with these arguments';
      this.guard.stop(
        new ReplayError(
          `rerun stopped: tool '${this.name}' ${why}; answer it with withToolOverride('${this.name}', response) or allow it to run with allowSideEffects: true`,
        ),
      );
    }
    if (match.paused && match.text === null) {
      // The trace paused here and holds no decision (the run is still paused): the rerun pauses the same way.
      mark('recorded');
      throw new InterruptSignal(match.paused.reason, match.paused.context);
    }
    mark('recorded');
    if (!match.ok) throw new Error(match.text!);
    return match.text!;
  }

  private findRecorded(args: JsonObject): RecordedToolCall | null {
    const key = canonicalJson(args);
    // Recorded arguments the writer masked match by the keyed hash of these (unmasked) ones, or as the same masked text.
    const hashed = this.guard.hash?.(key);
    let last: RecordedToolCall | null = null;
    let paused: RecordedToolCall | null = null;
    for (const [index, call] of this.guard.recorded.entries()) {
      if (call.name !== this.name || call.args === null) continue;
      if (call.text === null) {
        // A call that paused matches too, as a last resort: when its run never came back, the rerun pauses there.
        if (call.paused && this.sameArguments(call, key, hashed)) paused ??= call;
        continue;
      }
      const prepared = this.prepareArguments(call.args);
      if (canonicalJson(prepared.ok ? prepared.args : call.args) !== key && (call.argsHash === undefined || call.argsHash !== hashed)) continue;
      if (!this.used.has(index)) {
        this.used.add(index);
        return call;
      }
      last = call;
    }
    return last ?? paused;
  }

  /** Same arguments as recorded: the canonical JSON (after defaults), or the keyed hash of masked ones. */
  private sameArguments(call: RecordedToolCall, key: string, hashed: string | undefined): boolean {
    const prepared = this.prepareArguments(call.args!);
    return canonicalJson(prepared.ok ? prepared.args : call.args) === key || (call.argsHash !== undefined && call.argsHash === hashed);
  }
}
