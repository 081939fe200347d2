/**
 * The prompt rows `agentkit migrate` writes into local.db when it imports a legacy `.prompts/` directory
 * (../../migrate/prompt-dir.ts reads the files; the SQL is here, with the family's other SQL). Every method runs on
 * the caller's connection, inside the caller's transaction (the import is one transaction with its
 * `legacy_imports` row). Imported rows are `origin = 'migrated'` (versions also `synced = 1`: never pushed); rows
 * already present are left as they are.
 */
import type Database from 'better-sqlite3';

export interface LegacyPromptVersion {
  name: string;
  version: number;
  template: string;
  variables: string[];
  fragments: Record<string, string>;
  metadata: Record<string, unknown>;
  created_at: string;
  created_by: string | null;
}

/** Writers of imported prompt rows on `db`. */
export function legacyPromptWriter(db: Database.Database) {
  const insertFragment = db.prepare("INSERT OR IGNORE INTO prompt_fragments (name, content, created_at, updated_at, origin) VALUES (?, ?, ?, ?, 'migrated')");
  const fragment = db.prepare('SELECT content FROM prompt_fragments WHERE name = ?').pluck();
  const head = db.prepare('SELECT latest_version FROM prompts WHERE name = ?').pluck();
  const insertVersion = db.prepare(
    "INSERT OR IGNORE INTO prompt_versions (name, version, template, variables, fragments, metadata, created_at, created_by, origin, synced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'migrated', 1)",
  );
  const versionExists = db.prepare('SELECT 1 FROM prompt_versions WHERE name = ? AND version = ?');
  const insertLabel = db.prepare('INSERT OR IGNORE INTO prompt_labels (name, label, version, updated_at) VALUES (?, ?, ?, ?)');
  return {
    /** Add a fragment unless one of that name exists; whether it was added. */
    addFragment: (name: string, content: string, now: string): boolean => insertFragment.run(name, content, now, now).changes > 0,
    /** A fragment's content in the store, or undefined. */
    fragment: (name: string): string | undefined => fragment.get(name) as string | undefined,
    /** The prompt's latest version, or undefined when it is not in the store. */
    latestVersion: (name: string): number | undefined => head.get(name) as number | undefined,
    /** Create the prompt's row with `latest` as its latest version. */
    addPrompt(name: string, description: string, tags: string[], latest: number, createdAt: string, now: string): void {
      db.prepare('INSERT INTO prompts (name, description, tags, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        name,
        description,
        JSON.stringify(tags),
        latest,
        createdAt,
        now,
      );
    },
    /** Raise the prompt's latest version to `latest`. */
    raiseLatest(name: string, latest: number, now: string): void {
      db.prepare('UPDATE prompts SET latest_version = ?, updated_at = ? WHERE name = ? AND latest_version < ?').run(latest, now, name, latest);
    },
    /** Add a version unless that number exists; whether it was added. */
    addVersion: (v: LegacyPromptVersion): boolean =>
      insertVersion.run(
        v.name,
        v.version,
        v.template,
        JSON.stringify(v.variables),
        JSON.stringify(v.fragments),
        JSON.stringify(v.metadata),
        v.created_at,
        v.created_by,
      ).changes > 0,
    /** Whether the version exists. */
    hasVersion: (name: string, version: number): boolean => versionExists.get(name, version) !== undefined,
    /** Add a label unless the prompt has one of that name; whether it was added. */
    addLabel: (name: string, label: string, version: number, now: string): boolean => insertLabel.run(name, label, version, now).changes > 0,
  };
}
