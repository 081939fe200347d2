/**
 * Copying a local store's prompt family into a Postgres store (`agentkit store copy`, ADR 0062): every prompt,
 * version, label and fragment, with its numbers, times and origin, in one target transaction. Idempotent: rows the
 * target already holds (the same prompt, version number, label or fragment name) are left as the target has them, so a
 * copy run again adds only what is missing. A prompt's latest version in the target becomes the higher of the two.
 * Copied versions are marked synced: moving history is not new work for the Platform outbox.
 */
import type Database from 'better-sqlite3';
import { encodePgString } from '../../store/pg-text.js';
import type { Store } from '../../store/store-handle.js';
import { migratePromptSchema } from './pg-schema.js';
import { inPgTransaction } from '../../store/pg-transaction.js';

/** Rows the target did not hold yet, per table. */
export interface PromptCopyResult {
  prompts: number;
  versions: number;
  labels: number;
  fragments: number;
}

interface Rows {
  prompts: Array<{ name: string; description: string; tags: string; latest_version: number; created_at: string; updated_at: string }>;
  versions: Array<{
    name: string;
    version: number;
    template: string;
    variables: string;
    fragments: string;
    metadata: string;
    created_at: string;
    created_by: string | null;
    origin: string;
  }>;
  labels: Array<{ name: string; label: string; version: number; updated_at: string }>;
  fragments: Array<{ name: string; content: string; created_at: string; updated_at: string; origin: string }>;
}

/** Copy the prompt rows of the open local store `source` into the Postgres store `target`; see the module comment. */
export async function copyPrompts(source: Database.Database, target: Store, project = ''): Promise<PromptCopyResult> {
  const rows: Rows = {
    prompts: source.prepare('SELECT name, description, tags, latest_version, created_at, updated_at FROM prompts ORDER BY name').all() as Rows['prompts'],
    versions: source
      .prepare('SELECT name, version, template, variables, fragments, metadata, created_at, created_by, origin FROM prompt_versions ORDER BY name, version')
      .all() as Rows['versions'],
    labels: source.prepare('SELECT name, label, version, updated_at FROM prompt_labels ORDER BY name, label').all() as Rows['labels'],
    fragments: source.prepare('SELECT name, content, created_at, updated_at, origin FROM prompt_fragments ORDER BY name').all() as Rows['fragments'],
  };
  const result: PromptCopyResult = { prompts: 0, versions: 0, labels: 0, fragments: 0 };
  const pool = target.pool();
  const schema = target.schema!;
  await migratePromptSchema(pool, schema);
  const s = `"${schema}"`;
  const text = (value: string) => encodePgString(value);
  return inPgTransaction(pool, async (client) => {
    const added = async (sql: string, params: unknown[]) => ((await client.query(sql, params)).rowCount ?? 0) > 0;
    for (const f of rows.fragments) {
      if (
        await added(
          `INSERT INTO ${s}.prompt_fragments (project, name, content, created_at, updated_at, origin) VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, $6)
           ON CONFLICT (project, name) DO NOTHING`,
          [project, f.name, text(f.content), f.created_at, f.updated_at, f.origin],
        )
      )
        result.fragments++;
    }
    for (const p of rows.prompts) {
      if (
        await added(
          `INSERT INTO ${s}.prompts (project, name, description, tags, latest_version, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $7::timestamptz) ON CONFLICT (project, name) DO NOTHING`,
          [project, p.name, text(p.description), text(p.tags), p.latest_version, p.created_at, p.updated_at],
        )
      )
        result.prompts++;
      else
        await client.query(`UPDATE ${s}.prompts SET latest_version = GREATEST(latest_version, $3) WHERE project = $1 AND name = $2`, [
          project,
          p.name,
          p.latest_version,
        ]);
    }
    for (const v of rows.versions) {
      if (
        await added(
          `INSERT INTO ${s}.prompt_versions (project, name, version, template, variables, fragments, metadata, created_at, created_by, origin, synced)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::timestamptz, $9, $10, TRUE) ON CONFLICT (project, name, version) DO NOTHING`,
          [
            project,
            v.name,
            v.version,
            text(v.template),
            text(v.variables),
            text(v.fragments),
            text(v.metadata),
            v.created_at,
            v.created_by === null ? null : text(v.created_by),
            v.origin,
          ],
        )
      )
        result.versions++;
    }
    for (const l of rows.labels) {
      if (
        await added(
          `INSERT INTO ${s}.prompt_labels (project, name, label, version, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz)
           ON CONFLICT (project, name, label) DO NOTHING`,
          [project, l.name, l.label, l.version, l.updated_at],
        )
      )
        result.labels++;
    }
    return result;
  });
}
