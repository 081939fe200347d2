/**
 * UI roles and what each may do (docs/ui.md "Roles"). Roles are ordered: each includes the one before it.
 *
 * - viewer: reads every page and `GET` route.
 * - approver: also resumes paused runs (approve, reject).
 * - admin: also forks and reruns traces (a rerun may call live models and tools), saves tests, marks favorites.
 *
 * `ROUTE_ROLES` names the least role of every write route by its contract key; a write route missing from it needs
 * admin (deny by default), every `GET` needs viewer. The server checks it on the matched route (./guard.ts); the pages
 * only hide what the role cannot do.
 */
export const UI_ROLES = ['viewer', 'approver', 'admin'] as const;
export type UiRole = (typeof UI_ROLES)[number];

/** True for a role name `ui users` accepts. */
export function isUiRole(value: unknown): value is UiRole {
  return typeof value === 'string' && (UI_ROLES as readonly string[]).includes(value);
}

/** The least role each write route needs, by its `METHOD /path` key. */
export const ROUTE_ROLES: Readonly<Record<string, UiRole>> = {
  'POST /api/auth/logout': 'viewer',
  'POST /api/auth/logout-everywhere': 'viewer',
  'POST /api/executions/{execution_id}/resume': 'approver',
  'PUT /api/traces/{trace_id}/favorite': 'admin',
  'POST /api/replay/{trace_id}/fork': 'admin',
  'PATCH /api/replay/forks/{fork_id}': 'admin',
  'POST /api/replay/forks/{fork_id}/rerun': 'admin',
  'POST /api/replay/forks/{fork_id}/save-as-test': 'admin',
};

/** The least role a request needs: listed write routes as listed, other writes admin, reads viewer. */
export function requiredRole(method: string, key: string | undefined): UiRole {
  if (key && key in ROUTE_ROLES) return ROUTE_ROLES[key]!;
  return method === 'GET' || method === 'HEAD' ? 'viewer' : 'admin';
}

/** True when `role` includes `needed`. */
export function roleAllows(role: UiRole, needed: UiRole): boolean {
  return UI_ROLES.indexOf(role) >= UI_ROLES.indexOf(needed);
}
