/**
 * The Platform (`agentkit platform serve`, issue 42) as a real child process, for connected-mode scenarios: its keys
 * registered through the SDK (`createApiKey`) before it starts, bound to 127.0.0.1 (port 0 unless a port is given, so a
 * stopped Platform can come back on the same one). Its store is a SQLite file in `dir`, or, with
 * `AGENTKIT_TEST_PLATFORM_STORE=postgres`, a schema of AGENTKIT_TEST_PG_URL named after `dir` and `dbName` (so a
 * restart finds its rows, and another `dbName` starts empty). `read` gives a test a snapshot of what the store holds.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { createApiKey, verifyApiKey } from '../../src/platform/server/api-keys.js';
import { openPlatformStore } from '../../src/platform/server/open-platform-store.js';
import type {
  CheckpointInput,
  ClaimRecord,
  EvalRunInput,
  PlatformScope,
  PlatformStore,
  RequestRecord,
  StoredRow,
} from '../../src/platform/server/store-types.js';
import type { IngestedSpan } from '../../src/platform/server/ingested-span.js';
import { testPgUrl } from './postgres.js';
import { spawnNode, type NodeChild } from './processes.js';

/** Every scope a test key gets unless it names its own (`admin` aside, so route scopes still apply). */
const ALL_SCOPES: PlatformScope[] = ['traces:write', 'checkpoints:read', 'checkpoints:write', 'claims', 'evals:write', 'evals:read'];

/** A key a scenario's clients send: a string is a key of project `default` with every scope. */
export type TestKey = string | { key: string; project?: string; scopes?: PlatformScope[] };

/** What the Platform's store held when `read` was called, across projects. */
export interface PlatformSnapshot {
  checkpoints(): Array<StoredRow<CheckpointInput>>;
  claims(): Array<ClaimRecord & { project: string }>;
  evalRuns(): Array<StoredRow<EvalRunInput>>;
  /** Authenticated requests, oldest first (`route` is `METHOD /path-template`, `key_id` the key's id). */
  requests(): RequestRecord[];
  /** Every checkpoint of an execution (any project), oldest first (created_at, then arrival). */
  checkpointHistory(executionId: string): CheckpointInput[];
}

export interface LocalPlatform {
  url: string;
  port: number;
  /** The store value (a file, or a postgres URL with its schema). */
  db: string;
  child: NodeChild;
  /** A snapshot of the store, given to `fn`. */
  read<T>(fn: (store: PlatformSnapshot) => T): Promise<T>;
  /** Store spans under `project` (default `default`), as OTLP ingestion would. */
  putSpans(spans: IngestedSpan[], project?: string): Promise<void>;
  /** The id the store gave `key` (how requests and rows name it). */
  keyId(key: string): string;
  /** SIGKILL the server and wait for it to go. */
  kill(): Promise<void>;
  /** SIGTERM and wait (idempotent). */
  stop(): Promise<void>;
}

export interface StartPlatformOptions {
  /** Directory for the store file (and the Postgres schema's name). */
  dir: string;
  apiKeys: TestKey[];
  port?: number;
  maxRowBytes?: number;
  /** The Platform's lease time for executions whose rows arrive (default 30 000 ms). */
  leaseTtlMs?: number;
  /** Store file name inside `dir` (default platform.db). */
  dbName?: string;
  /** `--rate` (default 0 here: scenarios that do not test the limit are not throttled). */
  rate?: number;
  burst?: number;
  /** The store value to serve (a scenario's own `t.store`), instead of one made from `dir` and `dbName`. */
  store?: string;
}

/** The Postgres schemas this process's Platforms used (dropped by `dropPlatformSchemas`). */
const schemas = new Set<string>();

/** The store value for `dir` and `dbName`: a file, or a Postgres schema of its own. */
export function platformStoreValue(dir: string, dbName = 'platform.db'): string {
  if (process.env.AGENTKIT_TEST_PLATFORM_STORE !== 'postgres') return path.join(dir, dbName);
  const url = new URL(testPgUrl());
  const schema = `pf_${createHash('sha256').update(path.join(dir, dbName)).digest('hex').slice(0, 24)}`;
  schemas.add(schema);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** Drop the Postgres schemas of this process's Platforms (conformance/harness/run.ts, once every scenario ended). */
export async function dropPlatformSchemas(): Promise<void> {
  if (schemas.size === 0) return;
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  try {
    for (const schema of schemas) if (/^pf_[0-9a-f]{24}$/.test(schema)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

async function withStore<T>(db: string, work: (store: PlatformStore) => Promise<T>): Promise<T> {
  const store = openPlatformStore(db);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export async function startPlatform(options: StartPlatformOptions): Promise<LocalPlatform> {
  const db = options.store ?? platformStoreValue(options.dir, options.dbName);
  const ids = new Map<string, string>();
  await withStore(db, async (store) => {
    const secret = await store.serverSecret();
    for (const entry of options.apiKeys) {
      const { key, project = 'default', scopes = ALL_SCOPES } = typeof entry === 'string' ? { key: entry } : entry;
      // A restarted Platform keeps its keys.
      const known = await verifyApiKey(store, secret, key);
      ids.set(key, known.valid ? known.key.id : (await createApiKey(store, { project, scopes, key })).record.id);
    }
  });
  const args = ['platform', 'serve', '--port', String(options.port ?? 0), '--db', db, '--log-requests'];
  args.push('--rate', String(options.rate ?? 0));
  if (options.burst !== undefined) args.push('--burst', String(options.burst));
  if (options.maxRowBytes !== undefined) args.push('--max-row-bytes', String(options.maxRowBytes));
  if (options.leaseTtlMs !== undefined) args.push('--lease-ttl-ms', String(options.leaseTtlMs));
  const child = spawnNode('dist/cli/main.js', args);
  const url = await child
    .waitForLine((line) => line.startsWith('http://'), 30_000)
    .catch((error: unknown) => {
      throw new Error(`platform serve did not start: ${(error as Error).message}\n${child.stderr()}`);
    });
  let stopped = false;
  return {
    url,
    port: Number(new URL(url).port),
    db,
    child,
    async read(fn) {
      const snapshot = await withStore(db, async (store) => ({
        checkpoints: await store.checkpoints(),
        claims: await store.claims(),
        evalRuns: await store.evalRuns(),
        requests: await store.requests(),
      }));
      return fn({
        checkpoints: () => snapshot.checkpoints,
        claims: () => snapshot.claims,
        evalRuns: () => snapshot.evalRuns,
        requests: () => snapshot.requests,
        checkpointHistory: (executionId) =>
          snapshot.checkpoints
            .map((row, i) => ({ row: row.body, i }))
            .filter(({ row }) => row.execution_id === executionId)
            .sort((a, b) => (a.row.created_at < b.row.created_at ? -1 : a.row.created_at > b.row.created_at ? 1 : a.i - b.i))
            .map(({ row }) => row),
      });
    },
    async putSpans(spans, project = 'default') {
      const { rejected } = await withStore(db, (store) => store.putSpans(project, spans));
      if (rejected.length > 0) throw new Error(`spans rejected: ${JSON.stringify(rejected)}`);
    },
    keyId(key) {
      const id = ids.get(key);
      if (!id) throw new Error(`no key ${key.slice(0, 12)}... was registered with this Platform`);
      return id;
    },
    async kill() {
      if (stopped) return;
      stopped = true;
      child.process.kill('SIGKILL');
      await child.exit();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      child.process.kill('SIGTERM');
      await child.exit();
    },
  };
}
