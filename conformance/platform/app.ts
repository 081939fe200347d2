/**
 * The local Platform: every route of `spec/platform` on the hardened, validated app builder (the same as the served
 * agent and the UI), storing into a PlatformStore. Keys are checked in constant time (SHA-256 digests); a key listed
 * as forbidden is known but gets 403. A checkpoint row larger than `maxRowBytes` is rejected on payload grounds
 * (listed in `rejected` with its reason) while the rest of the batch is accepted, as the real Platform does.
 */
import type { Express, Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { doc } from '../../generated/schemas/platform.js';
import { createValidatedApp, type AuthFailure } from '../../src/http/validated-app.js';
import { keyFingerprint, type ClaimInput, type PlatformStore } from './store.js';

export interface PlatformAppOptions {
  store: PlatformStore;
  /** Keys that may call every route. */
  apiKeys: readonly string[];
  /** Keys that are known but lack every scope (403). */
  forbiddenKeys?: readonly string[];
  /** Largest accepted checkpoint row, as serialized JSON bytes (default 1 MiB). */
  maxRowBytes?: number;
  /** How long rows arriving keep an execution's lease when no continuation set its own time (default 30 000 ms). */
  leaseTtlMs?: number;
  /** Request body cap (default 64 MiB). */
  maxBodyBytes?: number;
  /** The project a key without one belongs to (auth check's `project_id`). */
  defaultProject?: string | null;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

function matchesAny(presented: string, keys: readonly Buffer[]): boolean {
  const candidate = digest(presented);
  let found = false;
  for (const key of keys) if (timingSafeEqual(candidate, key)) found = true;
  return found;
}

const INVALID_KEY: AuthFailure = { status: 401, code: 'invalid_api_key', detail: 'Missing or invalid API key.' };
const FORBIDDEN: AuthFailure = { status: 403, code: 'forbidden', detail: 'This API key has no scope for this route.' };

export function createPlatformApp(options: PlatformAppOptions): Express {
  const allowed = options.apiKeys.map(digest);
  const forbidden = (options.forbiddenKeys ?? []).map(digest);
  const maxRowBytes = options.maxRowBytes ?? 1024 * 1024;
  const leaseTtlMs = options.leaseTtlMs ?? 30_000;
  const { store } = options;
  const keyOf = (req: Request) => String(req.headers['x-api-key'] ?? '');

  return createValidatedApp({
    doc,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
    jsonLimits: { maxKeys: 1_000_000 },
    authenticate(req, route) {
      const key = keyOf(req);
      if (key && matchesAny(key, allowed)) {
        if (route) store.logRequest(`${route.method} ${route.path}`, keyFingerprint(key));
        return null;
      }
      if (key && matchesAny(key, forbidden)) return FORBIDDEN;
      return INVALID_KEY;
    },
    routes(app) {
      app.get('/public/v1/auth/check', (_req: Request, res: Response) => {
        res.json({ domain_id: 'local', project_id: options.defaultProject ?? null, scopes: ['checkpoints', 'evals', 'traces'] });
      });

      app.post('/public/v1/checkpoints/ingest', (req: Request, res: Response) => {
        const body = req.body as { project?: string; checkpoints: Array<{ checkpoint_id: string; execution_id: string; created_at: string }> };
        const accepted: typeof body.checkpoints = [];
        const rejected: Array<{ id: string; reason: string }> = [];
        for (const row of body.checkpoints) {
          const size = Buffer.byteLength(JSON.stringify(row));
          if (size > maxRowBytes) rejected.push({ id: row.checkpoint_id, reason: `checkpoint is ${size} bytes, over the ${maxRowBytes}-byte row limit` });
          else {
            // ADR 0054: a decision made offline is judged here, as a claim of its pause; another decision in force refuses it.
            const conflict = offlineConflict(store, row, keyFingerprint(keyOf(req)));
            if (conflict) rejected.push({ id: row.checkpoint_id, reason: conflict });
            else accepted.push(row);
          }
        }
        store.putCheckpoints(accepted, body.project ?? null, keyFingerprint(keyOf(req)));
        store.touchLeases(accepted, leaseTtlMs);
        res.json({ accepted: accepted.map((row) => row.checkpoint_id), rejected });
      });

      app.get('/public/v1/checkpoints/:execution_id/latest', (req: Request, res: Response) => {
        const row = store.latestCheckpoint(String(req.params.execution_id));
        if (row === null) {
          res.status(404).json({ detail: `no checkpoint of execution '${req.params.execution_id}'`, code: 'checkpoint_not_found' });
          return;
        }
        res.json(row);
      });

      app.get('/public/v1/checkpoints/:execution_id/history', (req: Request, res: Response) => {
        const rows = store.checkpointHistory(String(req.params.execution_id));
        if (rows.length === 0) {
          res.status(404).json({ detail: `no checkpoint of execution '${req.params.execution_id}'`, code: 'checkpoint_not_found' });
          return;
        }
        res.json({ checkpoints: rows });
      });

      // ADR 0054: the first claim of a pause wins; the same claim id again wins again; any other gets the one in force.
      app.post('/public/v1/executions/:execution_id/claim', (req: Request, res: Response) => {
        const body = req.body as Omit<ClaimInput, 'execution_id'>;
        const { won, record } = store.claimPause({ ...body, execution_id: String(req.params.execution_id) }, keyFingerprint(keyOf(req)));
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
      app.post('/public/v1/executions/:execution_id/lease', (req: Request, res: Response) => {
        const body = req.body as { holder: string; host: string; ttl_ms: number };
        const executionId = String(req.params.execution_id);
        const finished = store.finishedAt(executionId);
        if (finished) {
          // A stale copy elsewhere: the run already ended; there is nothing to continue.
          res.status(409).json({
            detail: `execution '${executionId}' already finished (its run_end of ${finished} is on the Platform); there is nothing to continue`,
            code: 'execution_busy',
            lease: { execution_id: executionId, holder: 'finished', host: 'the Platform', expires_at: finished },
          });
          return;
        }
        const { won, lease } = store.leaseExecution(executionId, body.holder, body.host, body.ttl_ms);
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

      app.post('/public/v1/eval/runs/ingest', (req: Request, res: Response) => {
        const body = req.body as { project?: string; runs: Array<{ run_id: string }> };
        store.putEvalRuns(body.runs, body.project ?? null, keyFingerprint(keyOf(req)));
        res.json({ accepted: body.runs.map((run) => run.run_id), rejected: [] });
      });

      app.get('/public/v1/traces/:trace_id', (req: Request, res: Response) => {
        const trace = store.trace(String(req.params.trace_id));
        if (trace === null) {
          res.status(404).json({ detail: `no trace '${req.params.trace_id}'`, code: 'trace_not_found' });
          return;
        }
        res.json(trace);
      });
    },
  });
}

/**
 * A decision row written with `--offline-decision` (its `metadata.node_output.offline_decision` names the host) claims its
 * pause when it arrives, as a claim through the claim route would; when another decision is already in force for
 * that pause the row is refused with `conflict: decided by <principal> (<surface>) on <host> at <time>`. Returns
 * that reason, or null (not an offline decision, or it won).
 */
function offlineConflict(store: PlatformStore, row: { checkpoint_id: string; execution_id: string }, keyId: string): string | null {
  const { step_type: step, metadata } = row as { step_type?: unknown; metadata?: { node_output?: Record<string, unknown> | null } };
  const output = metadata?.node_output;
  const offline = output?.offline_decision as { host?: unknown } | undefined;
  if (step !== 'resume' || !output || !offline || typeof offline.host !== 'string' || typeof output.pending_created_at !== 'string') return null;
  const { won, record } = store.claimPause(
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
