/**
 * The prompt tables of a Postgres store (issue 39): `prompts`, `prompt_versions`, `prompt_labels` and
 * `prompt_fragments` in the store's schema, with their own forward-only migration list (the prompt module owns its
 * family, as the traces module owns its own, docs/adr/0062). Position in the list = version, recorded in
 * `prompt_schema_version`. The list runs in one transaction under an advisory lock, so replicas starting at once
 * migrate once; a schema migrated by a newer agentkit is refused with one line naming both versions.
 *
 * Columns mirror local.db's (same names, so rows move between engines unchanged). Every table carries `project`
 * ('' for a store of one project) in its key. JSON columns are the exact JSON text local.db holds (not JSONB, which
 * reorders keys: "is this the same content as the latest version" compares the text, and must answer the same on both
 * engines). Times are TIMESTAMPTZ, written from and read back as the ISO text local.db holds (microseconds, `Z`).
 */
import type pg from 'pg';
import { migrateFamily, type PgFamily, type PgFamilyMigration } from '../../store/pg-family-schema.js';

export type PgPromptMigration = PgFamilyMigration;

export const PG_PROMPT_MIGRATIONS: readonly PgPromptMigration[] = [
  {
    description: 'v1 prompts, prompt_versions, prompt_labels, prompt_fragments (keyed by project)',
    sql: (s) => `
      CREATE TABLE ${s}.prompts (
        project TEXT NOT NULL DEFAULT '',
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '[]',
        latest_version INTEGER NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (project, name)
      );
      CREATE TABLE ${s}.prompt_versions (
        project TEXT NOT NULL DEFAULT '',
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        template TEXT NOT NULL,
        variables TEXT NOT NULL DEFAULT '[]',
        fragments TEXT NOT NULL DEFAULT '{}',
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TIMESTAMPTZ NOT NULL,
        created_by TEXT,
        origin TEXT NOT NULL DEFAULT 'local',
        synced BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (project, name, version),
        FOREIGN KEY (project, name) REFERENCES ${s}.prompts (project, name) ON DELETE CASCADE
      );
      CREATE TABLE ${s}.prompt_labels (
        project TEXT NOT NULL DEFAULT '',
        name TEXT NOT NULL,
        label TEXT NOT NULL,
        version INTEGER NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (project, name, label),
        FOREIGN KEY (project, name, version) REFERENCES ${s}.prompt_versions (project, name, version) ON DELETE CASCADE
      );
      CREATE TABLE ${s}.prompt_fragments (
        project TEXT NOT NULL DEFAULT '',
        name TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        origin TEXT NOT NULL DEFAULT 'local',
        PRIMARY KEY (project, name)
      );`,
  },
];

/** The prompt schema version this agentkit writes. */
export const PG_PROMPT_LATEST_VERSION = PG_PROMPT_MIGRATIONS.length;

/** The prompt family's migration list, as the store's family migrator runs it (store/pg-family-schema.ts). */
export const PG_PROMPT_FAMILY: PgFamily = { name: 'prompts', versionTable: 'prompt_schema_version', tables: 'prompt tables', migrations: PG_PROMPT_MIGRATIONS };

/**
 * Create the schema and apply every pending prompt migration on `pool`, in one transaction under an advisory lock.
 * Idempotent and safe to race. Throws StoreVersionError when the schema is newer than this agentkit, and a one-line
 * ConfigError naming `agentkit store migrate` when the role may not create tables.
 */
export async function migratePromptSchema(pool: pg.Pool, schema: string): Promise<number> {
  return migrateFamily(pool, schema, PG_PROMPT_FAMILY);
}
