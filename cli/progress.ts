/**
 * Progress for work that may take a while (loading a target, starting a server, resuming a run): after a second, one
 * line on stderr (`<label>... 2.3s`), redrawn in place until the work ends, then erased. Only when stderr is a
 * terminal: a pipe, a CI log or a captured stream never sees it. No colours, so NO_COLOR needs nothing here.
 */
import type { Writable } from 'node:stream';

export interface Progress {
  /** Erase the line (if one was drawn) and stop. */
  done(): void;
}

/** Start showing `label` on `stream` after `delayMs` (default 1000) if `stream` is a terminal. */
export function slowWork(stream: Writable, label: string, options: { delayMs?: number; intervalMs?: number } = {}): Progress {
  if ((stream as { isTTY?: boolean }).isTTY !== true) return { done() {} };
  const started = performance.now();
  let drawn = false;
  let ticker: NodeJS.Timeout | undefined;
  const draw = () => {
    drawn = true;
    stream.write(`\r${label}... ${((performance.now() - started) / 1000).toFixed(1)}s\u001b[K`);
  };
  const timer = setTimeout(() => {
    draw();
    ticker = setInterval(draw, options.intervalMs ?? 250);
    ticker.unref();
  }, options.delayMs ?? 1000);
  timer.unref();
  return {
    done() {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      if (drawn) stream.write('\r\u001b[K');
      drawn = false;
    },
  };
}

/** Run `work` with a progress line for it. */
export async function withProgress<T>(
  stream: Writable,
  label: string,
  work: () => Promise<T>,
  options?: { delayMs?: number; intervalMs?: number },
): Promise<T> {
  const progress = slowWork(stream, label, options);
  try {
    return await work();
  } finally {
    progress.done();
  }
}
