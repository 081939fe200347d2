/**
 * The prompt table family's one interface (issue 39): prompts, their immutable numbered versions, labels and
 * fragments. Two implementations own all of the family's SQL: ./sqlite-prompt-store.ts (local.db's tables) and
 * ./pg-prompt-store.ts (the same tables on a Postgres store, created by ./pg-schema.ts). The registry
 * (../registry.ts) validates names, labels and templates and words the errors; a store only keeps rows.
 *
 * Every method sees the rows committed before it started: nothing is cached, so a label moved by any process is what
 * the next read of any other process returns. Third-party stores are checked by the prompt-store contract suite
 * (../contract/), exported as `promptStoreContract` from `agentkit/testing`.
 */
import type { PromptVersionRecord } from '../prompt-version.js';

/** What a new version holds besides its name (the registry builds it from the template and the fragments). */
export interface VersionContent {
  template: string;
  variables: string[];
  /** The fragments the template includes, with the content they had when the version was made. */
  fragments: Record<string, string>;
  metadata: Record<string, unknown>;
}

/** A fragment's current content by name (undefined: not registered), as of the calling transaction. */
export type FragmentLookup = (name: string) => string | undefined;

export interface AddVersionInput {
  name: string;
  /** Set on the prompt when given (kept when undefined). */
  description?: string;
  tags?: string[];
  /** Labels pointed at the resulting version, in the same transaction. Already validated. */
  labels: readonly string[];
  createdBy: string | null;
  /**
   * The version's content, given the fragments as of this transaction. Called once inside the transaction; what it
   * throws aborts the transaction (nothing is written) and is rethrown.
   */
  content(fragment: FragmentLookup): VersionContent;
}

export interface AddVersionResult {
  record: PromptVersionRecord;
  /** False when the content equals the latest version's: that version is returned and no version is made. */
  created: boolean;
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

/**
 * Rows of the prompt family. Times are ISO-8601 UTC strings with microseconds (`2026-11-22T10:15:30.123456Z`), as
 * written. Reads of a store that does not exist yet find nothing and do not create it (SQLite).
 */
export interface PromptStore {
  /** How messages name the store (a URL's password redacted). */
  readonly label: string;
  /**
   * Append a version to `input.name` (creating the prompt): the latest version + 1, or 1, decided inside one
   * transaction that excludes every other writer of the prompt, so concurrent writers (threads, processes, hosts)
   * always get distinct consecutive numbers. When the content equals the latest version's, nothing is appended and
   * `created` is false; labels move either way.
   */
  addVersion(input: AddVersionInput): Promise<AddVersionResult>;
  /** The prompt's latest version number, or undefined for an unknown prompt. */
  latestVersion(name: string): Promise<number | undefined>;
  /** Every version number of the prompt, ascending (empty for an unknown prompt). */
  versionNumbers(name: string): Promise<number[]>;
  /** One version with the prompt's description, tags and the labels now on it; undefined when absent. */
  readVersion(name: string, version: number): Promise<PromptVersionRecord | undefined>;
  /** The version `label` points at now, or undefined. */
  labelTarget(name: string, label: string): Promise<number | undefined>;
  /** The prompt's labels, sorted. */
  labelNames(name: string): Promise<string[]>;
  /** Every prompt, sorted by name. */
  list(): Promise<PromptSummary[]>;
  /**
   * Point `label` at `version` (creating or moving it). Returns the version it pointed at before (null: new label),
   * or undefined, writing nothing, when the version does not exist.
   */
  setLabel(name: string, label: string, version: number): Promise<{ before: number | null } | undefined>;
  /** Remove a label; whether it existed. */
  removeLabel(name: string, label: string): Promise<boolean>;
  /**
   * Create or replace a fragment. `check` runs inside the transaction with the fragments as they are (the new one not
   * yet written); what it throws aborts the write.
   */
  putFragment(name: string, content: string, check: (fragment: FragmentLookup) => void): Promise<void>;
  /** A fragment's current content, or undefined. */
  fragment(name: string): Promise<string | undefined>;
  /** Release connections. Idempotent; other methods reject afterwards. */
  close(): Promise<void>;
}

/** Whether `content` equals a stored version's content, compared as stored (JSON text). */
export function sameContent(stored: { template: string; variables: string; fragments: string; metadata: string }, content: VersionContent): boolean {
  return (
    stored.template === content.template &&
    stored.variables === JSON.stringify(content.variables) &&
    stored.fragments === JSON.stringify(content.fragments) &&
    stored.metadata === JSON.stringify(content.metadata)
  );
}
