import { Command, Option } from 'clipanion';
import { AgentkitCommand } from '../base.js';
import { VERSION } from '../../src/version.js';
import { EXTRAS, installedExtras } from '../extras.js';
import { versionLine } from '../version-line.js';

/** `agentkit version`: the SDK version and the optional extras whose packages are installed. */
export class VersionCommand extends AgentkitCommand {
  static override paths = [['version']];

  static override usage = Command.Usage({
    category: 'General',
    description: 'Print the agentkit version and the installed optional extras',
    details: [
      'Prints `agentkit <version>`, followed by `[<extra>, <extra>]` when optional extras are installed. An extra is listed when its package is installed where agentkit resolves it (its entry point resolves and exists); it is not imported, so the command stays fast.',
      ...EXTRAS.map((e) => `- \`${e.name}\` (${e.module}): ${e.enables}.`),
    ].join('\n\n'),
    examples: [
      ['Print the version', '$0 version'],
      ['As JSON', '$0 version --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print { version, extras } as JSON' });

  async run(): Promise<void> {
    if (this.json) return this.out(JSON.stringify({ version: VERSION, extras: installedExtras() }));
    this.out(versionLine());
  }
}
