/**
 * The store's `processes` table (trace family, ./pg-schema.ts): who writes to a Postgres store. Each process that
 * writes spans or checkpoints registers itself once per store (service name from `OTEL_SERVICE_NAME`, host, pid and
 * instance id) and stamps the row's small id on what it writes, so a fleet's traces and checkpoints name their
 * replica (issue 38). The trace schema must be migrated (`migrateTraceSchema`).
 */
import type pg from 'pg';
import { processIdentity } from '../config/process-identity.js';

/** This process's `processes` row in `schema` under `project` (created on first call, the same row after): its id. */
export async function registerProcess(pool: Pick<pg.Pool, 'query'>, schema: string, project = ''): Promise<number> {
  const identity = processIdentity();
  const service = process.env.OTEL_SERVICE_NAME || 'unknown_service:node';
  const result = await pool.query<{ process_id: number }>(
    `INSERT INTO "${schema}".processes (project, service_name, host, pid, instance_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project, instance_id, host, pid) DO UPDATE SET service_name = EXCLUDED.service_name RETURNING process_id`,
    [project, service, identity.host, identity.pid, identity.instanceId],
  );
  return result.rows[0]!.process_id;
}
