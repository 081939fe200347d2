/**
 * Storage backends a scenario runs on. Each test gets its own: SQLite a fresh database file in a fresh directory,
 * Postgres a fresh schema. Scenarios that touch no store run once, on `none`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestSchema, dropTestSchema, testPgUrl } from './postgres.js';

export type BackendKind = 'sqlite' | 'postgres';

export type Backend =
  | { kind: 'sqlite' /** Path of the test's own local.db (not created yet). */; dbPath: string }
  | { kind: 'postgres' /** Connection string. */; url: string /** The test's own schema. */; schema: string }
  | { kind: 'none' };

export const STORAGE_BACKENDS: readonly BackendKind[] = ['sqlite', 'postgres'];

/** Provision a backend for one test inside `workdir`; returns it with its teardown. */
export async function provision(kind: BackendKind | 'none', workdir: string): Promise<{ backend: Backend; teardown: () => Promise<void> }> {
  if (kind === 'sqlite') {
    return { backend: { kind, dbPath: path.join(workdir, '.agentkit', 'local.db') }, teardown: async () => undefined };
  }
  if (kind === 'postgres') {
    const url = testPgUrl();
    const schema = await createTestSchema(url);
    return { backend: { kind, url, schema }, teardown: () => dropTestSchema(schema, url) };
  }
  return { backend: { kind: 'none' }, teardown: async () => undefined };
}

/** A fresh working directory for one test (the CLI's cwd, `./.agentkit`, output files). */
export async function makeWorkdir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-test-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
