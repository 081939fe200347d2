/**
 * The approvals history (`GET /api/decisions`): the decisions recorded on the most recently written executions, newest
 * first, each with who decided (principal and surface), when, the reason typed with it and the Resume value. Read
 * from the decision rows a claim writes (src/durability/decision.ts), so the CLI's `inspect` and this page show the
 * same record. A store without the recovery protocol cannot list executions: it lists no decisions.
 */
import type { Request, Response } from 'express';
import type { components } from '../../generated/types/ui.js';
import type { Checkpointer } from '../durability/checkpointer.js';
import { decisionOf } from '../durability/decision.js';
import { supportsRecovery } from '../durability/recovery-store.js';
import type { RouteRegistrar } from '../http/validated-app.js';

type Schemas = components['schemas'];

/** Install `GET /api/decisions`. */
export function decisionRoutes(router: RouteRegistrar, checkpointer: Checkpointer): void {
  router.get('/api/decisions', async (req: Request, res: Response) => {
    const limit = Number((req.query as { limit?: number }).limit ?? 200);
    if (!supportsRecovery(checkpointer)) {
      res.json({ count: 0, items: [] } satisfies Schemas['DecisionList']);
      return;
    }
    const items: Schemas['DecisionEntry'][] = [];
    for (const execution of await checkpointer.listExecutions({ limit })) {
      const rows = await checkpointer.list(execution.execution_id, { limit: 1_000_000 });
      for (const row of rows) {
        const decision = decisionOf(row);
        if (!decision) continue;
        items.push({
          execution_id: execution.execution_id,
          chain_name: execution.chain_name,
          node_id: row.node_id,
          pause_reason: decision.claimed.reason,
          resume: { approved: decision.value.approved, metadata: (decision.value.metadata ?? {}) as Schemas['JsonObject'] },
          decided_by: decision.decidedBy,
          decided_at: decision.decidedAt,
          reason: decision.reason,
        });
      }
    }
    items.sort((a, b) => (a.decided_at < b.decided_at ? 1 : a.decided_at > b.decided_at ? -1 : 0));
    res.json({ count: items.length, items } satisfies Schemas['DecisionList']);
  });
}
