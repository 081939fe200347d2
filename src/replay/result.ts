/** The outcome of a rerun: the spec's ReplayResult fields plus `saveAsTest`, and how the rerun got its answers. */
import type { AgentResult, RegressionTestRecord, ReplayResult } from '../types.js';
import type { ReplayMode } from './mode.js';
import { appendRegressionRecord, type SaveAsTestOptions } from './save-test.js';

/** Where a rerun's answers came from. */
export interface RerunCounts {
  /** Model calls answered from the trace. */
  recordedModelCalls: number;
  /** Model calls made for real. */
  liveModelCalls: number;
  /** Tool calls that ran. */
  liveToolCalls: number;
  /** Tool calls answered from the trace. */
  recordedToolCalls: number;
  /** Tool calls answered by an override. */
  overriddenToolCalls: number;
}

export class ReplayRunResult implements ReplayResult {
  readonly original_output: unknown;
  readonly new_output: unknown;
  readonly steps_executed: number;
  /** The rerun's new trace (null when tracing was off). */
  readonly trace_id: string | null;
  /** The trace the fork was made from. */
  readonly source_trace_id: string;
  /** The input the rerun ran with (the recorded one unless modified). */
  readonly input: string;
  readonly mode: ReplayMode;
  readonly counts: RerunCounts;
  /** The rerun's AgentResult (status, tool calls, tokens). */
  readonly agentResult: AgentResult;

  constructor(fields: ReplayResult & { source_trace_id: string; input: string; mode: ReplayMode; counts: RerunCounts; agentResult: AgentResult }) {
    this.original_output = fields.original_output;
    this.new_output = fields.new_output;
    this.steps_executed = fields.steps_executed;
    this.trace_id = fields.trace_id;
    this.source_trace_id = fields.source_trace_id;
    this.input = fields.input;
    this.mode = fields.mode;
    this.counts = fields.counts;
    this.agentResult = fields.agentResult;
  }

  /** `completed`, or `paused` when the rerun paused for a decision (live mode, or a trace still paused). */
  get status(): AgentResult['status'] {
    return this.agentResult.status;
  }

  /** What the rerun paused for (reason and context), or null. */
  get pending_interrupt(): AgentResult['pending_interrupt'] {
    return this.agentResult.pending_interrupt;
  }

  /**
   * Append a regression record to the JSONL file `file` (created with its folder if missing): `input`,
   * `expected_output`, `trace_id` (= `sourceTraceId`, else this rerun's trace id) and `created_at` (UTC ISO-8601).
   */
  async saveAsTest(file: string, options: SaveAsTestOptions): Promise<RegressionTestRecord> {
    return appendRegressionRecord(file, { input: options.input, expectedOutput: options.expectedOutput, traceId: options.sourceTraceId ?? this.trace_id });
  }

  /** The spec's four fields only. */
  toJSON(): ReplayResult {
    return { original_output: this.original_output, new_output: this.new_output, steps_executed: this.steps_executed, trace_id: this.trace_id };
  }
}
