/**
 * Changes to the auth file's users (`agentkit ui users ...`, `ui reset-password`, sign-out everywhere). Each returns
 * the new content and leaves the argument unchanged; a refused change throws ConfigError with one line saying why.
 *
 * Whatever takes power away from a user (removal, demotion, a new password, sign-out everywhere) raises their
 * generation, so their open sessions end on the next request. The last admin can be neither removed nor demoted:
 * someone must be able to manage the UI.
 */
import { ConfigError } from '../errors.js';
import { type AuthFile, type AuthUser, findUser, hashPassword, newAuthUser, checkCredentials } from './auth-file.js';
import type { UiRole } from './roles.js';

function known(file: AuthFile, username: string): AuthUser {
  const user = findUser(file, username);
  if (!user) throw new ConfigError(`no UI user '${username}' (users: ${file.users.map((u) => u.username).join(', ') || 'none'})`);
  return user;
}

function replace(file: AuthFile, username: string, change: (user: AuthUser) => AuthUser): AuthFile {
  return { ...file, users: file.users.map((user) => (user.username === username ? change(user) : user)) };
}

function refuseLastAdmin(file: AuthFile, user: AuthUser, what: string): void {
  if (user.role === 'admin' && file.users.filter((u) => u.role === 'admin').length === 1) {
    throw new ConfigError(`refusing to ${what} '${user.username}': it is the last admin; make another user admin first`);
  }
}

/** Add a user; refused when the name is taken. */
export async function addUser(file: AuthFile, username: string, password: string, role: UiRole): Promise<AuthFile> {
  if (findUser(file, username)) throw new ConfigError(`UI user '${username}' already exists; change it with \`ui users set-role\` or \`ui reset-password\``);
  return { ...file, users: [...file.users, await newAuthUser(username, password, role)] };
}

/** Remove a user (their sessions end with them); refused for the last admin. */
export function removeUser(file: AuthFile, username: string): AuthFile {
  refuseLastAdmin(file, known(file, username), 'remove');
  return { ...file, users: file.users.filter((user) => user.username !== username) };
}

/** Change a user's role; a demotion signs them out everywhere. Refused for demoting the last admin. */
export function setRole(file: AuthFile, username: string, role: UiRole): AuthFile {
  const user = known(file, username);
  if (user.role === role) return file;
  if (role !== 'admin') refuseLastAdmin(file, user, `demote`);
  return replace(file, username, (u) => ({ ...u, role, generation: u.generation + 1 }));
}

/** Set a user's password; their open sessions are signed out. */
export async function setPassword(file: AuthFile, username: string, password: string): Promise<AuthFile> {
  known(file, username);
  checkCredentials(username, password);
  const hash = await hashPassword(password);
  return replace(file, username, (u) => ({ ...u, password_hash: hash, generation: u.generation + 1 }));
}

/** End every open session of a user (the browser they use now included). */
export function signOutEverywhere(file: AuthFile, username: string): AuthFile {
  known(file, username);
  return replace(file, username, (u) => ({ ...u, generation: u.generation + 1 }));
}
