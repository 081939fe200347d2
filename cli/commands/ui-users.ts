/**
 * `agentkit ui users add|list|remove|set-role|sign-out`: the local UI's users and roles in the auth file
 * (`--auth-file`, default `./.agentkit/auth.json`; per host). A running UI re-reads the file on its next request, so
 * a removal, a demotion or a sign-out takes effect there at once. docs/ui.md "Users and roles".
 */
import { Command, Option, UsageError } from 'clipanion';
import path from 'node:path';
import * as t from 'typanion';
import { agentkitDir } from '../../src/config/paths.js';
import { newAuthFile, readAuthFile, writeAuthFile, type AuthFile } from '../../src/ui/auth-file.js';
import { UI_ROLES, type UiRole } from '../../src/ui/roles.js';
import { addUser, removeUser, setRole, signOutEverywhere } from '../../src/ui/users.js';
import { cutList, cutNotice, parseLimit } from '../list-cut.js';
import { AgentkitCommand } from '../base.js';
import { askPassword, readAllStdin } from '../prompt.js';

const role = t.isEnum(UI_ROLES);
const ROLE_HELP = 'viewer (reads), approver (also approves and rejects), admin (also reruns forks, saves tests, marks favorites, manages users)';

/** Shared options: where the auth file is. */
abstract class UiUsersCommand extends AgentkitCommand {
  authFile = Option.String('--auth-file', { description: 'Credentials file (default ./.agentkit/auth.json)' });

  protected file(): string {
    const where = { env: this.context.env, cwd: this.context.cwd };
    return this.authFile !== undefined ? path.resolve(this.context.cwd, this.authFile) : path.join(agentkitDir(where), 'auth.json');
  }

  /** The auth file's content; a missing file is a usage error naming how to create it. */
  protected async existing(file: string): Promise<AuthFile> {
    const content = await readAuthFile(file);
    if (!content) throw new UsageError(`no auth file at ${file}: add the first user with \`agentkit ui users add <name> --role admin --password-stdin\``);
    return content;
  }

  /** Apply a change and write it; a refusal (ConfigError) is one line on stderr, exit 2, and nothing is written. */
  protected async change(file: string, apply: () => Promise<AuthFile> | AuthFile): Promise<void> {
    await writeAuthFile(file, await apply());
  }
}

/** Read a new password: the first line of stdin with `--password-stdin`, else asked twice at a terminal. */
export async function newPassword(command: AgentkitCommand, fromStdin: boolean): Promise<string> {
  if (fromStdin) return (await readAllStdin(command.context)).split(/\r?\n/)[0] ?? '';
  if (!(command.context.stdin as NodeJS.ReadStream).isTTY)
    throw new UsageError('standard input is not a terminal: pass --password-stdin to read the password from it');
  const password = await askPassword(command.context, 'Password: ');
  const again = await askPassword(command.context, 'Repeat password: ');
  if (password !== again) throw new UsageError('the two passwords differ; nothing was written');
  return password;
}

export class UiUsersAddCommand extends UiUsersCommand {
  static override paths = [['ui', 'users', 'add']];

  static override usage = Command.Usage({
    category: 'Local UI',
    description: 'Add a user to the local UI',
    details: [
      `Adds a user with a role to the auth file (mode 0600; a scrypt hash of the password, never the password). Roles: ${ROLE_HELP}. Default role: viewer.`,
      'Without an auth file, writes a new one; its first user should be an admin. At a terminal the password is asked twice; `--password-stdin` reads the first line of standard input. Passwords must be at least 8 characters.',
    ].join('\n\n'),
    examples: [
      ['Add an approver from a script', 'printf \'%s\' "$PW" | $0 ui users add bob --role approver --password-stdin'],
      ['Add a viewer interactively', '$0 ui users add carol'],
    ],
  });

  username = Option.String({ required: true, name: 'name' });
  role = Option.String('--role', 'viewer', { validator: role, description: 'viewer, approver or admin (default viewer)' });
  passwordStdin = Option.Boolean('--password-stdin', false, { description: 'Read the password from standard input' });

  async run(): Promise<void> {
    const file = this.file();
    const current = await readAuthFile(file);
    const password = await newPassword(this, this.passwordStdin);
    await this.change(file, () =>
      current ? addUser(current, this.username, password, this.role as UiRole) : newAuthFile(this.username, password, this.role as UiRole),
    );
    this.out(`added UI user '${this.username}' (${this.role}) to ${file}`);
  }
}

export class UiUsersListCommand extends UiUsersCommand {
  static override paths = [['ui', 'users', 'list']];

  static override usage = Command.Usage({
    category: 'Local UI',
    description: 'List the local UI users and their roles',
    details:
      'Prints each user of the auth file with its role and when it was added; `--json` prints `[{username, role, created_at}]`. Never prints hashes. `--limit <n>` shows the first n (`showing <n>, more available` on stderr when there were more).',
    examples: [['List users', '$0 ui users list']],
  });

  json = Option.Boolean('--json', false, { description: 'Print JSON' });
  limit = Option.String('--limit', { description: 'At most this many users (default: all)' });

  async run(): Promise<void> {
    const limit = parseLimit(this.limit);
    const content = await this.existing(this.file());
    // The auth file is read whole (a handful of users); the list is cut here.
    const { items: users, more } = cutList(
      content.users.map((u) => ({ username: u.username, role: u.role, created_at: u.created_at })),
      limit,
    );
    // --json stays the array it always was; the cut is said on stderr either way.
    if (more) this.err(cutNotice(users.length));
    if (this.json) {
      this.out(JSON.stringify(users, null, 2));
      return;
    }
    const width = Math.max(8, ...users.map((u) => u.username.length));
    this.out(`${'USERNAME'.padEnd(width)}  ${'ROLE'.padEnd(8)}  CREATED AT`);
    for (const u of users) this.out(`${u.username.padEnd(width)}  ${u.role.padEnd(8)}  ${u.created_at}`);
  }
}

export class UiUsersRemoveCommand extends UiUsersCommand {
  static override paths = [['ui', 'users', 'remove']];

  static override usage = Command.Usage({
    category: 'Local UI',
    description: 'Remove a user from the local UI',
    details: 'Removes the user; a running UI refuses their session on its next request (401). The last admin cannot be removed (exit 2).',
    examples: [['Remove a user', '$0 ui users remove bob']],
  });

  username = Option.String({ required: true, name: 'name' });

  async run(): Promise<void> {
    const file = this.file();
    const current = await this.existing(file);
    await this.change(file, () => removeUser(current, this.username));
    this.out(`removed UI user '${this.username}' from ${file}; their sessions are signed out`);
  }
}

export class UiUsersSetRoleCommand extends UiUsersCommand {
  static override paths = [['ui', 'users', 'set-role']];

  static override usage = Command.Usage({
    category: 'Local UI',
    description: "Change a local UI user's role",
    details: `Roles: ${ROLE_HELP}. A changed role signs the user's sessions out (they sign in again with the new role). The last admin cannot be demoted (exit 2).`,
    examples: [['Make bob a viewer', '$0 ui users set-role bob viewer']],
  });

  username = Option.String({ required: true, name: 'name' });
  role = Option.String({ required: true, name: 'role', validator: role });

  async run(): Promise<void> {
    const file = this.file();
    const current = await this.existing(file);
    await this.change(file, () => setRole(current, this.username, this.role as UiRole));
    this.out(`UI user '${this.username}' is now ${this.role}`);
  }
}

export class UiUsersSignOutCommand extends UiUsersCommand {
  static override paths = [['ui', 'users', 'sign-out']];

  static override usage = Command.Usage({
    category: 'Local UI',
    description: 'Sign a local UI user out everywhere',
    details: 'Ends every open session of the user, in every browser, on its next request. The user can sign in again (remove them to keep them out).',
    examples: [['Sign bob out everywhere', '$0 ui users sign-out bob']],
  });

  username = Option.String({ required: true, name: 'name' });

  async run(): Promise<void> {
    const file = this.file();
    const current = await this.existing(file);
    await this.change(file, () => signOutEverywhere(current, this.username));
    this.out(`signed UI user '${this.username}' out everywhere`);
  }
}
