/**
 * Conformance scenarios: one body, run once per (backend, surface) it names, each variant a uvu test with its own
 * working directory, its own store, a time limit, and a record in the coverage report for the spec rows it proves.
 *
 *   const area = conformance('served agent');
 *   area.scenario('unknown field is a 400', { rows: ['route:POST /run'], backends: 'none', surfaces: ['http'] },
 *     async (t) => { ... });
 *   area.run();
 */
import { pgAvailability, testPgUrl } from './postgres.js';
import { makeWorkdir, provision, STORAGE_BACKENDS, type Backend, type BackendKind } from './backends.js';
import { record, type Surface } from './coverage.js';
import { runBinary, runInProcess, type CliRun } from './cli.js';
import { startApp, type RunningServer } from './http.js';
import { suite } from '../../test-support/uvu.js';
import type { Express } from 'express';
import { flushTraces } from '../../src/tracing/index.js';
import type { SpecRowId } from '../spec-rows.js';

export interface ScenarioOptions {
  /** Spec rows this scenario proves. */
  rows?: readonly SpecRowId[];
  /** Backends to run on (default: SQLite and Postgres); `'none'` for scenarios that touch no store. */
  backends?: readonly BackendKind[] | 'none';
  /** Surfaces to run through (default: `['sdk']`). */
  surfaces?: readonly Surface[];
  /** Per-variant limit in ms (default 20 s). */
  timeoutMs?: number;
  /**
   * The Postgres variant's CLI environment names its schema in AGENTKIT_LOCAL_DB (`postgres://...?schema=`), as the
   * SQLite variant's names its file, so a scenario written for the local store runs unchanged on both (issue 38).
   */
  storeEnv?: boolean;
}

export interface ScenarioContext {
  backend: Backend;
  surface: Surface;
  /** The variant's own working directory, removed afterwards. */
  cwd: string;
  /** The variant's store as one value: the SQLite file, or the Postgres URL with `?schema=` (undefined: no backend). */
  store: string | undefined;
  /** Environment for CLI runs: AGENTKIT_LOCAL_DB points into `cwd` for SQLite (and names the schema with `storeEnv`). */
  env: Record<string, string>;
  /** Run `agentkit <argv>` in-process. */
  cli(argv: string[], options?: { env?: Record<string, string>; stdin?: string }): Promise<CliRun>;
  /** Run the real built `agentkit` binary. */
  bin(argv: string[], options?: { env?: Record<string, string>; stdin?: string }): Promise<CliRun>;
  /** Serve an app on 127.0.0.1:0 for this variant; closed afterwards. */
  serve(app: Express, options?: { warm?: boolean }): Promise<RunningServer>;
  /** Run `fn` after the variant, last registered first. */
  defer(fn: () => unknown): void;
}

const pg = await pgAvailability();
const ci = process.env.CI === 'true';

/** A group of scenarios (one per spec area), registered as one uvu suite. */
export function conformance(area: string) {
  const test = suite(area, { timeoutMs: 20_000 });

  function scenario(name: string, options: ScenarioOptions, body: (t: ScenarioContext) => Promise<void>): void {
    const backends: ReadonlyArray<BackendKind | 'none'> = options.backends === 'none' ? ['none'] : (options.backends ?? [...STORAGE_BACKENDS]);
    const surfaces = options.surfaces ?? ['sdk'];
    for (const backendKind of backends) {
      for (const surface of surfaces) {
        const label = `${name} [${backendKind === 'none' ? 'any' : backendKind}/${surface}]`;
        if (backendKind === 'postgres' && !pg.ok) {
          if (!ci) {
            test.skip(label);
            continue;
          }
          test(label, () => {
            throw new Error(`Postgres unreachable at ${testPgUrl()} (${pg.reason}); under CI=true this fails the run`);
          });
          continue;
        }
        test(label, () => runVariant(backendKind, surface, options.rows ?? [], body, options.storeEnv === true), options.timeoutMs);
      }
    }
  }

  return { scenario, run: () => test.run() };
}

async function runVariant(
  backendKind: BackendKind | 'none',
  surface: Surface,
  rows: readonly SpecRowId[],
  body: (t: ScenarioContext) => Promise<void>,
  storeEnv = false,
): Promise<void> {
  const work = await makeWorkdir();
  // Runs first-deferred-last: spans the scenario left queued are written before their store's directory goes.
  const deferred: Array<() => unknown> = [
    async () => {
      await flushTraces();
      await work.remove();
    },
  ];
  let passed = false;
  try {
    const { backend, teardown } = await provision(backendKind, work.dir);
    deferred.push(teardown);
    const store = storeValueOf(backend);
    const env: Record<string, string> = backend.kind === 'sqlite' || (storeEnv && store !== undefined) ? { AGENTKIT_LOCAL_DB: store! } : {};
    const t: ScenarioContext = {
      backend,
      store,
      surface,
      cwd: work.dir,
      env,
      cli: (argv, o = {}) => runInProcess(argv, { cwd: work.dir, env: { ...env, ...o.env }, stdin: o.stdin }),
      bin: (argv, o = {}) => runBinary(argv, { cwd: work.dir, env: { ...env, ...o.env }, stdin: o.stdin }),
      serve: async (app, o) => {
        const server = await startApp(app, o);
        deferred.push(() => server.close());
        return server;
      },
      defer: (fn) => deferred.push(fn),
    };
    await body(t);
    passed = true;
  } finally {
    record(rows, backendKind === 'none' ? 'any' : backendKind, surface, passed);
    for (const fn of deferred.reverse()) {
      try {
        await fn();
      } catch (error) {
        // Cleanup failures must not mask the test's own outcome, but they must be seen.
        console.error(`cleanup after a scenario failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

/** The backend's store as one value: the file, or the URL with its schema as `?schema=`. */
export function storeValueOf(backend: Backend): string | undefined {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind !== 'postgres') return undefined;
  const url = new URL(backend.url);
  url.searchParams.set('schema', backend.schema);
  return url.toString();
}
