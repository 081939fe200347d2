/**
 * Prompt registry commands: `prompts list` and `prompts diff` (the spec's), and `prompts add`, `show`, `label`,
 * `fragment` so a team manages its prompts from files in its repository and CI.
 */
import { Command, Option, UsageError } from 'clipanion';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as t from 'typanion';
import { PromptRegistry, type PromptSummary } from '../../src/index.js';
import { cutList, cutNotice, parseLimit } from '../list-cut.js';
import { AgentkitCommand } from '../base.js';
import { namedStore } from '../store-path.js';
import { outputWidth, table } from '../table.js';

const DB_DESCRIPTION = 'Store: a file or a postgres://...?schema=<name> URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)';
const positiveInt = t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]);

abstract class PromptsCommand extends AgentkitCommand {
  db = Option.String('--db', { description: DB_DESCRIPTION });

  #opened: PromptRegistry | undefined;

  /**
   * The registry on `--db` (or the default store: a file or a Postgres URL); `readOnly` commands refuse a named file
   * that does not exist. Closed when the command ends.
   */
  protected registry(options: { readOnly: boolean } = { readOnly: false }): PromptRegistry {
    const { env, cwd } = this.context;
    this.#opened ??= new PromptRegistry({ env, cwd, dbPath: namedStore(cwd, this.db, options) });
    return this.#opened;
  }

  override async execute(): Promise<number> {
    try {
      return await super.execute();
    } finally {
      await this.#opened?.close();
    }
  }

  /** Read a text file named on the command line, with a one-line error naming it. */
  protected async readText(file: string): Promise<string> {
    const full = path.resolve(this.context.cwd, file);
    try {
      return await readFile(full, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error);
      throw new UsageError(`cannot read ${file}: ${reason}`);
    }
  }
}

/** `prompts list [--json]` */
export class PromptsListCommand extends PromptsCommand {
  static override paths = [['prompts', 'list']];

  static override usage = Command.Usage({
    category: 'Prompts',
    description: 'List registered prompts',
    details: [
      'One row per prompt in the store, sorted by name: its latest version, how many versions it has, and its labels (`label=version`).',
      'Prints `No prompts registered.` when there are none (nothing is created: no file, no Postgres table). `--limit <n>` shows the first n (then `showing <n>, more available` on stderr when there were more); `--json` prints `{ items, count, more_available }`, each item `{ name, description, tags, latest_version, versions, labels, updated_at }`.',
    ].join('\n\n'),
    examples: [
      ['List prompts', '$0 prompts list'],
      ['As JSON', '$0 prompts list --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print JSON instead of a table' });
  limit = Option.String('--limit', { description: 'At most this many prompts (default: all)' });

  async run(): Promise<void> {
    const limit = parseLimit(this.limit);
    const all = await this.registry({ readOnly: true }).list();
    // The whole list is small (a folder of bases, the prompt names); it is read whole and cut here.
    const { items, more } = cutList(all, limit);
    if (this.json) {
      this.out(JSON.stringify({ items, count: items.length, more_available: more }, null, 2));
      return;
    }
    if (more) this.err(cutNotice(items.length));
    if (items.length === 0) {
      this.out('No prompts registered.');
      return;
    }
    const rows = items.map((p: PromptSummary) => [p.name, String(p.latest_version), String(p.versions), labelsText(p.labels)]);
    for (const line of table(['NAME', 'LATEST', 'VERSIONS', 'LABELS'], rows, { right: [1, 2], width: outputWidth(this.context.stdout) })) this.out(line);
  }
}

function labelsText(labels: Record<string, number>): string {
  const text = Object.entries(labels)
    .map(([label, version]) => `${label}=${version}`)
    .join(', ');
  return text || '-';
}

/** `prompts diff <name> --from <v> --to <v>` */
export class PromptsDiffCommand extends PromptsCommand {
  static override paths = [['prompts', 'diff']];

  static override usage = Command.Usage({
    category: 'Prompts',
    description: 'Diff two versions of a prompt',
    details: [
      "Prints a unified diff of the two versions' templates, headed `--- <name> v<from>` and `+++ <name> v<to>`, coloured when stdout is a terminal (unless NO_COLOR is set). Two versions with the same template print the headers and `(no template changes)`.",
      'An unknown prompt or version prints one line naming it and exits 1. `--json` prints `{ name, from, to, diff }`.',
    ].join('\n\n'),
    examples: [['Diff version 1 and 3', '$0 prompts diff support --from 1 --to 3']],
  });

  name = Option.String({ name: 'name' });
  from = Option.String('--from', { required: true, description: 'The older version', validator: positiveInt });
  to = Option.String('--to', { required: true, description: 'The newer version', validator: positiveInt });
  json = Option.Boolean('--json', false, { description: 'Print { name, from, to, diff } as JSON (the diff uncoloured)' });

  async run(): Promise<void> {
    const text = await this.registry({ readOnly: true }).diff(this.name, this.from, this.to);
    if (this.json) return this.out(JSON.stringify({ name: this.name, from: this.from, to: this.to, diff: text }, null, 2));
    const colour = this.cli.enableColors === true;
    for (const line of text.replace(/\n$/, '').split('\n')) this.out(colour ? paint(line) : line);
  }
}

/** Red for removed lines, green for added, cyan for hunk headers, bold for file headers. */
function paint(line: string): string {
  if (line.startsWith('---') || line.startsWith('+++')) return `\u001b[1m${line}\u001b[22m`;
  if (line.startsWith('@@')) return `\u001b[36m${line}\u001b[39m`;
  if (line.startsWith('-')) return `\u001b[31m${line}\u001b[39m`;
  if (line.startsWith('+')) return `\u001b[32m${line}\u001b[39m`;
  return line;
}

/** `prompts add <name> --file <path> [--label <l>]... [--description <text>] [--tag <t>]... [--variable <v>]...` */
export class PromptsAddCommand extends PromptsCommand {
  static override paths = [['prompts', 'add']];

  static override usage = Command.Usage({
    category: 'Prompts',
    description: 'Register a prompt version from a file',
    details: [
      'Reads the template from `--file` (UTF-8, used as is) and registers it as the next version of `<name>` (1 for a new prompt). In templates `{{var}}` is a variable and `{{@fragment}}` includes a fragment (see `prompts fragment`); fragments are snapshotted into the version.',
      'A file equal to the latest version registers nothing and prints `<name> v<N> (unchanged)`, so CI can run this on every commit. `--label` (repeatable) points labels such as `production` or `staging` at the resulting version. `--variable` (repeatable) declares the variables the template may use: any other is refused.',
      'Prints `<name> v<N>` (with the labels set). `--json` prints the version record. A missing file, an unknown fragment or an undeclared variable prints one line and exits 2.',
    ].join('\n\n'),
    examples: [
      ['Register from a file', '$0 prompts add support --file prompts/support.txt'],
      ['Register and label for production', '$0 prompts add support --file prompts/support.txt --label production'],
    ],
  });

  name = Option.String({ name: 'name' });
  file = Option.String('--file', { required: true, description: 'Template file to read' });
  labels = Option.Array('--label', [], { description: 'Point this label at the version (repeatable)' });
  description = Option.String('--description', { description: 'What the prompt is for' });
  tags = Option.Array('--tag', { description: 'A tag (repeatable)' });
  variables = Option.Array('--variable', { description: 'A variable the template may use (repeatable; default: those it uses)' });
  json = Option.Boolean('--json', false, { description: 'Print the version as JSON' });

  async run(): Promise<void> {
    const template = await this.readText(this.file);
    const { version, created } = await this.registry().register(this.name, template, {
      description: this.description,
      tags: this.tags,
      variables: this.variables,
      labels: this.labels,
      metadata: { file: this.file },
      createdBy: 'cli',
    });
    if (this.json) {
      this.out(JSON.stringify({ ...version.toJSON(), created }, null, 2));
      return;
    }
    const labels = this.labels.length > 0 ? ` [${this.labels.join(', ')}]` : '';
    this.out(`${version.name} v${version.version}${created ? '' : ' (unchanged)'}${labels}`);
  }
}

/** `prompts show <name> [--version <v> | --label <l>] [--render --var k=v ...] [--json]` */
export class PromptsShowCommand extends PromptsCommand {
  static override paths = [['prompts', 'show']];

  static override usage = Command.Usage({
    category: 'Prompts',
    description: 'Print one version of a prompt',
    details: [
      'Prints the template of the latest version, of `--version`, or of the version `--label` points at, exactly as registered (so it can be redirected to a file). `--render` includes fragments and substitutes `--var name=value` (repeatable); a missing variable is named and exits 2.',
      '`--json` prints the whole record: `name`, `version`, `template`, `variables`, `fragments`, `metadata`, `description`, `tags`, `labels`, `created_at`, `created_by`, `origin`. An unknown prompt, version or label exits 1.',
    ].join('\n\n'),
    examples: [
      ['The production version', '$0 prompts show support --label production'],
      ['Rendered', '$0 prompts show support --render --var customer=Ada'],
    ],
  });

  name = Option.String({ name: 'name' });
  version = Option.String('--version', { description: 'Version number', validator: positiveInt });
  label = Option.String('--label', { description: 'Label to follow (latest = newest)' });
  render = Option.Boolean('--render', false, { description: 'Include fragments and substitute variables' });
  vars = Option.Array('--var', [], { description: 'name=value for --render (repeatable)' });
  json = Option.Boolean('--json', false, { description: 'Print the version record as JSON' });

  async run(): Promise<void> {
    if (this.version !== undefined && this.label !== undefined) throw new UsageError('give --version or --label, not both');
    const version = await this.registry({ readOnly: true }).load(this.name, { version: this.version, label: this.label });
    if (this.json) {
      this.out(JSON.stringify(version.toJSON(), null, 2));
      return;
    }
    const text = this.render ? version.render(parseVars(this.vars)) : version.template;
    this.context.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}

function parseVars(pairs: string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--var expects name=value, got '${pair}'`);
    vars[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return vars;
}

/** `prompts label <name> <label> --version <v>` */
export class PromptsLabelCommand extends PromptsCommand {
  static override paths = [['prompts', 'label']];

  static override usage = Command.Usage({
    category: 'Prompts',
    description: 'Point a label at a version',
    details: [
      'Creates the label or moves it (a rollback is moving `production` back to an older version). Prints `<name>: <label> -> v<N>` and the version it pointed at before, if any. `--delete` removes the label instead.',
      '`latest` is reserved (it always means the newest version). An unknown prompt or version exits 1.',
    ].join('\n\n'),
    examples: [
      ['Promote version 3', '$0 prompts label support production --version 3'],
      ['Remove a label', '$0 prompts label support staging --delete'],
    ],
  });

  name = Option.String({ name: 'name' });
  label = Option.String({ name: 'label' });
  version = Option.String('--version', { description: 'The version the label points at', validator: positiveInt });
  remove = Option.Boolean('--delete', false, { description: 'Remove the label' });

  async run(): Promise<number | undefined> {
    const registry = this.registry();
    if (this.remove) {
      if (this.version !== undefined) throw new UsageError('--delete takes no --version');
      if (!(await registry.removeLabel(this.name, this.label))) {
        this.err(`error: prompt '${this.name}' has no label '${this.label}'`);
        return 1;
      }
      this.out(`${this.name}: removed label ${this.label}`);
      return;
    }
    if (this.version === undefined) throw new UsageError('--version is required (or --delete)');
    const before = await registry.setLabel(this.name, this.label, this.version);
    this.out(`${this.name}: ${this.label} -> v${this.version}${before !== null && before !== this.version ? ` (was v${before})` : ''}`);
  }
}

/** `prompts fragment <name> --file <path>` */
export class PromptsFragmentCommand extends PromptsCommand {
  static override paths = [['prompts', 'fragment']];

  static override usage = Command.Usage({
    category: 'Prompts',
    description: 'Create or replace a fragment from a file',
    details:
      'A fragment is shared text a template includes with `{{@name}}`. Versions already registered keep the content they were registered with; the next `prompts add` of a template that includes it takes the new content. Prints `fragment <name> saved`.',
    examples: [['Save the tone fragment', '$0 prompts fragment tone --file prompts/tone.txt']],
  });

  name = Option.String({ name: 'name' });
  file = Option.String('--file', { required: true, description: 'Fragment file to read' });

  async run(): Promise<void> {
    await this.registry().registerFragment(this.name, await this.readText(this.file));
    this.out(`fragment ${this.name} saved`);
  }
}
