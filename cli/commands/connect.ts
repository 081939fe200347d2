/**
 * `agentkit connect` and `agentkit disconnect`: save (after verifying it against the Platform) or remove the
 * credentials file `~/.agentkit/credentials.toml`. The key comes from `--api-key`, `--api-key-stdin` (keeps it out of
 * shell history and `ps`), or a hidden prompt when stdin is a terminal. Nothing is written unless the Platform
 * accepted the key.
 */
import { Command, Option, UsageError } from 'clipanion';
import type { Readable, Writable } from 'node:stream';
import { ConfigError } from '../../src/errors.js';
import {
  configuredTarget,
  credentialsPath,
  normalizeTarget,
  PlatformClient,
  PlatformError,
  removeCredentialsFile,
  writeCredentialsFile,
} from '../../src/platform/index.js';
import { registerSecret } from '../../src/config/secrets.js';
import { AgentkitCommand } from '../base.js';

export class ConnectCommand extends AgentkitCommand {
  static override paths = [['connect']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Verify a Platform API key and save it to ~/.agentkit/credentials.toml',
    details: [
      'Checks the key against the Platform (`GET /public/v1/auth/check`), then writes `~/.agentkit/credentials.toml` (mode 0600 in a 0700 folder, atomically). A refused key or an unreachable Platform writes nothing and exits 1.',
      'The key comes from `--api-key <key>`, or `--api-key-stdin` (first line of stdin), or, when stdin is a terminal, a hidden prompt. Prefer the last two: they keep the key out of shell history.',
      'The target is `--target`, else AGENTKIT_TARGET, else the target already saved; with none of them the command exits 2 asking for `--target` (there is no default Platform).',
      'AGENTKIT_API_KEY, AGENTKIT_TARGET and AGENTKIT_PROJECT, when set, win over the saved file everywhere (`agentkit auth status` shows which is in effect). Saving credentials connects only the CLI: scripts connect explicitly with `connect()`.',
    ].join('\n\n'),
    examples: [
      [
        'Connect with a key from a secrets manager',
        'op read op://vault/agentkit/key | $0 connect --api-key-stdin --target https://platform.example.com --project support-bot',
      ],
      ['Connect to a local Platform', '$0 connect --api-key-stdin --target http://127.0.0.1:8700'],
    ],
  });

  apiKey = Option.String('--api-key', { description: 'API_KEY: the Platform API key (visible in shell history; prefer --api-key-stdin)' });
  apiKeyStdin = Option.Boolean('--api-key-stdin', false, { description: 'Read the API key from the first line of stdin' });
  target = Option.String('--target', { description: 'URL: the Platform (default AGENTKIT_TARGET, else the saved target; required when neither is set)' });
  project = Option.String('--project', { description: "NAME: the project to send to (default: the key's default project)" });
  timeout = Option.String('--timeout', '10', { description: 'SECONDS: how long to wait for the Platform (default 10)' });

  async run(): Promise<number> {
    const env = this.context.env;
    const timeoutS = Number(this.timeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new UsageError(`--timeout must be a positive number of seconds, got '${this.timeout}'`);
    // There is no default Platform (docs/adr/0054): dialing a made-up host would fail later and less clearly.
    const given = this.target ?? configuredTarget({ env });
    if (!given) throw new UsageError('no Platform target given or configured: pass --target <url> (or set AGENTKIT_TARGET)');
    const apiKey = (await this.readKey()).trim();
    if (!apiKey) throw new UsageError('the API key is empty');
    registerSecret(apiKey);
    const target = normalizeTarget(given);
    const project = this.project?.trim() || null;
    const client = new PlatformClient({ apiKey, target, timeoutMs: timeoutS * 1000, attempts: 2, backoffMs: 250 });
    try {
      await client.authCheck();
    } catch (error) {
      if (error instanceof PlatformError || (error as { code?: string }).code === 'invalid_api_key' || (error as { code?: string }).code === 'forbidden') {
        this.err(`error: connection failed: ${(error as Error).message}. Nothing was saved.`);
        return 1;
      }
      throw error;
    }
    const file = writeCredentialsFile({ apiKey, target, project }, { env });
    this.out(`Connected to ${target} (project: ${project ?? '(default)'}). Credentials saved to ${file}`);
    return 0;
  }

  private async readKey(): Promise<string> {
    const given = [this.apiKey !== undefined, this.apiKeyStdin].filter(Boolean).length;
    if (given > 1) throw new UsageError('give the key with --api-key or --api-key-stdin, not both');
    if (this.apiKey !== undefined) return this.apiKey;
    if (this.apiKeyStdin) return firstLine(await readAll(this.context.stdin));
    const stdin = this.context.stdin as Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => void };
    if (stdin.isTTY && typeof stdin.setRawMode === 'function') return hiddenPrompt('Platform API key: ', stdin, this.context.stderr);
    throw new UsageError('no API key: pass --api-key <key>, pipe it with --api-key-stdin, or run in a terminal to be prompted');
  }
}

export class DisconnectCommand extends AgentkitCommand {
  static override paths = [['disconnect']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Remove the saved Platform credentials (~/.agentkit/credentials.toml)',
    details: 'Deletes the credentials file. AGENTKIT_API_KEY in the environment, if set, still connects the CLI: unset it too.',
    examples: [['Disconnect', '$0 disconnect']],
  });

  async run(): Promise<number> {
    const env = this.context.env;
    const removed = removeCredentialsFile({ env });
    this.out(removed ? `Disconnected: removed ${credentialsPath({ env })}` : `Not connected: ${credentialsPath({ env })} does not exist`);
    if (env.AGENTKIT_API_KEY) this.err('note: AGENTKIT_API_KEY is still set in this environment and keeps the CLI connected');
    return 0;
  }
}

function firstLine(text: string): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  if (!line.trim()) throw new ConfigError('--api-key-stdin read no key from stdin');
  return line;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Read one line from a terminal without echoing it. */
function hiddenPrompt(question: string, stdin: Readable & { setRawMode?: (raw: boolean) => void }, out: Writable): Promise<string> {
  return new Promise((resolve, reject) => {
    // Raw mode (no echo) before the prompt is shown: a key typed the moment the prompt appears must never reach a
    // terminal that still echoes.
    stdin.setRawMode?.(true);
    stdin.resume();
    out.write(question);
    let value = '';
    const done = (error?: Error) => {
      stdin.setRawMode?.(false);
      stdin.pause();
      stdin.off('data', onData);
      out.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new UsageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
