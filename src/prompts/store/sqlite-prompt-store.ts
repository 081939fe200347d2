/**
 * The prompt family in local.db (tables made by the store's ladder, v22): the SQLite PromptStore. Each call opens its
 * own connection and closes it, so a long-lived registry holds no file handle; each write is one IMMEDIATE
 * transaction, which takes the database's write lock before reading the latest version, so two processes adding a
 * version at once serialize (the second waits on the busy timeout) and get consecutive numbers. Reads of a file that
 * does not exist find nothing and do not create it.
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { openLocalStore } from '../../store/open.js';
import { utcNow } from '../../store/time.js';
import type { PromptVersionRecord } from '../prompt-version.js';
import { type AddVersionInput, type AddVersionResult, type FragmentLookup, type PromptStore, type PromptSummary, sameContent } from './types.js';

interface VersionRow {
  name: string;
  version: number;
  template: string;
  variables: string;
  fragments: string;
  metadata: string;
  created_at: string;
  created_by: string | null;
  origin: string;
  description: string;
  tags: string;
}

export class SQLitePromptStore implements PromptStore {
  readonly label: string;
  readonly #file: string;
  #closed = false;

  /** The prompt tables of the store file `file` (absolute). */
  constructor(file: string) {
    this.#file = file;
    this.label = file;
  }

  async addVersion(input: AddVersionInput): Promise<AddVersionResult> {
    return this.#write((db) => {
      const content = input.content((name) => fragmentContent(db, name));
      const now = utcNow();
      const head = db.prepare('SELECT latest_version FROM prompts WHERE name = ?').get(input.name) as { latest_version: number } | undefined;
      let version = head?.latest_version ?? 0;
      const latest = head
        ? (db.prepare('SELECT template, variables, fragments, metadata FROM prompt_versions WHERE name = ? AND version = ?').get(input.name, version) as
            | Pick<VersionRow, 'template' | 'variables' | 'fragments' | 'metadata'>
            | undefined)
        : undefined;
      const created = !(latest && sameContent(latest, content));
      if (created) {
        version += 1;
        const tags = input.tags ? JSON.stringify(input.tags) : null;
        if (head) {
          db.prepare(
            'UPDATE prompts SET latest_version = ?, updated_at = ?, description = coalesce(?, description), tags = coalesce(?, tags) WHERE name = ?',
          ).run(version, now, input.description ?? null, tags, input.name);
        } else {
          db.prepare('INSERT INTO prompts (name, description, tags, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
            input.name,
            input.description ?? '',
            tags ?? '[]',
            version,
            now,
            now,
          );
        }
        db.prepare(
          'INSERT INTO prompt_versions (name, version, template, variables, fragments, metadata, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(
          input.name,
          version,
          content.template,
          JSON.stringify(content.variables),
          JSON.stringify(content.fragments),
          JSON.stringify(content.metadata),
          now,
          input.createdBy,
        );
      }
      for (const label of input.labels) putLabel(db, input.name, label, version, now);
      return { record: readVersion(db, input.name, version)!, created };
    });
  }

  async latestVersion(name: string): Promise<number | undefined> {
    return this.#read(
      (db) => (db.prepare('SELECT latest_version FROM prompts WHERE name = ?').get(name) as { latest_version: number } | undefined)?.latest_version,
      undefined,
    );
  }

  async versionNumbers(name: string): Promise<number[]> {
    return this.#read((db) => db.prepare('SELECT version FROM prompt_versions WHERE name = ? ORDER BY version').pluck().all(name) as number[], []);
  }

  async readVersion(name: string, version: number): Promise<PromptVersionRecord | undefined> {
    return this.#read((db) => readVersion(db, name, version), undefined);
  }

  async labelTarget(name: string, label: string): Promise<number | undefined> {
    return this.#read(
      (db) => (db.prepare('SELECT version FROM prompt_labels WHERE name = ? AND label = ?').get(name, label) as { version: number } | undefined)?.version,
      undefined,
    );
  }

  async labelNames(name: string): Promise<string[]> {
    return this.#read((db) => db.prepare('SELECT label FROM prompt_labels WHERE name = ? ORDER BY label').pluck().all(name) as string[], []);
  }

  async list(): Promise<PromptSummary[]> {
    return this.#read((db) => {
      const prompts = db
        .prepare(
          'SELECT p.name, p.description, p.tags, p.latest_version, p.updated_at, (SELECT count(*) FROM prompt_versions v WHERE v.name = p.name) AS versions FROM prompts p ORDER BY p.name',
        )
        .all() as Array<{ name: string; description: string; tags: string; latest_version: number; updated_at: string; versions: number }>;
      const labels = db.prepare('SELECT name, label, version FROM prompt_labels ORDER BY name, label').all() as Array<{
        name: string;
        label: string;
        version: number;
      }>;
      return prompts.map((p) => ({
        name: p.name,
        description: p.description,
        tags: JSON.parse(p.tags) as string[],
        latest_version: p.latest_version,
        versions: p.versions,
        labels: Object.fromEntries(labels.filter((l) => l.name === p.name).map((l) => [l.label, l.version])),
        updated_at: p.updated_at,
      }));
    }, []);
  }

  async setLabel(name: string, label: string, version: number): Promise<{ before: number | null } | undefined> {
    return this.#write((db) => {
      if (!db.prepare('SELECT 1 FROM prompt_versions WHERE name = ? AND version = ?').get(name, version)) return undefined;
      const before = db.prepare('SELECT version FROM prompt_labels WHERE name = ? AND label = ?').get(name, label) as { version: number } | undefined;
      putLabel(db, name, label, version, utcNow());
      return { before: before?.version ?? null };
    });
  }

  async removeLabel(name: string, label: string): Promise<boolean> {
    return this.#write((db) => db.prepare('DELETE FROM prompt_labels WHERE name = ? AND label = ?').run(name, label).changes > 0);
  }

  async putFragment(name: string, content: string, check: (fragment: FragmentLookup) => void): Promise<void> {
    this.#write((db) => {
      check((other) => fragmentContent(db, other));
      const now = utcNow();
      db.prepare(
        'INSERT INTO prompt_fragments (name, content, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at',
      ).run(name, content, now, now);
    });
  }

  async fragment(name: string): Promise<string | undefined> {
    return this.#read((db) => fragmentContent(db, name), undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  /** `value` unless the store is closed (then throws). */
  #open<T>(value: T): T {
    if (this.#closed) throw new Error(`the prompt store ${this.label} is closed`);
    return value;
  }

  /** Run `fn` in one IMMEDIATE transaction on a fresh connection (the store is created and migrated if needed). */
  #write<T>(fn: (db: Database.Database) => T): T {
    this.#open(undefined);
    const db = openLocalStore(this.#file);
    try {
      return db.transaction(() => fn(db)).immediate();
    } finally {
      db.close();
    }
  }

  /** Run `fn` on a fresh connection; `missing` when no store file exists (nothing is created). */
  #read<T>(fn: (db: Database.Database) => T, missing: T): T {
    this.#open(undefined);
    if (!existsSync(this.#file)) return missing;
    // Not read-only: an older store needs the registry's tables, which only a migration adds.
    const db = openLocalStore(this.#file);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }
}

function fragmentContent(db: Database.Database, name: string): string | undefined {
  return (db.prepare('SELECT content FROM prompt_fragments WHERE name = ?').get(name) as { content: string } | undefined)?.content;
}

function putLabel(db: Database.Database, name: string, label: string, version: number, now: string): void {
  db.prepare(
    'INSERT INTO prompt_labels (name, label, version, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(name, label) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at',
  ).run(name, label, version, now);
}

function readVersion(db: Database.Database, name: string, version: number): PromptVersionRecord | undefined {
  const row = db
    .prepare(
      'SELECT v.name, v.version, v.template, v.variables, v.fragments, v.metadata, v.created_at, v.created_by, v.origin, p.description, p.tags FROM prompt_versions v JOIN prompts p ON p.name = v.name WHERE v.name = ? AND v.version = ?',
    )
    .get(name, version) as VersionRow | undefined;
  if (!row) return undefined;
  const labels = db.prepare('SELECT label FROM prompt_labels WHERE name = ? AND version = ? ORDER BY label').pluck().all(name, version) as string[];
  return {
    name: row.name,
    version: row.version,
    template: row.template,
    variables: JSON.parse(row.variables) as string[],
    fragments: JSON.parse(row.fragments) as Record<string, string>,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    description: row.description,
    tags: JSON.parse(row.tags) as string[],
    labels,
    created_at: row.created_at,
    created_by: row.created_by,
    origin: row.origin,
  };
}
