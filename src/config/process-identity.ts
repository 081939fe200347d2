/**
 * Who this process is, once per boot: its host, its pid and an instance id. The instance id is what OpenTelemetry
 * calls `service.instance.id` (the tracing resource carries it, so a collector tells replicas apart) and what every
 * execution lease owner starts with (so a lease names the replica that holds it). It is random per process, unless
 * `OTEL_RESOURCE_ATTRIBUTES` sets `service.instance.id` (an orchestrator that names its replicas).
 *
 * Read once, on first use, and fixed for the life of the process: a replica does not change who it is.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export interface ProcessIdentity {
  /** The host name (`os.hostname()`). */
  readonly host: string;
  readonly pid: number;
  /** `service.instance.id`: from `OTEL_RESOURCE_ATTRIBUTES` when it sets one, else a random UUID made at boot. */
  readonly instanceId: string;
}

const SERVICE_INSTANCE_ID = 'service.instance.id';

let identity: ProcessIdentity | undefined;

/** This process's identity (computed on the first call, from `process.env`, then fixed). */
export function processIdentity(): ProcessIdentity {
  identity ??= Object.freeze({ host: hostname(), pid: process.pid, instanceId: instanceIdFrom(process.env) ?? randomUUID() });
  return identity;
}

/** The per-boot instance id (`processIdentity().instanceId`). */
export function serviceInstanceId(): string {
  return processIdentity().instanceId;
}

/**
 * The `service.instance.id` that `OTEL_RESOURCE_ATTRIBUTES` in `env` sets, if any. The variable is read as the
 * OpenTelemetry specification (and `@opentelemetry/resources`) reads it: comma-separated `key=value` pairs, keys and
 * values percent-decoded and trimmed, at most 255 characters each; any malformed entry discards the whole variable.
 */
export function instanceIdFrom(env: Record<string, string | undefined>): string | undefined {
  const raw = env.OTEL_RESOURCE_ATTRIBUTES;
  if (!raw) return undefined;
  let found: string | undefined;
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const pair = entry.split('=');
    if (pair.length !== 2) return undefined;
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(pair[0]!.trim());
      value = decodeURIComponent(pair[1]!.trim());
    } catch {
      return undefined;
    }
    if (key === '' || key.length > 255 || value.length > 255) return undefined;
    if (key === SERVICE_INSTANCE_ID) found = value;
  }
  return found === '' ? undefined : found;
}
