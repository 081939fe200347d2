/**
 * The Platform's HTTP app (issue 42): every route of `spec/platform` on the hardened, validated app builder (the same
 * as the served agent and the UI: routing, then authentication on the matched route, body caps, JSON limits, 503 on
 * storage faults). A request's key is checked against the store on every request (no cache: a revoked key gets 401 on
 * its next request), then the route's scope (403), then the key's rate (429 with `Retry-After`). The project comes
 * from the key only: a body naming another project is refused with 403, and every read and write is of that project.
 *
 * `POST /v1/traces` is OTLP/HTTP trace ingestion (src/platform/otlp/, its messages in spec/otlp/; ADRs 0070, 0071): the
 * path exporters post to, outside `/public/v1` and the OpenAPI document (its body is protobuf or OTLP JSON, read by the
 * OTLP handler itself, before any JSON parser), behind the same key check, the `traces:write` scope and the same rate.
 */
import express, { type Express, type Request, type Response } from 'express';
import { doc } from '../../../generated/schemas/platform.js';
import { continueWhenAccepted, createValidatedApp, type AuthFailure } from '../../http/validated-app.js';
import { createOtlpTracesHandler } from '../otlp/index.js';
import { verifyApiKey } from './api-keys.js';
import { platformTrace } from './platform-trace.js';
import { allows } from './route-scopes.js';
import type { CheckpointInput, ClaimInput, EvalRunInput, PlatformStore, StoredApiKey } from './store-types.js';

export interface PlatformAppOptions {
  store: PlatformStore;
  /** Largest accepted checkpoint row, as serialized JSON bytes (default 1 MiB); larger rows are listed as rejected. */
  maxRowBytes?: number;
  /** How long arriving rows keep an execution's lease when no continuation set its own (default 30 000 ms). */
  leaseTtlMs?: number;
  /** Request body cap (default 64 MiB). */
  maxBodyBytes?: number;
  /** Requests a second per key (default 50); 0 turns the limit off. */
  rate?: number;
  /** Tokens a key's bucket holds (default 100). */
  burst?: number;
  /** Record each authenticated request (route, key id, time) in the store's `platform_requests` (default false). */
  logRequests?: boolean;
  /** Called for server-side failures (5xx), for logging. */
  onServerError?: (error: unknown) => void;
}

const INVALID_KEY: AuthFailure = { status: 401, code: 'invalid_api_key', detail: 'Missing, unknown or revoked API key.' };

const KEY = Symbol('agentkit.platformKey');

/** The key a request was authenticated with. */
function keyOf(req: Request): StoredApiKey {
  return (req as unknown as Record<symbol, StoredApiKey>)[KEY]!;
}

/** The app; call `warmUp` after listening. */
export function createPlatformApp(options: PlatformAppOptions): Express {
  const { store } = options;
  const maxRowBytes = options.maxRowBytes ?? 1024 * 1024;
  const leaseTtlMs = options.leaseTtlMs ?? 30_000;
  const rate = options.rate ?? 50;
  const burst = options.burst ?? 100;
  let secret: Promise<Buffer> | undefined;
  const serverSecret = () => {
    secret ??= store.serverSecret().catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };

  /** 403 when `body.project` names a project other than the key's. */
  const otherProject = (req: Request, res: Response): boolean => {
    const named = (req.body as { project?: string }).project;
    const own = keyOf(req).project;
    if (named === undefined || named === own) return false;
    res.status(403).json({ detail: `this API key belongs to project '${own}'; the body names project '${named}'`, code: 'forbidden' });
    return true;
  };

  /**
   * Who may make the request `routeKey` names: the key's row, or the refusal (401 unknown or revoked, 403 a scope the
   * key lacks). Nothing cached: a revoked key is refused on its next request.
   */
  const admit = async (req: Request, routeKey: string | undefined): Promise<StoredApiKey | AuthFailure | null> => {
    const presented = req.headers['x-api-key'];
    if (typeof presented !== 'string' || presented === '') return INVALID_KEY;
    const check = await verifyApiKey(store, await serverSecret(), presented);
    if (!check.valid) return INVALID_KEY;
    if (routeKey === undefined) return null;
    const { key } = check;
    if (!allows(key.scopes, routeKey)) {
      return { status: 403, code: 'forbidden', detail: `this API key's scopes (${key.scopes.join(', ')}) do not allow ${routeKey}` };
    }
    return key;
  };

  /** Seconds the key must wait (its bucket is empty), or null. */
  const throttled = async (key: StoredApiKey): Promise<number | null> => {
    if (rate <= 0) return null;
    const decision = await store.takeRateToken(key.project, key.id, rate, burst);
    return decision.allowed ? null : Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  };

  const api = createValidatedApp({
    doc,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
    jsonLimits: { maxKeys: 1_000_000 },
    ...(options.onServerError ? { onServerError: options.onServerError } : {}),
    async authenticate(req, route) {
      const admitted = await admit(req, route?.key);
      if (admitted === null || 'status' in admitted) return admitted;
      const key = admitted;
      const wait = await throttled(key);
      if (wait !== null) {
        return {
          status: 429,
          code: 'rate_limited',
          detail: `this API key is over its rate of ${rate} requests a second; retry after ${wait}s`,
          headers: { 'Retry-After': String(wait) },
        };
      }
      (req as unknown as Record<symbol, StoredApiKey>)[KEY] = key;
      if (options.logRequests) await store.recordRequest({ project: key.project, route: route!.key, key_id: key.id, at: new Date().toISOString() });
      return null;
    },
    routes(app) {
      app.get('/public/v1/auth/check', (req: Request, res: Response) => {
        const key = keyOf(req);
        res.json({ domain_id: 'agentkit', project_id: key.project, scopes: key.scopes });
      });

      app.post('/public/v1/checkpoints/ingest', async (req: Request, res: Response) => {
        if (otherProject(req, res)) return;
        const { project, id: keyId } = keyOf(req);
        const body = req.body as { checkpoints: CheckpointInput[] };
        const accepted: CheckpointInput[] = [];
        const rejected: Array<{ id: string; reason: string }> = [];
        for (const row of body.checkpoints) {
          const size = Buffer.byteLength(JSON.stringify(row));
          if (size > maxRowBytes) {
            rejected.push({ id: row.checkpoint_id, reason: `checkpoint is ${size} bytes, over the ${maxRowBytes}-byte row limit` });
            continue;
          }
          // ADR 0054: a decision made offline is judged here, as a claim of its pause; another decision in force refuses it.
          const conflict = await offlineConflict(store, project, row, keyId);
          if (conflict) rejected.push({ id: row.checkpoint_id, reason: conflict });
          else accepted.push(row);
        }
        await store.putCheckpoints(project, accepted, keyId);
        await store.touchLeases(project, accepted, leaseTtlMs);
        res.json({ accepted: accepted.map((row) => row.checkpoint_id), rejected });
      });

      app.get('/public/v1/checkpoints/:execution_id/latest', async (req: Request, res: Response) => {
        const row = await store.latestCheckpoint(keyOf(req).project, String(req.params.execution_id));
        if (row === null) {
          res.status(404).json({ detail: `no checkpoint of execution '${req.params.execution_id}'`, code: 'checkpoint_not_found' });
          return;
        }
        res.json(row);
      });

      app.get('/public/v1/checkpoints/:execution_id/history', async (req: Request, res: Response) => {
        const rows = await store.checkpointHistory(keyOf(req).project, String(req.params.execution_id));
        if (rows.length === 0) {
          res.status(404).json({ detail: `no checkpoint of execution '${req.params.execution_id}'`, code: 'checkpoint_not_found' });
          return;
        }
        res.json({ checkpoints: rows });
      });

      // ADR 0054: the first claim of a pause wins; the same claim id again wins again; any other gets the one in force.
      app.post('/public/v1/executions/:execution_id/claim', async (req: Request, res: Response) => {
        const { project, id: keyId } = keyOf(req);
        const body = req.body as Omit<ClaimInput, 'execution_id'>;
        const { won, record } = await store.claimPause(project, { ...body, execution_id: String(req.params.execution_id) }, keyId);
        if (won) {
          res.json(record);
          return;
        }
        const who = record.decision.decided_by;
        res.status(409).json({
          detail: `execution '${record.execution_id}' was already resumed: decided by ${who.principal} (${who.surface}) on host ${record.host} at ${record.decided_at}`,
          code: 'already_resumed',
          claim: record,
        });
      });

      // ADR 0054: continuing a replicated execution after a crash takes this lease; rows arriving extend it.
      app.post('/public/v1/executions/:execution_id/lease', async (req: Request, res: Response) => {
        const { project } = keyOf(req);
        const body = req.body as { holder: string; host: string; ttl_ms: number };
        const executionId = String(req.params.execution_id);
        const finished = await store.finishedAt(project, executionId);
        if (finished) {
          // A stale copy elsewhere: the run already ended; there is nothing to continue.
          res.status(409).json({
            detail: `execution '${executionId}' already finished (its run_end of ${finished} is on the Platform); there is nothing to continue`,
            code: 'execution_busy',
            lease: { execution_id: executionId, holder: 'finished', host: 'the Platform', expires_at: finished },
          });
          return;
        }
        const { won, lease } = await store.leaseExecution(project, executionId, body.holder, body.host, body.ttl_ms);
        if (won) {
          res.json(lease);
          return;
        }
        res.status(409).json({
          detail: `execution '${executionId}' is being run elsewhere: ${lease.holder} on ${lease.host} holds the Platform's lease until ${lease.expires_at}`,
          code: 'execution_busy',
          lease,
        });
      });

      app.post('/public/v1/eval/runs/ingest', async (req: Request, res: Response) => {
        if (otherProject(req, res)) return;
        const { project, id: keyId } = keyOf(req);
        const body = req.body as { runs: EvalRunInput[] };
        await store.putEvalRuns(project, body.runs, keyId);
        res.json({ accepted: body.runs.map((run) => run.run_id), rejected: [] });
      });

      app.get('/public/v1/eval/runs', async (req: Request, res: Response) => {
        const limit = req.query.limit === undefined ? 50 : Number(req.query.limit);
        const runs = await store.evalRuns(keyOf(req).project);
        res.json({
          runs: runs
            .map((row) => row.body)
            .reverse()
            .slice(0, limit),
        });
      });

      app.get('/public/v1/eval/runs/:run_id', async (req: Request, res: Response) => {
        const run = await store.evalRun(keyOf(req).project, String(req.params.run_id));
        if (run === null) {
          res.status(404).json({ detail: `no eval run '${req.params.run_id}' in this project`, code: 'not_found' });
          return;
        }
        res.json(run);
      });

      app.get('/public/v1/traces/:trace_id', async (req: Request, res: Response) => {
        const traceId = String(req.params.trace_id);
        const spans = await store.traceSpans(keyOf(req).project, traceId);
        if (spans.length === 0) {
          res.status(404).json({ detail: `no trace '${traceId}'`, code: 'trace_not_found' });
          return;
        }
        res.json(platformTrace(traceId, spans));
      });
    },
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.post(
    OTLP_TRACES_PATH,
    // A client waiting for `100 Continue` gets it here: the handler reads the body itself (a refused one is drained
    // within a bound, ADR 0071).
    continueWhenAccepted,
    createOtlpTracesHandler<StoredApiKey>({
      async authenticate(req) {
        const admitted = await admit(req, `POST ${OTLP_TRACES_PATH}`);
        return admitted === null || 'status' in admitted ? (admitted ?? INVALID_KEY) : admitted;
      },
      throttle: (key) => throttled(key),
      write: (project, spans) => store.putSpans(project, spans),
      ...(options.onServerError ? { onServerError: options.onServerError } : {}),
    }),
  );
  app.use(api);
  return app;
}

/** Where OTLP/HTTP exporters post spans (the OTLP default path; `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). */
export const OTLP_TRACES_PATH = '/v1/traces';

/**
 * A decision row written with `--offline-decision` (its `metadata.node_output.offline_decision` names the host) claims
 * its pause when it arrives, as a claim through the claim route would (ADR 0054); when another decision is already in
 * force for that pause the row is refused with `conflict: decided by <principal> (<surface>) on <host> at <time>`.
 * Returns that reason, or null (not an offline decision, or it won).
 */
async function offlineConflict(store: PlatformStore, project: string, row: CheckpointInput, keyId: string): Promise<string | null> {
  const { step_type: step, metadata } = row as { step_type?: unknown; metadata?: { node_output?: Record<string, unknown> | null } };
  const output = metadata?.node_output;
  const offline = output?.offline_decision as { host?: unknown } | undefined;
  if (step !== 'resume' || !output || !offline || typeof offline.host !== 'string' || typeof output.pending_created_at !== 'string') return null;
  const { won, record } = await store.claimPause(
    project,
    {
      execution_id: row.execution_id,
      pending_created_at: output.pending_created_at,
      claim_id: `offline:${row.checkpoint_id}`,
      host: offline.host,
      decision: {
        resume: output.resume as Record<string, unknown>,
        decided_by: output.decided_by as { principal: string; surface: string },
        reason: (output.reason as string | null | undefined) ?? null,
      },
    },
    keyId,
  );
  if (won) return null;
  const who = record.decision.decided_by;
  return `conflict: decided by ${who.principal} (${who.surface}) on ${record.host} at ${record.decided_at}`;
}
