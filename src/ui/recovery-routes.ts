/**
 * The UI's view of recovery (docs/adr/0050, 0051): `GET /api/executions` lists executions with where each stands
 * (orphans, parked runs, attempts) and the latest recovery actions (which process recovered what, when, which
 * attempt), and the overview's counts of orphaned and parked executions. A store without the recovery protocol
 * lists nothing (its orphans are found and resumed by hand).
 */
import type { Request, Response } from 'express';
import type { components } from '../../generated/types/ui.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import { parseLeaseOwner } from '../durability/lease-owner.js';
import { supportsRecovery, type RecoveryRecord } from '../durability/recovery-store.js';
import type { RouteRegistrar } from '../http/validated-app.js';
import type { ExecutionState } from '../recovery/execution-state.js';
import { listExecutions } from '../recovery/list.js';

type Schemas = components['schemas'];

/** How many executions the overview reads to count orphans and parked runs (the most recently written). */
const OVERVIEW_SCAN = 1000;

/** A stored recovery record as the API shows it, with the recovering process's host and pid. */
function recoveryAction(record: RecoveryRecord): Schemas['RecoveryAction'] {
  const owner = parseLeaseOwner(record.recovered_by);
  return { ...record, host: owner?.host ?? null, pid: owner?.pid ?? null };
}

/** Install `GET /api/executions`. */
export function recoveryRoutes(router: RouteRegistrar, checkpointer: Checkpointer): void {
  router.get('/api/executions', async (req: Request, res: Response) => {
    const query = req.query as { state?: ExecutionState; limit?: number };
    if (!supportsRecovery(checkpointer)) {
      res.json({ items: [], count: 0, recoveries: [] } satisfies Schemas['ExecutionList']);
      return;
    }
    const items = await listExecutions(checkpointer, { limit: Number(query.limit ?? 100), ...(query.state ? { state: query.state } : {}) });
    const recoveries = (await checkpointer.listRecoveries({ limit: 100 })).map(recoveryAction);
    res.json({ items, count: items.length, recoveries } satisfies Schemas['ExecutionList']);
  });
}

/** The overview's recovery fields: orphaned and parked counts among the latest executions, the latest actions. */
export async function recoveryOverview(
  checkpointer: Checkpointer,
): Promise<Pick<Schemas['Overview'], 'orphaned_executions_count' | 'needs_attention_count' | 'recent_recoveries'>> {
  if (!supportsRecovery(checkpointer)) return { orphaned_executions_count: 0, needs_attention_count: 0, recent_recoveries: [] };
  const items = await listExecutions(checkpointer, { limit: OVERVIEW_SCAN });
  const recoveries = await checkpointer.listRecoveries({ limit: 10 });
  return {
    orphaned_executions_count: items.filter((item) => item.state === 'orphaned').length,
    needs_attention_count: items.filter((item) => item.state === 'needs_attention').length,
    recent_recoveries: recoveries.map(recoveryAction),
  };
}
