/** Loading, error and empty states, and a hook that loads one API call with all three. */
import { useCallback, useEffect, useState } from 'react';
import type { ApiError } from '../api.js';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ error, retry }: { error: ApiError; retry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <strong>Could not load: </strong>
      {error.detail} <code>{error.code}</code>
      {retry ? (
        <button type="button" onClick={retry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'ok'; data: T };

/** Run `load` now and whenever `key` changes; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<{ data?: T; error?: ApiError }>, key: string): [Loaded<T>, () => void] {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `load` is a new closure at every render; `key` names what it reads, `tick` asks again
  useEffect(() => {
    let live = true;
    load().then(
      (outcome) => {
        if (!live) return;
        if (outcome.data !== undefined) setResult({ state: 'ok', data: outcome.data });
        else setResult({ state: 'error', error: outcome.error ?? { detail: 'no response', code: 'internal_error' } });
      },
      (error: unknown) => {
        if (live) setResult({ state: 'error', error: { detail: error instanceof Error ? error.message : String(error), code: 'network_error' } });
      },
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  return [result, reload];
}
