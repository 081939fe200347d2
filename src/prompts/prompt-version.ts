/** One immutable version of a registered prompt, and rendering it. */
import { expandFragments, substitute, variableNames } from './template.js';

/** A version as stored (the JSON shape `prompts show --json` prints). */
export interface PromptVersionRecord {
  name: string;
  version: number;
  template: string;
  /** Variables the template (with its fragments) uses. */
  variables: string[];
  /** The fragments this version includes, snapshotted when it was registered (so a version always renders the same). */
  fragments: Record<string, string>;
  metadata: Record<string, unknown>;
  description: string;
  tags: string[];
  /** Labels currently pointing at this version. */
  labels: string[];
  created_at: string;
  created_by: string | null;
  /** `local`, or `migrated` for a version imported by `agentkit migrate`. */
  origin: string;
}

export class PromptVersion implements PromptVersionRecord {
  readonly name: string;
  readonly version: number;
  readonly template: string;
  readonly variables: string[];
  readonly fragments: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  readonly description: string;
  readonly tags: string[];
  readonly labels: string[];
  readonly created_at: string;
  readonly created_by: string | null;
  readonly origin: string;

  constructor(record: PromptVersionRecord) {
    this.name = record.name;
    this.version = record.version;
    this.template = record.template;
    this.variables = record.variables;
    this.fragments = record.fragments;
    this.metadata = record.metadata;
    this.description = record.description;
    this.tags = record.tags;
    this.labels = record.labels;
    this.created_at = record.created_at;
    this.created_by = record.created_by;
    this.origin = record.origin;
  }

  /** The template with its fragments included and no variable substituted. */
  expanded(): string {
    return expandFragments(this.template, this.fragments);
  }

  /**
   * The text with fragments included and `vars` substituted. Throws PromptError naming every variable the template
   * uses that `vars` lacks (extra entries are ignored).
   */
  render(vars: Readonly<Record<string, unknown>> = {}): string {
    return substitute(this.expanded(), vars, `prompt '${this.name}' v${this.version}`);
  }

  /** The plain record (for JSON). */
  toJSON(): PromptVersionRecord {
    return { ...this };
  }
}

/** The variables a template uses once its fragments are included. */
export function templateVariables(template: string, fragments: Readonly<Record<string, string>>): string[] {
  return variableNames(expandFragments(template, fragments));
}
