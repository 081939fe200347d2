/**
 * A throwaway Postgres schema for one benchmark: `fn` gets the server URL, the schema name and an admin client; the
 * schema is dropped afterwards whatever happens. Returns a line saying why when the server cannot be reached (a
 * benchmark prints it and goes on; benchmarks are not tests, so an absent server is reported, not fatal).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export async function withScratchSchema<T>(fn: (url: string, schema: string, admin: pg.Client) => Promise<T>): Promise<T | string> {
  const url = process.env.AGENTKIT_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    return `unavailable (${error instanceof Error ? error.message : String(error)})`;
  }
  try {
    return await fn(url, schema, admin);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}
