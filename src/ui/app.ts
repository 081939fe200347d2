/**
 * The local UI's HTTP app: the JSON API of `spec/ui` (auth, overview, traces, replay forks, eval runs, executions,
 * pending interrupts, resume) on the validated Express builder, plus the built web app. Handlers parse, call one
 * store or runner, and map the outcome; the durability rules (atomic claim, AlreadyResumed) live in the SDK.
 *
 * On the shared builder (src/http): security headers and the loopback-Host check run first, then the matched route
 * is authenticated deny-by-default (./guard.ts: session 401, CSRF 403); only login and the web app's pages and assets
 * are open. Routing is strict and case-sensitive.
 */
import type { Express, Request, Response } from 'express';
import { doc } from '../../generated/schemas/ui.js';
import type { components } from '../../generated/types/ui.js';
import { quarantinedRows, type Checkpointer } from '../durability/checkpointer.js';
import { DECISION_STEP } from '../durability/decision.js';
import { ExecutionBusy } from '../durability/errors.js';
import { restoreIfMissing } from '../durability/run-end.js';
import { runnerOfExecution, type CheckpointOwner } from '../agent/durable/owner.js';
import { AgentkitError, NotFoundError } from '../errors.js';
import { createValidatedApp, type RouteRegistrar } from '../http/validated-app.js';
import { exportTrace } from '../replay/export-trace.js';
import { EvalStore } from '../eval/store.js';
import { annotationStoreOf, type AnnotationStore } from '../annotations/index.js';
import { forkStoreOf, type ForkStore } from '../forks/index.js';
import { Replay } from '../replay/replay.js';
import type { TraceStore } from '../tracing/trace-store.js';
import type { Checkpoint, TraceSummary } from '../types.js';
import { authRoutes } from './auth-routes.js';
import { decisionRoutes } from './decision-routes.js';
import { evalRoutes, evalRunsSince } from './eval-routes.js';
import { executionState } from './execution-state.js';
import { ForkRegistry } from './forks.js';
import { loopbackHostOnly, noStoreForApi, sessionUser, UI_OPEN_ROUTES, UI_PAGE_ROUTES, uiAuthenticate, type UiAuth } from './guard.js';
import { recoveryOverview, recoveryRoutes } from './recovery-routes.js';
import { replayRoutes } from './replay-routes.js';
import { RunnerRegistry } from './runners.js';
import { securityHeaders, webApp } from './static.js';
import { LoginThrottle } from './throttle.js';

type Schemas = components['schemas'];

/** Request bodies are small JSON documents: 1 MiB is plenty. */
export const UI_MAX_BODY_BYTES = 1024 * 1024;

export interface UiAppOptions {
  /** Where executions and pending interrupts are read (SQLite or Postgres). */
  checkpointer: Checkpointer;
  /** Where traces are read; favorites are written to the same store file. */
  traceStore: TraceStore;
  /** Where replay forks are kept (default: the trace store's own store, so every UI process on it shares them). */
  forkStore?: ForkStore;
  /** Login with the auth file's credentials, or none (`--no-auth`). */
  auth: UiAuth;
  /** Where eval runs are read (default: the eval store in the trace store's file). */
  evalStore?: EvalStore;
  /** The Platform project whose traces and eval runs the stores above show (`--project`): the page names it. */
  project?: string;
  /** The project directory: save-as-test appends to `<projectDir>/.agentkit/regression_tests.jsonl` (default: cwd). */
  projectDir?: string;
  /** Runners the resume and rerun routes may call; nothing else ever runs. */
  runners?: Iterable<unknown> | RunnerRegistry;
  /** The built web app directory (index.html + assets/); omitted: API only. */
  webDir?: string;
  /** Login throttling (default: 5 failures per 5 minutes, then 60 s doubling to 1 h). */
  throttle?: LoginThrottle;
  /** Server-side failures, for logging. */
  onServerError?: (error: unknown) => void;
  /**
   * Answer only requests addressed to a loopback name (DNS-rebinding protection). Default true; `startUiServer`
   * turns it off for an acknowledged non-loopback bind.
   */
  loopbackOnly?: boolean;
}

/** Build the app. */
export function createUiApp(options: UiAppOptions): Express {
  const registry = options.runners instanceof RunnerRegistry ? options.runners : new RunnerRegistry(options.runners ?? []);
  const throttle = options.throttle ?? new LoginThrottle();
  // Eval runs (ADR 0064) and favorites (ADR 0065) are read from the trace store's own store, file or Postgres.
  const annotations = annotationStoreOf(options.traceStore.dbPath);
  const evals = options.evalStore ?? new EvalStore({ dbPath: options.traceStore.dbPath });
  const forks = new ForkRegistry(options.forkStore ?? forkStoreOf(options.traceStore.dbPath), async (traceId, step) =>
    (await Replay.load(traceId, { store: options.traceStore })).forkAt(step),
  );
  const auth = options.auth;
  return createValidatedApp({
    doc,
    maxBodyBytes: UI_MAX_BODY_BYTES,
    guards: [securityHeaders(), ...(options.loopbackOnly === false ? [] : [loopbackHostOnly()]), noStoreForApi()],
    authenticate: uiAuthenticate(() => auth),
    openRoutes: UI_OPEN_ROUTES,
    extraRoutes: UI_PAGE_ROUTES,
    onServerError: (error) => options.onServerError?.(error),
    routes(app) {
      // The web app's pages and assets (extra routes, open): only non-`/api` GETs, matched by UI_PAGE_ROUTES.
      // Anything else falls through to the contract's JSON 404, never an HTML page.
      if (options.webDir) app.use(webApp(options.webDir));
      authRoutes(app, auth, throttle, options.project);
      traceRoutes(app, options.traceStore, annotations, options.checkpointer, evals);
      replayRoutes(app, { store: options.traceStore, registry, forks, projectDir: options.projectDir ?? process.cwd() });
      evalRoutes(app, evals);
      durabilityRoutes(app, options.checkpointer, registry, auth);
      recoveryRoutes(app, options.checkpointer);
      decisionRoutes(app, options.checkpointer);
    },
  });
}

function traceRoutes(router: RouteRegistrar, store: TraceStore, annotations: AnnotationStore, checkpointer: Checkpointer, evals: EvalStore): void {
  router.get('/api/overview', async (_req: Request, res: Response) => {
    const traces = await store.listTraces({ lastHours: 24 });
    const counts = await executionCounts(checkpointer);
    const recovery = await recoveryOverview(checkpointer);
    const favored = await annotations.favorites();
    res.json({
      traces_last_24h: traces.length,
      failing_traces_last_24h: traces.filter((trace) => trace.status === 'ERROR').length,
      pending_approvals_count: counts.pending,
      failed_executions_count: counts.failed,
      eval_runs_last_7d: await evalRunsSince(evals, 7),
      recent_traces: traces.slice(0, 10).map((trace) => withFavorite(trace, favored)),
      ...recovery,
    } satisfies Schemas['Overview'] & { recent_traces: Schemas['UiTraceSummary'][] });
  });

  router.get('/api/traces', async (req: Request, res: Response) => {
    const query = req.query as { last_hours?: number; q?: string; status?: string; favorites?: boolean };
    let traces = await store.listTraces({ lastHours: Number(query.last_hours ?? 24) });
    if (query.q !== undefined && query.q !== '') {
      const matching = new Set((await store.search(query.q)).map((trace) => trace.trace_id));
      traces = traces.filter((trace) => matching.has(trace.trace_id));
    }
    if (query.status !== undefined) traces = traces.filter((trace) => trace.status === query.status);
    const favored = await annotations.favorites();
    if (String(query.favorites) === 'true') traces = traces.filter((trace) => favored.has(trace.trace_id));
    const items = traces.map((trace) => withFavorite(trace, favored));
    res.json({ items, count: items.length } satisfies Schemas['UiTraceList']);
  });

  router.get('/api/traces/:trace_id', async (req: Request, res: Response) => {
    res.json(await store.getTrace(String(req.params.trace_id)));
  });

  router.get('/api/traces/:trace_id/export', async (req: Request, res: Response) => {
    const query = req.query as { include_attachments?: boolean; include_checkpoint_state?: boolean };
    const document = await exportTrace(store, String(req.params.trace_id), {
      includeAttachments: String(query.include_attachments) === 'true',
      includeCheckpointState: String(query.include_checkpoint_state) === 'true',
    });
    res.json(document);
  });

  router.get('/api/traces/:trace_id/favorite', async (req: Request, res: Response) => {
    // 404 for an unknown trace, 409 for a caller's trace of several runs; a caller's trace of one run names it.
    const traceId = await store.resolve(String(req.params.trace_id));
    res.json({ trace_id: traceId, favorite: (await annotations.get(traceId))?.favorite ?? false } satisfies Schemas['TraceFavorite']);
  });

  router.put('/api/traces/:trace_id/favorite', async (req: Request, res: Response) => {
    const { favorite } = req.body as Schemas['FavoriteRequest'];
    const traceId = await store.resolve(String(req.params.trace_id));
    await annotations.set(traceId, { favorite });
    res.json({ trace_id: traceId, favorite } satisfies Schemas['TraceFavorite']);
  });
}

function durabilityRoutes(router: RouteRegistrar, checkpointer: Checkpointer, registry: RunnerRegistry, auth: UiAuth): void {
  router.get('/api/executions/:execution_id', async (req: Request, res: Response) => {
    const executionId = String(req.params.execution_id);
    const rows = await history(checkpointer, executionId);
    const conflicts = rows.length > 0 ? await decisionConflicts(checkpointer, executionId) : [];
    res.json({ ...describeExecution(executionId, rows, registry), conflicts });
  });

  router.get('/api/pending-interrupts', async (req: Request, res: Response) => {
    const limit = Number((req.query as { limit?: number }).limit ?? 100);
    const pending = await checkpointer.listPendingInterrupts({ limit });
    // Each row says which runner resumes it and whether it is registered here, so the page can disable Approve and
    // Reject with the reason instead of offering a click that answers 503.
    const items: Schemas['UiPendingInterrupt'][] = [];
    for (const row of pending) {
      const rows = await checkpointer.list(row.execution_id, { limit: 1_000_000 });
      const owner = runnerOfExecution(rows) ?? { kind: 'chain', name: row.chain_name };
      items.push({ ...(row as Schemas['PendingInterrupt']), ...runnerOf(owner, registry) });
    }
    res.json({ count: items.length, items, conflicts: await decisionConflicts(checkpointer) } satisfies Schemas['PendingInterruptList']);
  });

  router.post('/api/executions/:execution_id/resume', async (req: Request, res: Response) => {
    const executionId = String(req.params.execution_id);
    const body = req.body as Schemas['ResumeRequest'];
    // Connected: a run paused on another host is restored from the Platform first.
    await restoreIfMissing(checkpointer, executionId);
    const rows = await history(checkpointer, executionId);
    const owner = runnerOfExecution(rows)!;
    const runner = registry.get(owner.kind, owner.name);
    if (!runner) {
      throw new AgentkitError(
        'no_runner',
        `No runner registered for ${owner.kind} '${owner.name}': start the UI with --agent <file>:<attr> naming it (registered: ${registry.keys().join(', ') || 'none'}).`,
      );
    }
    const state = executionState(rows);
    if (state !== 'paused') {
      // A run that some process is running now (it holds the lease): ExecutionBusy, as the SDK and CLI say.
      const lease = await checkpointer.leaseOf(executionId);
      if (lease && Date.parse(lease.expires_at) > Date.now()) {
        throw new ExecutionBusy(
          `Execution '${executionId}' is being run by another process right now (it holds the execution's lease); nothing was run here. Try again once that run has ended.`,
        );
      }
      throw new AgentkitError(
        'already_resumed',
        `Execution '${executionId}' is not waiting for a decision (it is ${state}); it was already resumed or has finished.`,
      );
    }
    // The runner claims the pending row atomically: of concurrent resumers exactly one runs, the others get
    // AlreadyResumed (409).
    // Who decided is the signed-in user (`anonymous` with --no-auth, where nobody signs in), never a name from the
    // request body: an `approver` in the metadata is overwritten with it, so the run sees the same name as the record.
    const principal = auth.mode === 'none' ? 'anonymous' : sessionUser(req, auth)!.username;
    const result = await runner.resume(executionId, {
      resumeValue: { approved: body.approved, metadata: { ...(body.metadata ?? {}), approver: principal } },
      approver: principal,
      surface: 'ui',
      reason: body.reason ?? null,
    });
    res.json({ execution_id: executionId, chain_name: owner.name, result, reason: body.reason ?? null });
  });
}

/** Every checkpoint of an execution, oldest first; NotFoundError (404) when there are none. */
async function history(checkpointer: Checkpointer, executionId: string): Promise<Checkpoint[]> {
  const rows = await checkpointer.list(executionId, { limit: 1_000_000 });
  if (rows.length === 0) throw new NotFoundError('execution_not_found', `Execution '${executionId}' not found: no checkpoint has this execution id.`);
  return rows;
}

/** `<kind>:<name>` of the runner and whether this UI has it registered. */
function runnerOf(owner: CheckpointOwner, registry: RunnerRegistry): { runner: string; runner_registered: boolean } {
  return { runner: `${owner.kind}:${owner.name}`, runner_registered: registry.get(owner.kind, owner.name) !== undefined };
}

/** Offline decisions the Platform refused (docs/adr/0054), of one execution or of the store. */
async function decisionConflicts(checkpointer: Checkpointer, executionId?: string): Promise<Schemas['DecisionConflict'][]> {
  const rows = await quarantinedRows(checkpointer, executionId ? { executionId } : {});
  return rows.filter((row) => row.step_type === DECISION_STEP);
}

function describeExecution(executionId: string, rows: Checkpoint[], registry: RunnerRegistry): Omit<Schemas['ExecutionHistory'], 'conflicts'> {
  const last = rows[rows.length - 1]!;
  const state = executionState(rows);
  const owner = runnerOfExecution(rows)!;
  return {
    execution_id: executionId,
    chain_name: owner.name,
    state,
    agent_path: last.agent_path,
    checkpoint_count: rows.length,
    latest_checkpoint_id: last.checkpoint_id,
    pending_interrupt:
      state === 'paused'
        ? {
            execution_id: executionId,
            chain_name: last.chain_name,
            node_id: last.node_id,
            reason: last.interrupt_reason ?? 'interrupt',
            context: (last.interrupt_context ?? {}) as Schemas['JsonObject'],
            agent_path: last.agent_path,
            created_at: last.created_at,
          }
        : null,
    checkpoints: rows as unknown as Schemas['Checkpoint'][],
    ...runnerOf(owner, registry),
  };
}

/** Pending and failed-or-interrupted counts: one query when the backend offers it, else from the listing. */
async function executionCounts(checkpointer: Checkpointer): Promise<{ pending: number; failed: number }> {
  const counted = checkpointer as Checkpointer & { executionCounts?: () => Promise<{ pending: number; failed: number }> };
  if (typeof counted.executionCounts === 'function') return counted.executionCounts();
  const pending = await checkpointer.listPendingInterrupts({ limit: 1_000_000 });
  return { pending: pending.length, failed: new Set(pending.map((row) => row.execution_id)).size };
}

function withFavorite(trace: TraceSummary, favored: Set<string>): Schemas['UiTraceSummary'] {
  return { ...trace, favorite: favored.has(trace.trace_id) };
}
