/**
 * The prompt registry in the local store: named prompts with immutable numbered versions (1, 2, ...), labels that
 * move between versions (`production`, `staging`, any name), and shared fragments. Every write is one transaction.
 * Reads of a store that does not exist find nothing and do not create it.
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { localStore, type Where } from '../config/paths.js';
import { parseStoreValue, storeLabel } from '../config/store-value.js';
import { ConfigError, NotFoundError } from '../errors.js';
import { openLocalStore } from '../store/open.js';
import { utcNow } from '../store/time.js';
import type { PromptContext } from '../agent/agent.js';
import type { RegistryPrompt, ResolvedRegistryPrompt } from '../agent/registry-prompt.js';
import { diffVersions } from './diff.js';
import { PromptError } from './errors.js';
import { PromptVersion, templateVariables, type PromptVersionRecord } from './prompt-version.js';
import { collectFragments } from './template.js';

/** Prompt and fragment names: a letter or digit, then letters, digits, `_ . - /` (up to 128 characters). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$/;
/** Labels: a letter, then letters, digits, `_ . -` (up to 64). `latest` is reserved: it always means the newest version. */
const LABEL = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
export const LATEST_LABEL = 'latest';

export interface PromptRegistryOptions extends Where {
  /** The store file (default: `AGENTKIT_LOCAL_DB` in `env`, else `./.agentkit/local.db` under `cwd`). */
  dbPath?: string;
}

export interface RegisterOptions {
  description?: string;
  tags?: string[];
  /**
   * The variables the template may use. When given, a template using any other is refused (a typo caught at
   * registration, not at the first run). Default: whatever the template uses.
   */
  variables?: string[];
  metadata?: Record<string, unknown>;
  /** Labels to point at the resulting version, in the same transaction. */
  labels?: string[];
  /** Who registered it (free text; e.g. a CI job). */
  createdBy?: string;
}

/** What `register` did. */
export interface RegisterResult {
  version: PromptVersion;
  /** False when the template, variables, fragments and metadata equal the latest version's: no new version was made. */
  created: boolean;
}

/** Which version to load: a number, a label, or (neither) the latest. */
export interface LoadOptions {
  version?: number;
  label?: string;
}

/** One row of `list()`. */
export interface PromptSummary {
  name: string;
  description: string;
  tags: string[];
  latest_version: number;
  versions: number;
  /** label -> version */
  labels: Record<string, number>;
  updated_at: string;
}

/** Options of a registry reference used as an Agent's `systemPrompt`. */
export interface PromptRefOptions extends LoadOptions {
  /** Variables to render with: fixed values, or a function of the run (its `context`, `input`, ...). */
  variables?: Record<string, unknown> | ((prompt: PromptContext) => Record<string, unknown> | Promise<Record<string, unknown>>);
}

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

export class PromptRegistry {
  /** The store file. */
  readonly dbPath: string;

  /**
   * The registry in the store `dbPath` names (default `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`). Prompts are
   * not on Postgres yet (issue 38: the family's Postgres tables are future work): a `postgres://` store is refused
   * with one line (ConfigError), never read as an empty file.
   */
  constructor(options: PromptRegistryOptions = {}) {
    const store = options.dbPath !== undefined ? parseStoreValue(options.dbPath, options.cwd ?? process.cwd()) : localStore(options);
    if (store.engine !== 'sqlite') {
      throw new ConfigError(
        `prompts are not stored on a Postgres store yet (${storeLabel(store)}); keep them in a SQLite file and name it with --db (or dbPath)`,
      );
    }
    this.dbPath = store.path;
  }

  /**
   * Register `template` under `name` as a new version (latest + 1, or 1 for a new name), unless it equals the latest
   * version (then that version is returned with `created: false`; labels still move). Fragments it includes are
   * snapshotted into the version. Throws PromptError for a bad name or label, an unknown fragment, a fragment cycle,
   * or a variable outside `options.variables`.
   */
  async register(name: string, template: string, options: RegisterOptions = {}): Promise<RegisterResult> {
    checkName(name, 'prompt');
    if (typeof template !== 'string' || template.trim() === '') throw new PromptError(`prompt '${name}': the template is empty`);
    for (const label of options.labels ?? []) checkLabel(label);
    return this.write((db) => {
      const fragments = collectFragments(template, (fragment) => fragmentContent(db, fragment));
      const used = templateVariables(template, fragments);
      const variables = options.variables ?? used;
      const undeclared = used.filter((v) => !variables.includes(v));
      if (undeclared.length > 0)
        throw new PromptError(
          `prompt '${name}': the template uses undeclared variable${undeclared.length > 1 ? 's' : ''} ${undeclared.map((v) => `'${v}'`).join(', ')} (declared: ${variables.join(', ') || 'none'})`,
        );
      const metadata = options.metadata ?? {};
      const now = utcNow();
      const head = db.prepare('SELECT latest_version FROM prompts WHERE name = ?').get(name) as { latest_version: number } | undefined;
      let version = head?.latest_version ?? 0;
      let created = false;
      const latest = head
        ? (db.prepare('SELECT template, variables, fragments, metadata FROM prompt_versions WHERE name = ? AND version = ?').get(name, version) as Pick<
            VersionRow,
            'template' | 'variables' | 'fragments' | 'metadata'
          >)
        : undefined;
      const same =
        latest &&
        latest.template === template &&
        latest.variables === JSON.stringify(variables) &&
        latest.fragments === JSON.stringify(fragments) &&
        latest.metadata === JSON.stringify(metadata);
      if (!same) {
        version += 1;
        created = true;
        if (head) {
          db.prepare(
            'UPDATE prompts SET latest_version = ?, updated_at = ?, description = coalesce(?, description), tags = coalesce(?, tags) WHERE name = ?',
          ).run(version, now, options.description ?? null, options.tags ? JSON.stringify(options.tags) : null, name);
        } else {
          db.prepare('INSERT INTO prompts (name, description, tags, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
            name,
            options.description ?? '',
            JSON.stringify(options.tags ?? []),
            version,
            now,
            now,
          );
        }
        db.prepare(
          'INSERT INTO prompt_versions (name, version, template, variables, fragments, metadata, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(name, version, template, JSON.stringify(variables), JSON.stringify(fragments), JSON.stringify(metadata), now, options.createdBy ?? null);
      }
      for (const label of options.labels ?? []) putLabel(db, name, label, version, now);
      return { version: readVersion(db, name, version)!, created };
    });
  }

  /**
   * One version: `{ version }`, `{ label }` (where the label points now; `latest` is the newest) or the latest.
   * Throws NotFoundError for an unknown prompt, version or label, naming what exists.
   */
  async load(name: string, options: LoadOptions = {}): Promise<PromptVersion> {
    if (options.version !== undefined && options.label !== undefined) throw new PromptError(`prompt '${name}': give a version or a label, not both`);
    return this.read(
      (db) => resolveVersion(db, name, options),
      () => {
        throw unknownPrompt(name);
      },
    );
  }

  /** Every version of a prompt, oldest first. Throws NotFoundError for an unknown prompt. */
  async versions(name: string): Promise<PromptVersion[]> {
    return this.read(
      (db) => {
        const rows = db.prepare('SELECT version FROM prompt_versions WHERE name = ? ORDER BY version').all(name) as Array<{ version: number }>;
        if (rows.length === 0) throw unknownPrompt(name);
        return rows.map((r) => readVersion(db, name, r.version)!);
      },
      () => {
        throw unknownPrompt(name);
      },
    );
  }

  /** Every prompt: name, latest version, number of versions, labels; sorted by name. */
  async list(): Promise<PromptSummary[]> {
    return this.read(
      (db) => {
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
      },
      () => [],
    );
  }

  /**
   * Point `label` of `name` at `version` (creating or moving it). Returns the version it pointed at before, or null.
   * Throws NotFoundError for an unknown prompt or version, PromptError for a bad label (`latest` is reserved).
   */
  async setLabel(name: string, label: string, version: number): Promise<number | null> {
    checkLabel(label);
    return this.write((db) => {
      resolveVersion(db, name, { version });
      const before = db.prepare('SELECT version FROM prompt_labels WHERE name = ? AND label = ?').get(name, label) as { version: number } | undefined;
      putLabel(db, name, label, version, utcNow());
      return before?.version ?? null;
    });
  }

  /** Remove a label; returns whether it existed. */
  async removeLabel(name: string, label: string): Promise<boolean> {
    return this.write((db) => db.prepare('DELETE FROM prompt_labels WHERE name = ? AND label = ?').run(name, label).changes > 0);
  }

  /**
   * The unified diff of two versions' templates (`--- <name> v<a>` / `+++ <name> v<b>`), or the headers and
   * `(no template changes)` when equal. Throws NotFoundError for an unknown prompt or version.
   */
  async diff(name: string, from: number, to: number): Promise<string> {
    const [a, b] = await Promise.all([this.load(name, { version: from }), this.load(name, { version: to })]);
    return diffVersions(a, b);
  }

  /**
   * Create or replace a fragment (`{{@name}}` in templates). Versions already registered keep the content they were
   * registered with; the next registration that includes it takes the new content.
   */
  async registerFragment(name: string, content: string): Promise<void> {
    checkName(name, 'fragment');
    if (typeof content !== 'string') throw new PromptError(`fragment '${name}': content must be a string`);
    this.write((db) => {
      collectFragments(content, (other) => (other === name ? content : fragmentContent(db, other)));
      const now = utcNow();
      db.prepare(
        'INSERT INTO prompt_fragments (name, content, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at',
      ).run(name, content, now, now);
    });
  }

  /** A fragment's current content. Throws NotFoundError for an unknown fragment. */
  async fragment(name: string): Promise<string> {
    const notFound = () => new NotFoundError('not_found', `fragment '${name}' is not registered`);
    return this.read(
      (db) => {
        const content = fragmentContent(db, name);
        if (content === undefined) throw notFound();
        return content;
      },
      () => {
        throw notFound();
      },
    );
  }

  /**
   * A reference to use as an Agent's `systemPrompt`: each run loads the version (a label is followed at each run, a
   * number is pinned), renders it with `variables`, and the run's `agent.<name>` span records `agent.prompt.name` and
   * `agent.prompt.version`. An unknown prompt or a missing variable fails the run with an error naming it.
   */
  ref(name: string, options: PromptRefOptions = {}): RegistryPrompt<PromptContext> {
    const registry = this;
    let pinned: PromptVersion | undefined;
    return {
      registryPrompt: true,
      promptName: name,
      async resolve(prompt: PromptContext): Promise<ResolvedRegistryPrompt> {
        // A numbered version never changes, so it is read once; a label or "latest" is read at every run.
        const version = options.version !== undefined ? (pinned ??= await registry.load(name, options)) : await registry.load(name, options);
        const vars = typeof options.variables === 'function' ? await options.variables(prompt) : (options.variables ?? {});
        const resolved: ResolvedRegistryPrompt = { text: version.render(vars), name, version: version.version };
        const label = options.label ?? (options.version === undefined ? LATEST_LABEL : undefined);
        if (label !== undefined) resolved.label = label;
        return resolved;
      },
    };
  }

  /** Run `fn` in one IMMEDIATE transaction on a fresh connection (the store is created and migrated if needed). */
  private write<T>(fn: (db: Database.Database) => T): T {
    const db = openLocalStore(this.dbPath);
    try {
      return db.transaction(() => fn(db)).immediate();
    } finally {
      db.close();
    }
  }

  /** Run `fn` on a connection; when no store file exists, return what `missing` gives (or throw what it throws). */
  private read<T>(fn: (db: Database.Database) => T, missing: () => T): T {
    if (!existsSync(this.dbPath)) return missing();
    // Not read-only: an older store needs the registry's tables, which only a migration adds.
    const db = openLocalStore(this.dbPath);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }
}

function checkName(name: unknown, what: 'prompt' | 'fragment'): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new PromptError(`invalid ${what} name ${JSON.stringify(name)}: use letters, digits and _ . - / (starting with a letter or digit, at most 128)`);
  }
}

function checkLabel(label: unknown): asserts label is string {
  if (typeof label !== 'string' || !LABEL.test(label)) {
    throw new PromptError(`invalid label ${JSON.stringify(label)}: use letters, digits and _ . - (starting with a letter, at most 64)`);
  }
  if (label === LATEST_LABEL) throw new PromptError(`the label '${LATEST_LABEL}' is reserved: it always means the newest version`);
}

function unknownPrompt(name: string): NotFoundError {
  return new NotFoundError('not_found', `prompt '${name}' is not registered`);
}

function fragmentContent(db: Database.Database, name: string): string | undefined {
  return (db.prepare('SELECT content FROM prompt_fragments WHERE name = ?').get(name) as { content: string } | undefined)?.content;
}

function putLabel(db: Database.Database, name: string, label: string, version: number, now: string): void {
  db.prepare(
    'INSERT INTO prompt_labels (name, label, version, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(name, label) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at',
  ).run(name, label, version, now);
}

function resolveVersion(db: Database.Database, name: string, options: LoadOptions): PromptVersion {
  const head = db.prepare('SELECT latest_version FROM prompts WHERE name = ?').get(name) as { latest_version: number } | undefined;
  if (!head) throw unknownPrompt(name);
  let version = head.latest_version;
  if (options.version !== undefined) {
    if (!Number.isInteger(options.version) || options.version < 1)
      throw new PromptError(`prompt '${name}': a version is a positive whole number, got ${String(options.version)}`);
    version = options.version;
  } else if (options.label !== undefined && options.label !== LATEST_LABEL) {
    const row = db.prepare('SELECT version FROM prompt_labels WHERE name = ? AND label = ?').get(name, options.label) as { version: number } | undefined;
    if (!row) {
      const known = (db.prepare('SELECT label FROM prompt_labels WHERE name = ? ORDER BY label').all(name) as Array<{ label: string }>).map((r) => r.label);
      throw new NotFoundError('not_found', `prompt '${name}' has no label '${options.label}' (labels: ${known.join(', ') || 'none'})`);
    }
    version = row.version;
  }
  const found = readVersion(db, name, version);
  if (!found) throw new NotFoundError('not_found', `prompt '${name}' has no version ${version} (versions 1-${head.latest_version})`);
  return found;
}

function readVersion(db: Database.Database, name: string, version: number): PromptVersion | undefined {
  const row = db
    .prepare(
      'SELECT v.name, v.version, v.template, v.variables, v.fragments, v.metadata, v.created_at, v.created_by, v.origin, p.description, p.tags FROM prompt_versions v JOIN prompts p ON p.name = v.name WHERE v.name = ? AND v.version = ?',
    )
    .get(name, version) as VersionRow | undefined;
  if (!row) return undefined;
  const labels = (
    db.prepare('SELECT label FROM prompt_labels WHERE name = ? AND version = ? ORDER BY label').all(name, version) as Array<{ label: string }>
  ).map((r) => r.label);
  const record: PromptVersionRecord = {
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
  return new PromptVersion(record);
}
