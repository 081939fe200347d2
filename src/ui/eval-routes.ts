/**
 * The eval routes of the UI, read from the eval store (a local.db file or the Postgres store the UI serves): the
 * runs newest first, one run with its cases, and two runs compared exactly as `agentkit eval compare` compares them.
 */
import type { Request, Response } from 'express';
import type { RouteRegistrar } from '../http/validated-app.js';
import type { components } from '../../generated/types/ui.js';
import { NotFoundError } from '../errors.js';
import { compareRuns } from '../eval/compare.js';
import type { EvalRunRecord } from '../eval/records.js';
import type { EvalStore } from '../eval/store.js';

type Schemas = components['schemas'];

export function evalRoutes(router: RouteRegistrar, evals: EvalStore): void {
  router.get('/api/eval-runs', async (req: Request, res: Response) => {
    const query = req.query as { run_name?: string; limit?: number };
    const items = await evals.listRuns({ ...(query.run_name ? { runName: query.run_name } : {}), limit: Number(query.limit ?? 100) });
    res.json({ count: items.length, items: items as unknown as Schemas['UiEvalRun'][] } satisfies Schemas['UiEvalRunList']);
  });

  router.get('/api/eval-runs/:run_id', async (req: Request, res: Response) => {
    const runId = String(req.params.run_id);
    const run = await evals.getRun(runId);
    if (!run) throw new NotFoundError('not_found', `Eval run '${runId}' not found: no stored run has this id.`);
    res.json(run as unknown as Schemas['UiEvalRunDetail']);
  });

  router.get('/api/eval-compare', async (req: Request, res: Response) => {
    const query = req.query as unknown as { baseline: string; candidate: string; tolerance?: number };
    const baseline = await resolve(evals, String(query.baseline));
    const candidate = await resolve(evals, String(query.candidate));
    res.json(compareRuns(baseline, candidate, { tolerance: Number(query.tolerance ?? 0) }));
  });
}

/** Eval runs started within the last `days` days. */
export async function evalRunsSince(evals: EvalStore, days: number, now = Date.now()): Promise<number> {
  const since = new Date(now - days * 24 * 3600 * 1000).toISOString();
  return (await evals.listRuns({ limit: 1_000_000 })).filter((run) => run.started_at >= since).length;
}

/** A run id, else the latest run of that name; NotFound (404) naming the reference. */
async function resolve(evals: EvalStore, ref: string): Promise<EvalRunRecord> {
  const run = await evals.findRun(ref);
  if (!run) throw new NotFoundError('not_found', `Eval run '${ref}' not found: neither a run id nor a run name in the store.`);
  return run;
}
