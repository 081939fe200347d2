/**
 * `agentkit auth status` and `agentkit auth env`: the credentials in effect (environment variables win over the
 * credentials file, field by field). Both exit 1 when not connected. `auth status` only reads the credentials and
 * says so ("not verified"); `--verify` asks the Platform whether it accepts the key (docs/adr/0054).
 */
import { Command, Option } from 'clipanion';
import { credentialsPath, loadCredentials, maskKey, PlatformClient } from '../../src/platform/index.js';
import { AgentkitCommand } from '../base.js';

export class AuthStatusCommand extends AgentkitCommand {
  static override paths = [['auth', 'status']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Show the Platform connection in effect: source, target, project and the masked key',
    details: [
      'Prints `Connected (source: env|file, not verified)`, `Target: <url>`, `Project: <name or (default)>` and `API key: <first 6>…<last 4>`. The source is `env` when AGENTKIT_API_KEY is set (it wins over the file), else `file`. Without `--verify` nothing is sent: the key may be wrong.',
      '`--verify` checks the key against the Platform (`GET /public/v1/auth/check`) and prints `Connected (source: ..., verified)`; a refused key or an unreachable Platform prints why and exits 1.',
      'Exits 1 with `Not connected` when neither holds a key. `--json` prints `{ connected, verified, source, target, project, api_key, credentials_file }` with the key masked (`verified` is null without `--verify`).',
    ].join('\n\n'),
    examples: [
      ['Show the connection', '$0 auth status'],
      ['Check the key against the Platform', '$0 auth status --verify'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print the status as JSON' });
  verify = Option.Boolean('--verify', false, { description: 'Check the key against the Platform (exit 1 when refused or unreachable)' });

  async run(): Promise<number> {
    const env = this.context.env;
    const credentials = loadCredentials({ env });
    const file = credentialsPath({ env });
    let verified: boolean | null = null;
    let refusal: string | null = null;
    if (credentials && this.verify) {
      try {
        await new PlatformClient({ apiKey: credentials.apiKey, target: credentials.target, attempts: 2, backoffMs: 250 }).authCheck();
        verified = true;
      } catch (error) {
        verified = false;
        refusal = (error as Error).message;
      }
    }
    if (this.json) {
      this.out(
        JSON.stringify({
          connected: credentials !== null,
          verified,
          source: credentials?.source ?? null,
          target: credentials?.target ?? null,
          project: credentials?.project ?? null,
          api_key: credentials ? maskKey(credentials.apiKey) : null,
          credentials_file: file,
          ...(refusal ? { error: refusal } : {}),
        }),
      );
      return credentials && verified !== false ? 0 : 1;
    }
    if (!credentials) {
      this.out('Not connected');
      this.err(`error: not connected: no AGENTKIT_API_KEY and no ${file}; run \`agentkit connect --target <url> --api-key-stdin\``);
      return 1;
    }
    if (verified === false) {
      this.out(`Not connected (source: ${credentials.source}): the Platform did not accept the key`);
      this.err(`error: ${refusal}`);
    } else {
      this.out(`Connected (source: ${credentials.source}, ${verified ? 'verified' : 'not verified'})`);
    }
    this.out(`Target: ${credentials.target}`);
    this.out(`Project: ${credentials.project ?? '(default)'}`);
    this.out(`API key: ${maskKey(credentials.apiKey)}`);
    return verified === false ? 1 : 0;
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
      this.err(`error: not connected: no AGENTKIT_API_KEY and no ${credentialsPath({ env })}`);
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
