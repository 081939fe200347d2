/**
 * `agentkit platform keys create | list | revoke` (issue 42, ADR 0067): the Platform's API keys, in its store. A key is
 * printed once, when made; the store keeps its HMAC-SHA-256 and its lookup prefix only.
 */
import { Command, Option } from 'clipanion';
import { cutList, cutNotice, parseLimit } from '../list-cut.js';
import { createApiKey, resolveKeys } from '../../src/platform/server/api-keys.js';
import { openPlatformStore } from '../../src/platform/server/open-platform-store.js';
import { PLATFORM_SCOPES, type PlatformStore, type StoredApiKey } from '../../src/platform/server/store-types.js';
import { AgentkitCommand } from '../base.js';
import { table } from '../table.js';

const DB_DESCRIPTION = 'The Platform store: a file path or a postgres://...?schema= URL (default AGENTKIT_PLATFORM_DB, else ./platform.db)';

abstract class KeysCommand extends AgentkitCommand {
  db = Option.String('--db', { description: DB_DESCRIPTION });

  protected async withStore<T>(work: (store: PlatformStore) => Promise<T>): Promise<T> {
    const store = openPlatformStore(this.db ?? this.context.env.AGENTKIT_PLATFORM_DB ?? 'platform.db', this.context.cwd);
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }
}

/** A key as listed: never its digest. */
const shown = ({ digest: _digest, ...key }: StoredApiKey) => key;

export class PlatformKeysCreateCommand extends KeysCommand {
  static override paths = [['platform', 'keys', 'create']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Make an API key of a project with the given scopes (printed once)',
    details: [
      `Makes a key of \`--project\` with each \`--scope\` given (repeat it): ${PLATFORM_SCOPES.map((s) => `\`${s}\``).join(', ')}. The key is printed once, on stdout; the store keeps its HMAC-SHA-256 and its first 12 characters (its prefix, to find and revoke it).`,
      '`--json` prints `{ key, id, prefix, project, scopes, created_at }`.',
    ].join('\n\n'),
    examples: [
      [
        'A key for a host replicating checkpoints',
        '$0 platform keys create --project support --scope checkpoints:write --scope checkpoints:read --scope claims',
      ],
    ],
  });

  project = Option.String('--project', { required: true, description: 'The project the key belongs to (every request of the key is of it)' });
  scopes = Option.Array('--scope', [], { description: `A scope (repeat): ${PLATFORM_SCOPES.join(', ')}` });
  json = Option.Boolean('--json', false, { description: 'Print the key and its record as JSON' });

  async run(): Promise<number> {
    const created = await this.withStore((store) => createApiKey(store, { project: this.project, scopes: this.scopes }));
    if (this.json) this.out(JSON.stringify({ key: created.key, ...created.record }));
    else {
      this.out(created.key);
      this.err(
        `created key ${created.record.id} (prefix ${created.record.prefix}) of project '${created.record.project}' with ${created.record.scopes.join(', ')}: store it now, it is not shown again`,
      );
    }
    return 0;
  }
}

export class PlatformKeysListCommand extends KeysCommand {
  static override paths = [['platform', 'keys', 'list']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'List the API keys (prefix, project, scopes, created, revoked; never the key)',
    details:
      '`--limit <n>` shows the first n (then `showing <n>, more available` on stderr when there were more); `--json` prints `{ items, count, more_available }`, each item `{ id, prefix, project, scopes, created_at, revoked_at }`.',
  });

  json = Option.Boolean('--json', false, { description: 'Print { items, count, more_available } as JSON' });
  limit = Option.String('--limit', { description: 'At most this many keys (default: all)' });

  async run(): Promise<number> {
    const limit = parseLimit(this.limit);
    // A deployment's keys are few: read whole, cut here.
    const { items: keys, more } = cutList((await this.withStore((store) => store.listKeys())).map(shown), limit);
    if (this.json) {
      this.out(JSON.stringify({ items: keys, count: keys.length, more_available: more }));
      return 0;
    }
    if (more) this.err(cutNotice(keys.length));
    if (keys.length === 0) {
      this.out('no keys (make one with `agentkit platform keys create --project <p> --scope <s>`)');
      return 0;
    }
    const lines = table(
      ['ID', 'PREFIX', 'PROJECT', 'SCOPES', 'CREATED', 'REVOKED'],
      keys.map((k) => [k.id, k.prefix, k.project, k.scopes.join(','), k.created_at, k.revoked_at ?? '-']),
    );
    for (const line of lines) this.out(line);
    return 0;
  }
}

export class PlatformKeysRevokeCommand extends KeysCommand {
  static override paths = [['platform', 'keys', 'revoke']];

  static override usage = Command.Usage({
    category: 'Platform',
    description: 'Revoke an API key by its id or prefix (effective on its next request)',
    details: 'A prefix naming several live keys is refused (exit 2): revoke by id then. Revoking a revoked key changes nothing.',
  });

  key = Option.String({ name: 'id-or-prefix', required: true });

  async run(): Promise<number> {
    const revoked = await this.withStore(async (store) => {
      const keys = await resolveKeys(store, this.key);
      return {
        keys,
        now: await store.revokeKeys(
          keys.map((k) => k.id),
          new Date().toISOString(),
        ),
      };
    });
    if (revoked.now.length === 0) this.out(`key ${revoked.keys[0]!.id} was already revoked`);
    for (const key of revoked.now) this.out(`revoked key ${key.id} (prefix ${key.prefix}) of project '${key.project}'`);
    return 0;
  }
}
