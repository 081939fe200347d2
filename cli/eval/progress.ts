/**
 * The `eval run` progress bar: one line on stderr, redrawn in place, only when stderr is a terminal (a CI log or a
 * pipe gets nothing). Shows cases done of total, errors, elapsed time and the estimated time left.
 */
import type { Writable } from 'node:stream';
import type { EvalProgress } from '../../src/index.js';

const WIDTH = 24;

/** A progress callback for `evaluate()` and a `finish()` that ends the line; both do nothing off a terminal. */
export function progressBar(stream: Writable, options: { minIntervalMs?: number } = {}): { update(p: EvalProgress): void; finish(): void } {
  const tty = (stream as { isTTY?: boolean }).isTTY === true;
  const minInterval = options.minIntervalMs ?? 100;
  let last = -Infinity;
  let drawn = false;
  return {
    update(p) {
      if (!tty) return;
      const now = performance.now();
      if (p.done < p.total && now - last < minInterval) return;
      last = now;
      drawn = true;
      stream.write(`\r${progressLine(p)}\u001b[K`);
    },
    finish() {
      if (tty && drawn) stream.write('\n');
    },
  };
}

/** `[##########..............] 10/24 cases  errors 1  elapsed 3.2s  eta 4.5s` */
export function progressLine(p: EvalProgress): string {
  const share = p.total === 0 ? 1 : p.done / p.total;
  const filled = Math.round(share * WIDTH);
  const eta = p.done === 0 ? '?' : seconds((p.elapsedMs / p.done) * (p.total - p.done));
  return `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${p.done}/${p.total} cases  errors ${p.errored}  elapsed ${seconds(p.elapsedMs)}  eta ${eta}`;
}

function seconds(ms: number): string {
  return ms >= 60_000 ? `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s` : `${(ms / 1000).toFixed(1)}s`;
}
