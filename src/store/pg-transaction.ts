/**
 * One Postgres transaction on one pooled connection: BEGIN, `work`, COMMIT; on any error ROLLBACK and rethrow. A
 * connection whose ROLLBACK failed too (it died mid-transaction) is released as broken, so the pool discards it
 * instead of lending it out again.
 */
import type pg from 'pg';

export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackError: unknown) => rollbackError as Error,
    );
    throw error;
  } finally {
    client.release(broken);
  }
}
