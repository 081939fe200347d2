/**
 * The Postgres backend of the suite: the server named by AGENTKIT_TEST_PG_URL (default the local one), one fresh
 * schema per test. Reachability is probed once per process; under CI=true an unreachable server fails the run.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The URL tests use. */
export function testPgUrl(env: Record<string, string | undefined> = process.env): string {
  return env.AGENTKIT_TEST_PG_URL || DEFAULT_PG_URL;
}

export type PgAvailability = { ok: true } | { ok: false; reason: string };

let probe: Promise<PgAvailability> | undefined;

/** Whether the test server answers (cached). */
export function pgAvailability(): Promise<PgAvailability> {
  probe ??= (async () => {
    const client = new pg.Client({ connectionString: testPgUrl(), connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { ok: true } as const;
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) } as const;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return probe;
}

/** Create a uniquely named empty schema; returns its name. */
export async function createTestSchema(url = testPgUrl()): Promise<string> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return schema;
}

/** Drop a schema made by createTestSchema, with everything in it. */
export async function dropTestSchema(schema: string, url = testPgUrl()): Promise<void> {
  if (!/^t_[0-9a-f]{12}$/.test(schema)) throw new Error(`refusing to drop '${schema}': not a test schema`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
