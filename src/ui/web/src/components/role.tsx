/**
 * The signed-in user's role, for hiding what it cannot do (the server checks every write itself; docs/ui.md
 * "Roles"). With `--no-auth` nothing is checked, so everything is shown.
 */
import { createContext, useContext } from 'react';
import type { Schemas } from '../api.js';

export type Role = 'viewer' | 'approver' | 'admin';
const ORDER: Role[] = ['viewer', 'approver', 'admin'];

export const AuthContext = createContext<Schemas['AuthStatus'] | null>(null);

/** True when the signed-in user's role includes `needed` (always with `--no-auth`). */
export function useCan(needed: Role): boolean {
  const auth = useContext(AuthContext);
  if (!auth) return false;
  if (auth.no_auth) return true;
  return auth.role !== null && ORDER.indexOf(auth.role) >= ORDER.indexOf(needed);
}

/** Who a decision made here is recorded as: the signed-in user, `anonymous` with `--no-auth`. */
export function useDecider(): string {
  const auth = useContext(AuthContext);
  return auth?.no_auth ? 'anonymous' : (auth?.username ?? 'anonymous');
}
