/** Postgres errors by SQLSTATE, as node-postgres reports them (`error.code`). */

/** True when `error` is a duplicate key (SQLSTATE 23505), optionally on the named unique constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
