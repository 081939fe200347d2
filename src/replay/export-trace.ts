/**
 * The self-contained export of one trace (`agentkit export-trace`, the UI's Export dialog): a header, every span with
 * its payloads split into input and output, the checkpoints of the trace's execution when the same store holds them,
 * and its attachments. Checkpoint state blocks and attachment bytes are left out unless asked for. The document is
 * checked against the contract's `ExportTraceDocument` before it is returned.
 */
import type Database from 'better-sqlite3';
import { ValidationError } from '../errors.js';
import { validator } from '../../generated/schemas/resources.js';
import type { ExportTraceDocument, Span } from '../types.js';
import { VERSION } from '../version.js';
import { splitAttributes, decodeValue } from '../tracing/payload-keys.js';
import { utcNow } from '../store/time.js';
import { durationMs } from '../tracing/time.js';
import { rowsOfExecution, withFullStates } from '../durability/sqlite-states.js';
import { summarise, type TraceStore } from '../tracing/trace-store.js';
import { checkpointerFor } from '../durability/checkpointer-for.js';
import type { Checkpoint } from '../types.js';

export interface ExportOptions {
  /** Embed attachment bytes (base64). Default false. */
  includeAttachments?: boolean;
  /** Embed each checkpoint's state_snapshot, node input and output, interrupt context. Default false. */
  includeCheckpointState?: boolean;
}

type ExportedSpan = ExportTraceDocument['spans'][number];
type ExportedCheckpoint = ExportTraceDocument['checkpoints'][number];
type ExportedAttachment = ExportTraceDocument['multimodal_attachments'][number];

const RUNNER_TYPES = new Set(['agent', 'chain', 'swarm', 'supervisor']);

/**
 * Build the export document of a trace from `store` (the id resolves as `TraceStore.resolve` says). Throws
 * NotFoundError for an unknown trace, AmbiguousTraceError for a caller's trace of several runs.
 */
export async function exportTrace(store: TraceStore, requestedId: string, options: ExportOptions = {}): Promise<ExportTraceDocument> {
  const spans = await store.spans(requestedId);
  // The stored id the requested one resolved to (a caller's trace id names the run recorded under it, ADR 0009).
  const traceId = spans[0]!.trace_id;
  const summary = summarise(traceId, spans);
  const ids = new Set(spans.map((s) => s.span_id));
  const root = spans.find((s) => s.parent_span_id === null || !ids.has(s.parent_span_id)) ?? spans[0]!;
  const executionId =
    stringAttr(root, 'agent.execution_id') ??
    stringAttr(root, 'chain.execution_id') ??
    stringAttr(root, 'swarm.execution_id') ??
    stringAttr(root, 'supervisor.execution_id');
  const prefix = root.name.split('.')[0]!;
  const withState = options.includeCheckpointState === true;
  const { checkpoints, attachments } =
    store.engine === 'postgres'
      ? // A Postgres store has no attachments family yet (docs/adr/0017); its checkpoints come through its checkpointer.
        { checkpoints: executionId ? await pgCheckpointsOf(store, executionId, withState) : [], attachments: [] }
      : await store.read(
          (db) => ({
            checkpoints: executionId ? checkpointsOf(db, executionId, withState) : [],
            attachments: attachmentsOf(db, traceId, options.includeAttachments === true),
          }),
          { checkpoints: [], attachments: [] },
        );
  const exportedSpans = spans.map(exportSpan);
  const document: ExportTraceDocument = {
    export_version: '1.0',
    exported_at: utcNow(),
    sdk_version: VERSION,
    trace: {
      trace_id: traceId,
      name: summary.name,
      status: summary.status,
      started_at: summary.start_time,
      duration_ms: summary.duration_ms,
      total_tokens: exportedSpans.reduce((n, s) => n + (s.tokens ? s.tokens.input + s.tokens.output : 0), 0),
      total_cost: null,
      workflow_type: stringAttr(root, 'agentkit.runner.type') ?? (RUNNER_TYPES.has(prefix) ? prefix : 'agent'),
      runner: root.name.includes('.') ? root.name.slice(root.name.indexOf('.') + 1) : root.name,
      execution_id: executionId,
      durable: checkpoints.length > 0,
    },
    spans: exportedSpans,
    checkpoints,
    multimodal_attachments: attachments,
  };
  const check = validator('ExportTraceDocument');
  if (!check.Check(document)) {
    const [, errors] = check.Errors(document);
    throw new ValidationError(
      `the export of trace '${traceId}' does not match ExportTraceDocument`,
      errors.map((e) => ({ path: e.instancePath, message: e.message })),
    );
  }
  return document;
}

function stringAttr(span: Span, key: string): string | null {
  const value = span.attributes[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

function numberAttr(span: Span, key: string): number | null {
  const value = span.attributes[key];
  return typeof value === 'number' ? value : null;
}

function exportSpan(span: Span): ExportedSpan {
  const { input, output, rest } = splitAttributes(span.attributes);
  const inputTokens = numberAttr(span, 'gen_ai.usage.input_tokens');
  const outputTokens = numberAttr(span, 'gen_ai.usage.output_tokens');
  return {
    span_id: span.span_id,
    name: span.name,
    parent_span_id: span.parent_span_id,
    status: span.status,
    started_at: span.start_time,
    duration_ms: durationMs(span.start_time, span.end_time),
    input,
    output,
    attributes: rest,
    events: span.events,
    model: stringAttr(span, 'gen_ai.response.model') ?? stringAttr(span, 'gen_ai.request.model'),
    tokens: inputTokens === null && outputTokens === null ? null : { input: inputTokens ?? 0, output: outputTokens ?? 0 },
    cost: null,
  };
}

interface CheckpointRow {
  checkpoint_id: string;
  delta_base?: string | null;
  output_keys?: string | null;
  node_id: string;
  node_index: number;
  status: string;
  step_type: string | null;
  interrupt_reason: string | null;
  agent_path: string | null;
  created_at: string;
  state_snapshot: string;
  node_input: string | null;
  node_output: string | null;
  interrupt_context: string | null;
}

/** The checkpoints of `executionId` in a Postgres store, oldest first, exported as `checkpointsOf` exports rows. */
async function pgCheckpointsOf(store: TraceStore, executionId: string, withState: boolean): Promise<ExportedCheckpoint[]> {
  const checkpointer = checkpointerFor(store.dbPath);
  try {
    return (await checkpointer.list(executionId)).map((checkpoint) => exportCheckpoint(checkpoint, withState));
  } finally {
    await checkpointer.close();
  }
}

/** One checkpoint as the export shows it: its place and status, and its state and payloads when asked. */
function exportCheckpoint(checkpoint: Checkpoint, withState: boolean): ExportedCheckpoint {
  const exported: ExportedCheckpoint = {
    checkpoint_id: checkpoint.checkpoint_id,
    node_id: checkpoint.node_id,
    step: checkpoint.node_index,
    status: checkpoint.status,
    step_type: checkpoint.step_type,
    interrupt_reason: checkpoint.interrupt_reason,
    agent_path: checkpoint.agent_path,
    created_at: checkpoint.created_at,
  };
  if (withState) {
    exported.state_snapshot = checkpoint.state_snapshot;
    exported.node_input = checkpoint.node_input ?? null;
    exported.node_output = checkpoint.node_output ?? null;
    exported.interrupt_context = checkpoint.interrupt_context;
  }
  return exported;
}

function checkpointsOf(db: Database.Database, executionId: string, withState: boolean): ExportedCheckpoint[] {
  // Delta checkpoints are resolved to full states (../durability/sqlite-states.ts), as the checkpointer reads them.
  const rows = withFullStates(
    db,
    db.prepare(`SELECT * FROM checkpoints WHERE ${rowsOfExecution(db)} ORDER BY created_at, rowid`).all(executionId) as CheckpointRow[],
  );
  return rows.map((row) => {
    const checkpoint: ExportedCheckpoint = {
      checkpoint_id: row.checkpoint_id,
      node_id: row.node_id,
      step: row.node_index,
      status: row.status,
      step_type: row.step_type,
      interrupt_reason: row.interrupt_reason,
      agent_path: row.agent_path,
      created_at: row.created_at,
    };
    if (withState) {
      checkpoint.state_snapshot = objectOf(decodeValue(row.state_snapshot));
      checkpoint.node_input = row.node_input === null ? null : decodeJson(row.node_input);
      checkpoint.node_output = row.node_output === null ? null : decodeJson(row.node_output);
      checkpoint.interrupt_context = row.interrupt_context === null ? null : objectOf(decodeValue(row.interrupt_context));
    }
    return checkpoint;
  });
}

interface AttachmentRow {
  attachment_id: string;
  span_id: string;
  media_type: string;
  size_bytes: number;
  data: Buffer;
  metadata: string;
  created_at: string;
}

function attachmentsOf(db: Database.Database, traceId: string, withData: boolean): ExportedAttachment[] {
  const rows = db.prepare('SELECT * FROM attachments WHERE trace_id = ? ORDER BY created_at, rowid').all(traceId) as AttachmentRow[];
  return rows.map((row) => {
    const base = {
      attachment_id: row.attachment_id,
      span_id: row.span_id,
      media_type: row.media_type,
      size_bytes: row.size_bytes,
      metadata: objectOf(decodeValue(row.metadata)),
      created_at: row.created_at,
    };
    return withData
      ? { ...base, included: true, attachment_data: row.data.toString('base64') }
      : { ...base, included: false, note: 'Attachment data excluded; export with --include-attachments to embed it.' };
  });
}

function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
