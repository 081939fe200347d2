/**
 * `agentkit auth status` and `agentkit auth env`: the credentials in effect (environment variables win over the
 * credentials file, field by field). Both exit 1 when not connected.
 */
import { Command, Option } from 'clipanion';
import { credentialsPath, loadCredentials, maskKey } from '../../src/platform/index.js';
import { AgentkitCommand } from '../base.js';

export class AuthStatusCommand extends AgentkitCommand {
  static override paths = [['auth', 'status']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Show the Platform connection in effect: source, target, project and the masked key',
    details: [
      'Prints `Connected (source: env|file)`, `Target: <url>`, `Project: <name or (default)>` and `API key: <first 6>…<last 4>`. The source is `env` when AGENTKIT_API_KEY is set (it wins over the file), else `file`.',
      'Exits 1 with `Not connected` when neither holds a key. `--json` prints `{ connected, source, target, project, api_key, credentials_file }` with the key masked.',
    ].join('\n\n'),
    examples: [['Show the connection', '$0 auth status']],
  });

  json = Option.Boolean('--json', false, { description: 'Print the status as JSON' });

  async run(): Promise<number> {
    const env = this.context.env;
    const credentials = loadCredentials({ env });
    const file = credentialsPath({ env });
    if (this.json) {
      this.out(
        JSON.stringify({
          connected: credentials !== null,
          source: credentials?.source ?? null,
          target: credentials?.target ?? null,
          project: credentials?.project ?? null,
          api_key: credentials ? maskKey(credentials.apiKey) : null,
          credentials_file: file,
        }),
      );
      return credentials ? 0 : 1;
    }
    if (!credentials) {
      this.out('Not connected');
      this.err(`no AGENTKIT_API_KEY and no ${file}; run \`agentkit connect --api-key-stdin\``);
      return 1;
    }
    this.out(`Connected (source: ${credentials.source})`);
    this.out(`Target: ${credentials.target}`);
    this.out(`Project: ${credentials.project ?? '(default)'}`);
    this.out(`API key: ${maskKey(credentials.apiKey)}`);
    return 0;
  }
}

export class AuthEnvCommand extends AgentkitCommand {
  static override paths = [['auth', 'env']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Print shell exports of AGENTKIT_API_KEY, AGENTKIT_TARGET and AGENTKIT_PROJECT',
    details:
      'Prints `export NAME=\'value\'` lines (POSIX single-quoted) for the credentials in effect, for `eval "$(agentkit auth env)"` in CI or a container. AGENTKIT_PROJECT is printed only when a project is set. Exits 1 when not connected. The output holds the key in clear: do not log it.',
    examples: [['Export into the current shell', 'eval "$($0 auth env)"']],
  });

  async run(): Promise<number> {
    const env = this.context.env;
    const credentials = loadCredentials({ env });
    if (!credentials) {
      this.err(`# not connected: no AGENTKIT_API_KEY and no ${credentialsPath({ env })}`);
      return 1;
    }
    this.out(`export AGENTKIT_API_KEY=${shellQuote(credentials.apiKey)}`);
    this.out(`export AGENTKIT_TARGET=${shellQuote(credentials.target)}`);
    if (credentials.project) this.out(`export AGENTKIT_PROJECT=${shellQuote(credentials.project)}`);
    return 0;
  }
}

/** POSIX single quoting: nothing inside is expanded; a quote becomes '\''. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
