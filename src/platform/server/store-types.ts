/**
 * The Platform's store (issue 42): the one owner of the `platform_*` table family, behind one interface with a
 * SQLite implementation (./sqlite-platform-store.ts) and a Postgres one (./pg-platform-store.ts). Every row is keyed
 * by (project, id): checkpoints, eval runs, spans (trace ids included), claims, leases, keys and rate buckets, so a
 * request can only read or write the project of its key. The contract suite (./store-contract/) runs unchanged on both.
 *
 * Claims and leases keep the fixture's semantics (ADR 0054) and are decided atomically on both engines: one
 * IMMEDIATE transaction on SQLite, a row lock or one conditional statement on Postgres.
 */
import type { IngestedSpan } from './ingested-span.js';

/** A key's scopes: what routes it may call (`admin` may call every route). */
export const PLATFORM_SCOPES = ['traces:write', 'checkpoints:read', 'checkpoints:write', 'claims', 'evals:write', 'evals:read', 'admin'] as const;
export type PlatformScope = (typeof PLATFORM_SCOPES)[number];

/** A key as stored: never the key itself, only its HMAC-SHA-256 (`digest`, hex) and its lookup prefix. */
export interface StoredApiKey {
  /** Unique id (`key_` and 16 hex characters): how `keys list` and `keys revoke` name it. */
  id: string;
  /** The key's first characters, indexed: a request's key is looked up by it, then compared in constant time. */
  prefix: string;
  project: string;
  scopes: PlatformScope[];
  digest: string;
  created_at: string;
  revoked_at: string | null;
}

/** A checkpoint row as ingested (the wire row, kept as sent). */
export interface CheckpointInput {
  checkpoint_id: string;
  execution_id: string;
  created_at: string;
  [field: string]: unknown;
}

/** A stored row with the project and key that sent it. */
export interface StoredRow<T> {
  project: string;
  key_id: string;
  body: T;
}

/** The decision a claim applies (ADR 0008's decision record). */
export interface ClaimDecision {
  resume: Record<string, unknown>;
  decided_by: { principal: string; surface: string };
  reason?: string | null;
}

/** A claim as the route receives it (ADR 0054). */
export interface ClaimInput {
  execution_id: string;
  pending_created_at: string;
  claim_id: string;
  host: string;
  decision: ClaimDecision;
}

/** The claim in force for a pause. */
export interface ClaimRecord extends ClaimInput {
  decided_at: string;
}

/** The Platform's lease of an execution. */
export interface LeaseRecord {
  execution_id: string;
  holder: string;
  host: string;
  expires_at: string;
}

/** An eval run as exported (`agentkit eval export --dry-run`), kept as sent. */
export interface EvalRunInput {
  run_id: string;
  [field: string]: unknown;
}

/**
 * One trace of a project as a listing shows it: its root span's name, `ERROR` when any span failed (else the root's
 * status), its span count, the earliest start and the latest end (null while a span has not ended).
 */
export interface PlatformTraceSummary {
  trace_id: string;
  name: string;
  status: IngestedSpan['status'];
  span_count: number;
  start_time: string;
  end_time: string | null;
}

/** One request recorded by `--log-requests`: the route and the key's id, never the key. */
export interface RequestRecord {
  project: string;
  route: string;
  key_id: string;
  at: string;
}

/** The outcome of taking one token of a key's bucket. */
export interface RateDecision {
  allowed: boolean;
  /** When refused: milliseconds until a token is available. */
  retryAfterMs: number;
}

export interface PlatformStore {
  /** How messages name the store (a URL's password redacted). */
  readonly label: string;

  /**
   * The server secret keys are HMACed with: made once per store and kept (SQLite: a 0600 file beside the store;
   * Postgres: a row of `platform_secret`), unless `AGENTKIT_PLATFORM_SECRET` names one (ADR 0067).
   */
  serverSecret(): Promise<Buffer>;
  addKey(key: StoredApiKey): Promise<void>;
  /** Every key (revoked ones too) whose prefix is `prefix`. */
  keysByPrefix(prefix: string): Promise<StoredApiKey[]>;
  /** Every key, oldest first. */
  listKeys(): Promise<StoredApiKey[]>;
  /** Revoke the keys named (by id, or by prefix); answers those revoked now (already revoked ones are left as they were). */
  revokeKeys(ids: readonly string[], at: string): Promise<StoredApiKey[]>;

  /** Store checkpoints of `project`; a resent id is accepted again and left as first stored (idempotent). */
  putCheckpoints(project: string, rows: readonly CheckpointInput[], keyId: string): Promise<void>;
  /** The newest checkpoint of an execution (latest created_at, then arrival), or null. */
  latestCheckpoint(project: string, executionId: string): Promise<CheckpointInput | null>;
  /** Every checkpoint of an execution, oldest first (created_at, then arrival). */
  checkpointHistory(project: string, executionId: string): Promise<CheckpointInput[]>;
  /** Every checkpoint (of `project`, or of every project), in arrival order. */
  checkpoints(project?: string): Promise<Array<StoredRow<CheckpointInput>>>;
  /** When the execution's root `run_end` arrived (its created_at), or null. */
  finishedAt(project: string, executionId: string): Promise<string | null>;

  /**
   * Claim a pause (ADR 0054) atomically: the first claim of (project, execution, pause) wins; the same claim id
   * again wins again. `won` is true when the claim in force carries `claim.claim_id`.
   */
  claimPause(project: string, claim: ClaimInput, keyId: string): Promise<{ won: boolean; record: ClaimRecord }>;
  /** Every claim in force (of `project`, or of every project), oldest first. */
  claims(project?: string): Promise<Array<ClaimRecord & { project: string }>>;
  /**
   * Lease an execution to continue it (ADR 0054): granted when none is in force, it lapsed, or to its holder again;
   * else the lease in force. Atomic between racing hosts.
   */
  leaseExecution(
    project: string,
    executionId: string,
    holder: string,
    host: string,
    ttlMs: number,
    now?: number,
  ): Promise<{ won: boolean; lease: LeaseRecord }>;
  /**
   * Rows of executions arrived (ADR 0054): each one's lease in force is extended by its own time to live, or one is
   * started for the host sending them (`ttlMs`); a root `run_end` ends it.
   */
  touchLeases(project: string, rows: readonly CheckpointInput[], ttlMs: number, now?: number): Promise<void>;

  /** Store eval runs; a resent run id replaces the stored one (a re-export of the same run). */
  putEvalRuns(project: string, runs: readonly EvalRunInput[], keyId: string): Promise<void>;
  /** Eval runs (of `project`, or of every project), in arrival order. */
  evalRuns(project?: string): Promise<Array<StoredRow<EvalRunInput>>>;
  evalRun(project: string, runId: string): Promise<EvalRunInput | null>;

  /**
   * Store spans of `project`, idempotent on (project, trace_id, span_id): a resent span is accepted and left as
   * first stored. A span whose ids are not lowercase hex of the right length (or all zeros) is rejected.
   */
  putSpans(project: string, spans: readonly IngestedSpan[]): Promise<{ rejected: Array<{ span_id: string; reason: string }> }>;
  /** The spans of one trace of `project`, in start order; empty when none. */
  traceSpans(project: string, traceId: string): Promise<IngestedSpan[]>;
  /**
   * Traces of `project` whose root span (a span without a parent) started at or after `since` (ISO), newest first,
   * at most `limit` (default no cap); with `text`, only traces where a span's name or attributes contain it (case
   * insensitive, a text with a NUL matches nothing). A trace with several roots counts from its earliest.
   */
  traceSummaries(project: string, options: { since: string; limit?: number; text?: string }): Promise<PlatformTraceSummary[]>;
  /** Trace ids of `project` that begin with `prefix` (lowercase hex), sorted, at most `limit`. */
  traceIdsWithPrefix(project: string, prefix: string, limit: number): Promise<string[]>;

  recordRequest(record: RequestRecord): Promise<void>;
  requests(): Promise<RequestRecord[]>;

  /**
   * Take one token of a key's bucket (`rate` tokens a second, at most `burst`), atomically: replicas on one store share
   * the bucket (ADR 0068).
   */
  takeRateToken(project: string, keyId: string, rate: number, burst: number, now?: number): Promise<RateDecision>;

  close(): Promise<void>;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** Why a span cannot be stored, or null: ids must be lowercase hex of the right length, not all zeros. */
export function spanProblem(span: IngestedSpan): string | null {
  if (!TRACE_ID.test(span.trace_id) || /^0+$/.test(span.trace_id)) return 'trace_id must be 32 lowercase hex characters, not all zeros';
  if (!SPAN_ID.test(span.span_id) || /^0+$/.test(span.span_id)) return 'span_id must be 16 lowercase hex characters, not all zeros';
  if (span.parent_span_id !== null && !SPAN_ID.test(span.parent_span_id)) return 'parent_span_id must be 16 lowercase hex characters or null';
  // Postgres text holds no NUL; JSON columns escape it (`\u0000`), these three are stored as sent.
  for (const [field, text] of [
    ['name', span.name],
    ['status message', span.status_message],
    ['scope name', span.scope],
  ] as const) {
    if (text?.includes('\u0000')) return `the span's ${field} holds a NUL character`;
  }
  return null;
}

/** The `platform_spans` columns after `project`, in the order `spanValues` gives a span's values (both engines). */
export const SPAN_COLUMNS = [
  'trace_id',
  'span_id',
  'parent_span_id',
  'name',
  'kind',
  'start_time',
  'end_time',
  'status',
  'status_message',
  'attributes',
  'events',
  'resource',
  'scope',
] as const;

/** A span's values for `SPAN_COLUMNS`: the JSON columns as text. */
export function spanValues(span: IngestedSpan): Array<string | number | null> {
  return [
    span.trace_id,
    span.span_id,
    span.parent_span_id,
    span.name,
    span.kind,
    span.start_time,
    span.end_time,
    span.status,
    span.status_message,
    JSON.stringify(span.attributes),
    JSON.stringify(span.events),
    JSON.stringify(span.resource),
    span.scope,
  ];
}

/** The executions whose root `run_end` is among `rows` (a root row has no agent path, or one without `/`). */
export function endedExecutions(rows: readonly CheckpointInput[]): Set<string> {
  return new Set(rows.filter((r) => r.step_type === 'run_end' && isRoot(r)).map((r) => r.execution_id));
}

/** True for a row of the run's root (not a nested agent of a swarm or supervisor). */
export function isRoot(row: CheckpointInput): boolean {
  const path = (row.metadata as { agent_path?: unknown } | undefined)?.agent_path ?? row.agent_path;
  return path == null || !String(path).includes('/');
}
