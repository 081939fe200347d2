import { Command } from 'clipanion';
import { VERSION } from '../../src/version.js';
import { AgentkitCommand } from '../base.js';
import { EXTRAS, installedExtras } from '../extras.js';

/** `agentkit version`: the SDK version and the optional extras whose packages import. */
export class VersionCommand extends AgentkitCommand {
  static override paths = [['version']];

  static override usage = Command.Usage({
    description: 'Print the agentkit version and the installed optional extras',
    details: [
      'Prints `agentkit <version>`, followed by `[<extra>, <extra>]` when optional extras are installed. An extra is listed only when its package can be imported.',
      ...EXTRAS.map((e) => `- \`${e.name}\` (${e.module}): ${e.enables}.`),
    ].join('\n\n'),
    examples: [['Print the version', '$0 version']],
  });

  async run(): Promise<void> {
    const extras = await installedExtras();
    this.out(extras.length > 0 ? `agentkit ${VERSION} [${extras.join(', ')}]` : `agentkit ${VERSION}`);
  }
}
