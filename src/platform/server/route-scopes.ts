/**
 * The scope each Platform route requires (issue 42). `admin` passes every route; `auth/check` needs a valid key only.
 * Reading a trace needs `checkpoints:read`: the scopes have no `traces:read`, and a trace is run data like a
 * checkpoint, while `traces:write` is an exporter's write-only key (ADR 0067).
 */
import type { PlatformScope } from './store-types.js';

export const ROUTE_SCOPES: Readonly<Record<string, PlatformScope | null>> = {
  'GET /public/v1/auth/check': null,
  'POST /public/v1/checkpoints/ingest': 'checkpoints:write',
  'GET /public/v1/checkpoints/{execution_id}/latest': 'checkpoints:read',
  'GET /public/v1/checkpoints/{execution_id}/history': 'checkpoints:read',
  'POST /public/v1/executions/{execution_id}/claim': 'claims',
  'POST /public/v1/executions/{execution_id}/lease': 'claims',
  'POST /public/v1/eval/runs/ingest': 'evals:write',
  'GET /public/v1/eval/runs': 'evals:read',
  'GET /public/v1/eval/runs/{run_id}': 'evals:read',
  'GET /public/v1/traces/{trace_id}': 'checkpoints:read',
  'POST /v1/traces': 'traces:write',
};

/** True when `scopes` allow the route `routeKey` (`METHOD /path`); a route missing from the table needs `admin`. */
export function allows(scopes: readonly PlatformScope[], routeKey: string): boolean {
  if (scopes.includes('admin')) return true;
  const needed = ROUTE_SCOPES[routeKey];
  if (needed === undefined) return false;
  return needed === null || scopes.includes(needed);
}
