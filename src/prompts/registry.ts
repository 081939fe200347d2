/**
 * The prompt registry: named prompts with immutable numbered versions (1, 2, ...), labels that move between versions
 * (`production`, `staging`, any name), and shared fragments, kept in a store: local.db (a SQLite file) or a Postgres
 * store shared by a fleet (issue 39). The registry validates and words errors; the rows and every statement on them
 * belong to the prompt store (./store/). Every write is one transaction.
 *
 * Nothing is cached across calls except a pinned version (`ref(name, { version })`: versions never change): a label
 * or `latest` is read from the store at every load and every run, so a label moved by any process is followed by
 * every other process's next run (the staleness bound is zero).
 */
import { localStore, type Where } from '../config/paths.js';
import { parseStoreValue } from '../config/store-value.js';
import { NotFoundError } from '../errors.js';
import type { Store } from '../store/store-handle.js';
import type { PromptContext } from '../agent/agent.js';
import type { RegistryPrompt, ResolvedRegistryPrompt } from '../agent/registry-prompt.js';
import { diffVersions } from './diff.js';
import { PromptError } from './errors.js';
import { PromptVersion, templateVariables } from './prompt-version.js';
import { promptStoreOf, type PromptStore, type PromptSummary } from './store/index.js';
import { collectFragments } from './template.js';

export type { PromptSummary } from './store/index.js';

/** Prompt and fragment names: a letter or digit, then letters, digits, `_ . - /` (up to 128 characters). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$/;
/** Labels: a letter, then letters, digits, `_ . -` (up to 64). `latest` is reserved: it always means the newest version. */
const LABEL = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
export const LATEST_LABEL = 'latest';

export interface PromptRegistryOptions extends Where {
  /**
   * The store: a file path or a `postgres://...?schema=<name>` URL (default: `AGENTKIT_LOCAL_DB` in `env`, else
   * `./.agentkit/local.db` under `cwd`).
   */
  dbPath?: string;
  /** A store handle from `openStore` (takes precedence over `dbPath`); it stays open when the registry closes. */
  store?: Store;
  /** Any prompt store (a third party's, checked by `promptStoreContract`); takes precedence over `store` and `dbPath`. */
  promptStore?: PromptStore;
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

/** Options of a registry reference used as an Agent's `systemPrompt`. */
export interface PromptRefOptions extends LoadOptions {
  /** Variables to render with: fixed values, or a function of the run (its `context`, `input`, ...). */
  variables?: Record<string, unknown> | ((prompt: PromptContext) => Record<string, unknown> | Promise<Record<string, unknown>>);
}

export class PromptRegistry {
  /** The SQLite store file; undefined when the prompts live on a Postgres store or a custom prompt store. */
  readonly dbPath: string | undefined;
  /** The store's rows (./store/). */
  readonly store: PromptStore;

  /**
   * The registry on the store `promptStore`, `store` or `dbPath` names (default `AGENTKIT_LOCAL_DB`, else
   * `./.agentkit/local.db`): a SQLite file or a Postgres store. Connects to nothing until the first call. Throws
   * ConfigError for a value that names no store.
   */
  constructor(options: PromptRegistryOptions = {}) {
    if (options.promptStore !== undefined) {
      this.store = options.promptStore;
      this.dbPath = undefined;
      return;
    }
    const ref = options.store?.ref ?? (options.dbPath !== undefined ? parseStoreValue(options.dbPath, options.cwd ?? process.cwd()) : localStore(options));
    this.dbPath = ref.engine === 'sqlite' ? ref.path : undefined;
    this.store = promptStoreOf(options.store ?? ref);
  }

  /** Release the registry's connections (a Postgres store's pool hold). Idempotent. */
  async close(): Promise<void> {
    await this.store.close();
  }

  /**
   * Register `template` under `name` as a new version (latest + 1, or 1 for a new name), unless it equals the latest
   * version (then that version is returned with `created: false`; labels still move). Fragments it includes are
   * snapshotted into the version. Concurrent registrations (any processes) get distinct consecutive versions. Throws
   * PromptError for a bad name or label, an unknown fragment, a fragment cycle, or a variable outside
   * `options.variables`.
   */
  async register(name: string, template: string, options: RegisterOptions = {}): Promise<RegisterResult> {
    checkName(name, 'prompt');
    if (typeof template !== 'string' || template.trim() === '') throw new PromptError(`prompt '${name}': the template is empty`);
    for (const label of options.labels ?? []) checkLabel(label);
    const { record, created } = await this.store.addVersion({
      name,
      description: options.description,
      tags: options.tags,
      labels: options.labels ?? [],
      createdBy: options.createdBy ?? null,
      content: (fragment) => {
        const fragments = collectFragments(template, fragment);
        const used = templateVariables(template, fragments);
        const variables = options.variables ?? used;
        const undeclared = used.filter((v) => !variables.includes(v));
        if (undeclared.length > 0)
          throw new PromptError(
            `prompt '${name}': the template uses undeclared variable${undeclared.length > 1 ? 's' : ''} ${undeclared.map((v) => `'${v}'`).join(', ')} (declared: ${variables.join(', ') || 'none'})`,
          );
        return { template, variables, fragments, metadata: options.metadata ?? {} };
      },
    });
    return { version: new PromptVersion(record), created };
  }

  /**
   * One version: `{ version }`, `{ label }` (where the label points now; `latest` is the newest) or the latest.
   * Throws NotFoundError for an unknown prompt, version or label, naming what exists.
   */
  async load(name: string, options: LoadOptions = {}): Promise<PromptVersion> {
    if (options.version !== undefined && options.label !== undefined) throw new PromptError(`prompt '${name}': give a version or a label, not both`);
    const latest = await this.store.latestVersion(name);
    if (latest === undefined) throw unknownPrompt(name);
    let version = latest;
    if (options.version !== undefined) {
      if (!Number.isInteger(options.version) || options.version < 1)
        throw new PromptError(`prompt '${name}': a version is a positive whole number, got ${String(options.version)}`);
      version = options.version;
    } else if (options.label !== undefined && options.label !== LATEST_LABEL) {
      const target = await this.store.labelTarget(name, options.label);
      if (target === undefined) {
        const known = await this.store.labelNames(name);
        throw new NotFoundError('not_found', `prompt '${name}' has no label '${options.label}' (labels: ${known.join(', ') || 'none'})`);
      }
      version = target;
    }
    const found = await this.store.readVersion(name, version);
    if (!found) throw new NotFoundError('not_found', `prompt '${name}' has no version ${version} (versions 1-${latest})`);
    return new PromptVersion(found);
  }

  /** Every version of a prompt, oldest first. Throws NotFoundError for an unknown prompt. */
  async versions(name: string): Promise<PromptVersion[]> {
    const numbers = await this.store.versionNumbers(name);
    if (numbers.length === 0) throw unknownPrompt(name);
    const records = await Promise.all(numbers.map((n) => this.store.readVersion(name, n)));
    return records.map((r) => new PromptVersion(r!));
  }

  /** Every prompt: name, latest version, number of versions, labels; sorted by name. */
  async list(): Promise<PromptSummary[]> {
    return this.store.list();
  }

  /**
   * Point `label` of `name` at `version` (creating or moving it). Returns the version it pointed at before, or null.
   * Throws NotFoundError for an unknown prompt or version, PromptError for a bad label (`latest` is reserved).
   */
  async setLabel(name: string, label: string, version: number): Promise<number | null> {
    checkLabel(label);
    await this.load(name, { version });
    const moved = await this.store.setLabel(name, label, version);
    if (moved === undefined) throw new NotFoundError('not_found', `prompt '${name}' has no version ${version}`);
    return moved.before;
  }

  /** Remove a label; returns whether it existed. */
  async removeLabel(name: string, label: string): Promise<boolean> {
    return this.store.removeLabel(name, label);
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
    await this.store.putFragment(name, content, (fragment) => {
      collectFragments(content, (other) => (other === name ? content : fragment(other)));
    });
  }

  /** A fragment's current content. Throws NotFoundError for an unknown fragment. */
  async fragment(name: string): Promise<string> {
    const content = await this.store.fragment(name);
    if (content === undefined) throw new NotFoundError('not_found', `fragment '${name}' is not registered`);
    return content;
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
