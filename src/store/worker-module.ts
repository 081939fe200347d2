/**
 * Start one of agentkit's worker threads from its typed module. Every worker body is a module of its own beside the
 * code that starts it (`writer-worker.ts`, `wal-keeper-worker.ts`, ...): type-checked, compiled to `dist/` and
 * packed like the rest. From the built package the thread loads the compiled `.js`; run from the TypeScript sources
 * (tests, `--conditions=agentkit-source`), it registers the same TypeScript loader (tsx) first, then loads the `.ts`.
 *
 * The only code evaluated as text is that loader line. When the module cannot load, the thread ends with the error
 * (the `Worker` emits `error`); a caller that may be blocked in `Atomics.wait` meanwhile (and so cannot hear that
 * event) names a word of shared memory in `loadFailure`, which the thread sets, waking every waiter on the buffer.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Set by a thread whose module failed to load: the SharedArrayBuffer at `workerData[key]`, read as 32-bit words, gets
 * `value` at `index`, then every waiter on it is woken.
 */
export interface LoadFailureFlag {
  key: string;
  index: number;
  value: number;
}

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
export function startWorkerModule(entryUrl: string, options: WorkerOptions & { loadFailure?: LoadFailureFlag } = {}): Worker {
  const { loadFailure, ...workerOptions } = options;
  const load = entryUrl.endsWith('.ts')
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entryUrl)}))`
    : `import(${JSON.stringify(entryUrl)})`;
  const flag = loadFailure
    ? `const f = ${JSON.stringify(loadFailure)}; const words = new Int32Array(require('node:worker_threads').workerData[f.key]); Atomics.store(words, f.index, f.value); for (let i = 0; i < words.length; i++) Atomics.notify(words, i);`
    : '';
  return new Worker(`${load}.catch((error) => { ${flag} throw error; });`, { ...workerOptions, eval: true });
}
