/**
 * The migration list of one table family on a Postgres store (traces, UI forks, prompts, ...): each family owns its
 * tables and a forward-only list of steps in the store's schema. Position in the list = version, recorded in the
 * family's own `<family>_schema_version` table. The whole list runs in one transaction under an advisory lock keyed by
 * family and schema, so replicas starting at once migrate once and the others find nothing to do; a schema migrated by
 * a newer agentkit is refused with one line naming both versions; a role without DDL rights gets one line naming
 * `agentkit store migrate`. A schema already current is checked without DDL, lock or transaction.
 */
import type pg from 'pg';
import { StoreVersionError } from './errors.js';
import { migrationPrivilegeError, recordedVersion } from './pg-schema-version.js';
import { inPgTransaction } from './pg-transaction.js';

export interface PgFamilyMigration {
  readonly description: string;
  /** The statements, for the schema identifier already quoted. */
  readonly sql: (schema: string) => string;
}

/** A table family's migration list. */
export interface PgFamily {
  /** The family's name in messages and in its advisory lock key (`traces`, `forks`). */
  readonly name: string;
  /** Where its versions are recorded, in the store's schema. */
  readonly versionTable: string;
  /** How a privilege error names its tables (`trace tables`). */
  readonly tables: string;
  readonly migrations: readonly PgFamilyMigration[];
}

/**
 * Create the schema and apply every pending step of `family` on `pool`. Idempotent and safe to race. Returns the
 * version now recorded (the list's length).
 */
export async function migrateFamily(pool: pg.Pool, schema: string, family: PgFamily): Promise<number> {
  const s = `"${schema}"`;
  const latest = family.migrations.length;
  const what = `Postgres schema "${schema}" (${family.name})`;
  const recorded = await recordedVersion(pool, schema, family.versionTable);
  if (recorded === latest) return latest;
  if (recorded !== null && recorded > latest) throw new StoreVersionError(what, recorded, latest);
  try {
    return await inPgTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentkit.${family.name}.${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.${family.versionTable} (
        version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const found = (await client.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM ${s}.${family.versionTable}`)).rows[0]!.v;
      if (found > latest) throw new StoreVersionError(what, found, latest);
      for (let version = found + 1; version <= latest; version++) {
        const migration = family.migrations[version - 1]!;
        await client.query(migration.sql(s));
        await client.query(`INSERT INTO ${s}.${family.versionTable} (version, description) VALUES ($1, $2)`, [version, migration.description]);
      }
      return latest;
    });
  } catch (error) {
    throw migrationPrivilegeError(error, family.tables, schema, recorded, latest) ?? error;
  }
}

/** The family's recorded version without migrating: 0 when its tables do not exist. */
export async function familyVersion(pool: Pick<pg.Pool, 'query'>, schema: string, family: Pick<PgFamily, 'versionTable'>): Promise<number> {
  const exists = await pool.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [schema, family.versionTable]);
  if ((exists.rowCount ?? 0) === 0) return 0;
  return (await pool.query<{ v: number }>(`SELECT COALESCE(MAX(version), 0)::int AS v FROM "${schema}".${family.versionTable}`)).rows[0]!.v;
}
