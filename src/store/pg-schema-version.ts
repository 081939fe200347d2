/**
 * The two checks every Postgres migration list makes before it migrates (issue 38): whether the schema is already
 * current, read without DDL, a lock or a transaction, so an application role with only SELECT, INSERT, UPDATE and
 * DELETE starts on a schema an operator migrated (`CREATE SCHEMA IF NOT EXISTS` needs the database's CREATE right
 * even when the schema exists); and, when migrating is needed and the role may not, one line naming the command that
 * does it.
 */
import type pg from 'pg';
import { ConfigError } from '../errors.js';

/** SQLSTATEs of a missing relation or schema: nothing migrated yet. */
const MISSING = new Set(['42P01', '3F000']);

/**
 * The highest version recorded in `"<schema>".<table>`, 0 when the table is empty, or null when the table or the
 * schema does not exist. Other errors (the connection) are thrown.
 */
export async function recordedVersion(pool: pg.Pool, schema: string, table: string): Promise<number | null> {
  try {
    const result = await pool.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM "${schema}".${table}`);
    return result.rows[0]!.v;
  } catch (error) {
    if (MISSING.has((error as { code?: string }).code ?? '')) return null;
    throw error;
  }
}

/**
 * `error` as one line naming `agentkit store migrate` when it is a lack of privileges (SQLSTATE 42501) met while
 * migrating `what` of `schema` from `found` to `latest`; null for any other error.
 */
export function migrationPrivilegeError(error: unknown, what: string, schema: string, found: number | null, latest: number): ConfigError | null {
  if ((error as { code?: string } | null)?.code !== '42501') return null;
  return new ConfigError(
    `this database role may not migrate the ${what} of Postgres schema "${schema}" (at v${found ?? 0}, this agentkit needs v${latest}): run \`agentkit store migrate --db <url>\` once with a role that may create tables`,
    { cause: error },
  );
}
