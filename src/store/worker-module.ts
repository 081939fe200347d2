/**
 * Start one of agentkit's worker threads from its typed module. Every worker body is a module of its own beside the
 * code that starts it (`wal-keeper-worker.ts`, `drain-worker.ts`): type-checked, compiled to `dist/` and packed like
 * the rest. From the built package the thread loads the compiled `.js`; run from the TypeScript sources (tests,
 * `--conditions=agentkit-source`), it registers the same TypeScript loader (tsx) first, then loads the `.ts`.
 *
 * The only code evaluated as text is that loader line. When the module cannot load, the thread ends with the error
 * (the `Worker` emits `error`).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The URL of the worker module `name` beside the caller's module (`callerUrl` is its `import.meta.url`): `.ts` when
 * the caller runs from sources, `.js` when it runs from `dist/`.
 */
export function workerModuleUrl(callerUrl: string, name: string): string {
  const fromSource = callerUrl.endsWith('.ts');
  return new URL(`./${name}${fromSource ? '.ts' : '.js'}`, callerUrl).href;
}

/**
 * Start a thread running the module at `entryUrl` (see `workerModuleUrl`), with `options` as for `new Worker`
 * (`workerData`, `resourceLimits`, ...). Throws only when no thread can be created at all.
 */
export function startWorkerModule(entryUrl: string, options: WorkerOptions = {}): Worker {
  const load = entryUrl.endsWith('.ts')
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entryUrl)}))`
    : `import(${JSON.stringify(entryUrl)})`;
  return new Worker(load, { ...options, eval: true });
}
